package bus

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
)

// inbox receives a client's replies on one wildcard subscription, as
// nats.go's own request multiplexer does, but keeps a call open across
// heartbeats: nats.go's takes the first message on a reply subject as the
// answer.
//
// Whoever may subscribe to the inbox's prefix sees its reply subjects, and
// whoever may publish a request can name one as its reply subject and
// have a service answer there. So a call's token is random (128 bits from
// crypto/rand), never a counter, and a signed call takes only messages
// sealed for its own request (callauth.ReplyKeys): anything else that
// comes to its subject is dropped and counted in
// openhuman_bus_replies_dropped_total, and the call keeps waiting for its
// answer.
type inbox struct {
	nc     *nats.Conn
	prefix string // the reply subject of a call is prefix + its token

	mu    sync.Mutex
	calls map[string]*pending

	// heartbeating holds the services a replica of which has sent a
	// heartbeat. Only for those is silence from the start of a call a sign
	// of a dead replica: a service that does not send them (an older one)
	// is given the caller's whole deadline.
	heartbeating sync.Map // service name → true
}

// pending is one call waiting for its reply.
type pending struct {
	service string
	sealed  *sealedCall    // nil: an unsigned call, whose replies are not sealed
	reply   chan *nats.Msg // the answer, or nil after err is set; capacity 1
	err     error
	heard   atomic.Int64 // when the last heartbeat came (Unix ns), 0 before any
	// beaten says a heartbeat sealed for the call came: its service holds
	// it, so a "no responders" status is not the server's.
	beaten atomic.Bool
}

// sealedCall opens the messages of a signed call: sealed for the request
// of nonce, to keys.
type sealedCall struct {
	keys  *callauth.ReplyKeys
	nonce string
}

// errReplicaSilent means the replica holding a call stopped sending
// heartbeats: it died, lost its connection, or is too overloaded to say so.
var errReplicaSilent = errors.New("the replica holding the call stopped answering")

func newInbox(nc *nats.Conn) (*inbox, error) {
	in := &inbox{nc: nc, prefix: nc.NewInbox() + ".", calls: map[string]*pending{}}
	if _, err := nc.Subscribe(in.prefix+"*", in.deliver); err != nil {
		return nil, err
	}
	go in.watch()
	return in, nil
}

// watchEvery is how often the calls waiting are checked for silence: one
// goroutine watches them all, so a call costs no timer of its own.
const watchEvery = 100 * time.Millisecond

// watch fails the calls whose replica has been silent for ReplicaSilence,
// and every call once the connection is closed, until then.
func (in *inbox) watch() {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for range tick.C {
		closed, connected := in.nc.IsClosed(), in.nc.IsConnected()
		now := time.Now().UnixNano()
		in.mu.Lock()
		for token, p := range in.calls {
			heard := p.heard.Load()
			switch {
			case closed:
				in.fail(token, p, nats.ErrConnectionClosed)
			case !connected && heard != 0:
				// The silence is ours: heartbeats resume once reconnected.
				p.heard.Store(now)
			case heard != 0 && time.Duration(now-heard) >= ReplicaSilence:
				in.fail(token, p, errReplicaSilent)
			}
		}
		in.mu.Unlock()
		if closed {
			return
		}
	}
}

// fail ends a call with err; in.mu is held.
func (in *inbox) fail(token string, p *pending, err error) {
	delete(in.calls, token)
	p.err = err
	p.reply <- nil
}

// deliver routes a message to its call: a heartbeat marks the call alive,
// anything else answers it. A signed call's messages are opened first;
// one that does not open is dropped.
func (in *inbox) deliver(m *nats.Msg) {
	token := strings.TrimPrefix(m.Subject, in.prefix)
	in.mu.Lock()
	p := in.calls[token]
	in.mu.Unlock()
	if p == nil {
		return // a late heartbeat or reply of a call given up
	}
	beat := m.Header.Get(HeartbeatHeader) == heartbeatWorking && (p.sealed != nil || len(m.Data) == 0)
	if reason := p.open(m, beat); reason != "" {
		repliesDropped.WithLabelValues(reason).Inc()
		return
	}
	if beat {
		p.heard.Store(time.Now().UnixNano())
		if _, known := in.heartbeating.Load(p.service); !known {
			in.heartbeating.Store(p.service, true)
		}
		return
	}
	in.mu.Lock()
	mine := in.calls[token] == p
	if mine {
		delete(in.calls, token)
	}
	in.mu.Unlock()
	if mine { // else answered or given up meanwhile
		p.reply <- m
	}
}

