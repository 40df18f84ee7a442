// Package bustest gives tests one set of bus keys: the services a test
// starts trust them, and its callers sign with them as the gateway (or as
// the agents service) does.
package bustest

import (
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
)

var (
	once sync.Once
	keys bus.Keys
)

// Keys is the test process's set, made on first use.
func Keys() bus.Keys {
	once.Do(func() {
		var err error
		if keys, err = bus.NewKeys(); err != nil {
			panic(err)
		}
	})
	return keys
}

// replyKeys seal what Respond answers, as a service's own key does.
var replyKeys = callauth.NewReplyKeys()

// Respond answers m as a service of ours does: sealed for the request
// when its proof names a reply key (a signed caller takes nothing else),
// as it is otherwise. For tests that stand in for a service with a plain
// NATS subscription.
func Respond(m *nats.Msg, body []byte) error {
	key, nonce, ok := callauth.ReplyTo(m.Header.Get(callauth.Header))
	if !ok {
		return m.Respond(body)
	}
	box, err := replyKeys.Seal(callauth.KindReply, key, nonce, m.Reply, body)
	if err != nil {
		return err
	}
	return m.RespondMsg(&nats.Msg{Data: box, Header: nats.Header{callauth.SealHeader: {replyKeys.Public()}}})
}
