package bus

import (
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
)

// A service seals what it sends to a signed request's reply subject, its
// answer and its heartbeats, for that request (callauth.ReplyKeys): the
// caller believes nothing else that comes there, and whoever else reads
// the caller's inbox reads nothing. An answer is sealed only once the
// request's proof holds and its nonce is fresh (a heartbeat, sent while a
// request waits its turn, before that): the answer to an unsigned, forged
// or replayed request goes unsealed, as before. Its caller, if it is no
// signer, takes it; a signer drops it, and every signer's calls have reply
// subjects nobody can guess.

// replyTo is whom a request's messages are sealed for: the reply key and
// nonce its proof names, or nobody (zero) when it names none.
type replyTo struct{ key, nonce string }

func replyToOf(h nats.Header) replyTo {
	key, nonce, ok := callauth.ReplyTo(h.Get(callauth.Header))
	if !ok {
		return replyTo{}
	}
	return replyTo{key: key, nonce: nonce}
}

func (to replyTo) sealed() bool { return to.key != "" }

// sealOverhead is what sealing adds to a message: a nonce and a tag.
const sealOverhead = 12 + 16

// seal returns the message carrying data, of kind, to subject for to:
// sealed by keys when to is someone, else as it is. A key that is not one
// (only a forged proof names one) gets the message unsealed, which its
// caller, were there one, would drop.
func seal(keys *callauth.ReplyKeys, kind callauth.Kind, to replyTo, subject string, data []byte, hdr nats.Header) *nats.Msg {
	msg := &nats.Msg{Subject: subject, Data: data, Header: hdr}
	if !to.sealed() {
		return msg
	}
	box, err := keys.Seal(kind, to.key, to.nonce, subject, data)
	if err != nil {
		return msg
	}
	h := nats.Header{callauth.SealHeader: {keys.Public()}}
	if kind == callauth.KindBeat {
		h.Set(HeartbeatHeader, heartbeatWorking)
	}
	return &nats.Msg{Subject: subject, Data: box, Header: h}
}