// Reasons a message to a call's reply subject is dropped.
const (
	dropUnsealed     = "unsealed"          // a signed call's answer that is not sealed
	dropNotForCall   = "not_for_this_call" // sealed for another request, or altered
	dropHeartbeat    = "heartbeat"         // a heartbeat not sealed for the call
	dropNoResponders = "no_responders"     // "no responders" once the service held the call
)

// open checks that m, a reply or with beat a heartbeat, is the call's
// own, and opens it in place; it returns why it is not. The server's "no
// responders" status cannot be sealed: it is believed until a heartbeat
// of the call's own has come (before that, its reply subject has not been
// seen on the bus).
func (p *pending) open(m *nats.Msg, beat bool) (reason string) {
	if p.sealed == nil {
		return ""
	}
	if m.Header.Get(noRespondersHeader) == noRespondersStatus && len(m.Data) == 0 {
		if p.beaten.Load() {
			return dropNoResponders
		}
		return ""
	}
	from := m.Header.Get(callauth.SealHeader)
	kind, reason := callauth.KindReply, dropNotForCall
	if beat {
		kind, reason = callauth.KindBeat, dropHeartbeat
	} else if from == "" {
		return dropUnsealed
	}
	data, err := p.sealed.keys.Open(kind, from, p.sealed.nonce, m.Subject, m.Data)
	if err != nil {
		return reason
	}
	m.Data = data
	if beat {
		p.beaten.Store(true)
	}
	return ""
}

// The server's "no responders" answer, as nats.go recognizes it.
const (
	noRespondersHeader = "Status"
	noRespondersStatus = "503"
)

// request publishes body to subject asking for heartbeats and waits for
// the reply, until ctx ends or watch gives up on the call. headers makes
// the request's other headers, which may depend on its reply subject, and
// what opens its answer when it is signed.
func (in *inbox) request(ctx context.Context, service, subject string, body []byte, headers func(reply string) (nats.Header, *sealedCall, error)) (*nats.Msg, error) {
	token := newToken()
	reply := in.prefix + token
	hdr, sealed, err := headers(reply)
	if err != nil {
		return nil, err
	}
	hdr.Set(HeartbeatHeader, heartbeatAsk)
	p := &pending{service: service, sealed: sealed, reply: make(chan *nats.Msg, 1)}
	if _, known := in.heartbeating.Load(service); known {
		// The call's first heartbeat is due within HeartbeatEvery of its
		// arrival, queued or not: silence counts from now.
		p.heard.Store(time.Now().UnixNano())
	}
	in.mu.Lock()
	in.calls[token] = p
	in.mu.Unlock()
	msg := &nats.Msg{Subject: subject, Reply: reply, Data: body, Header: hdr}
	if err := in.nc.PublishMsg(msg); err != nil {
		in.forget(token)
		return nil, err
	}
	select {
	case m := <-p.reply:
		switch {
		case m == nil:
			return nil, p.err
		case m.Header.Get(noRespondersHeader) == noRespondersStatus && len(m.Data) == 0:
			return nil, nats.ErrNoResponders
		}
		return m, nil
	case <-ctx.Done():
		in.forget(token)
		return nil, ctx.Err()
	}
}

func (in *inbox) forget(token string) {
	in.mu.Lock()
	delete(in.calls, token)
	in.mu.Unlock()
}

// newToken is a call's token: 128 random bits, so that nobody who sees
// the inbox's other calls can name this one's reply subject.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
