package bus

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
)

// NATS request-reply cannot tell a slow replica from a dead one: a request
// whose replica was killed waits for the caller's whole deadline. So a
// service tells a caller that asks for it, with an empty message to the
// call's reply subject, that it still holds the call (queued or running),
// and the caller gives up on a replica that has been silent too long.
// Fast calls, the common case, are answered before the first heartbeat is
// due and cost one small header on the request.
//
// A caller must know that a service heartbeats before it may count
// silence from the moment it sends a call (a replica can die before the
// call's first heartbeat is due); a service that never heartbeats is an
// older one, to be given the whole deadline. So a replica greets each
// caller, the first time it holds a call of theirs, with a heartbeat at
// once: one message per caller and replica, not per call.
const (
	// HeartbeatHeader on a request asks for heartbeats; on an empty
	// message to the reply subject it is one.
	HeartbeatHeader = "Openhuman-Heartbeat"
	// HeartbeatEvery is how often a service says it still holds a call.
	HeartbeatEvery = 500 * time.Millisecond
	// ReplicaSilence is how long a caller waits for a sign of life before
	// it counts the replica holding its call as gone: three heartbeats.
	ReplicaSilence = 3 * HeartbeatEvery
)

// maxAttempts bounds how often a call whose replica went silent or was
// stopping is sent: three times, within the call's own deadline.
const maxAttempts = 3

// Header values.
const (
	heartbeatAsk     = "ask"     // on a request
	heartbeatWorking = "working" // a heartbeat
)

// heartbeat is every unsealed heartbeat's header: it is only read.
var heartbeat = nats.Header{HeartbeatHeader: {heartbeatWorking}}

// maxGreeted bounds the callers a service remembers having greeted; past
// it the memory starts over, and callers are greeted again (harmless).
const maxGreeted = 4096

// beats sends heartbeats for the calls a service holds. One goroutine
// serves them all, so holding a call costs a map entry, not a timer. A
// signed call's heartbeat is sealed for it, as its answer will be, so
// that no other message keeps the call open.
type beats struct {
	nc   *nats.Conn
	log  *slog.Logger
	keys *callauth.ReplyKeys
	mu   sync.Mutex
	// held are the calls held. Two requests may name one reply subject
	// (whoever sees a call's heartbeat may send one naming it): each is
	// held, and released, apart.
	held map[*heldCall]struct{}
	// greeted holds the reply prefixes (callers) sent a first heartbeat.
	greeted map[string]bool
}

// heldCall is a call being held.
type heldCall struct {
	reply string
	last  time.Time // when its caller last heard from us (its arrival, at first)
	to    replyTo
	once  sync.Once
	beat  *nats.Msg // made on its first heartbeat: most calls are answered before
}

func newBeats(nc *nats.Conn, log *slog.Logger, keys *callauth.ReplyKeys) *beats {
	return &beats{nc: nc, log: log, keys: keys, held: map[*heldCall]struct{}{}, greeted: map[string]bool{}}
}

// hold starts heartbeats for the call answering to reply, sealed for to,
// greeting its caller first if this is the first call of theirs; release
// the call returned to stop them.
func (b *beats) hold(reply string, to replyTo) *heldCall {
	caller := reply
	if i := strings.LastIndexByte(reply, '.'); i > 0 {
		caller = reply[:i]
	}
	h := &heldCall{reply: reply, last: time.Now(), to: to}
	b.mu.Lock()
	b.held[h] = struct{}{}
	greet := !b.greeted[caller]
	if greet {
		if len(b.greeted) >= maxGreeted {
			clear(b.greeted)
		}
		b.greeted[caller] = true
	}
	b.mu.Unlock()
	if greet {
		b.send(h)
	}
	return h
}

func (b *beats) send(h *heldCall) {
	h.once.Do(func() { h.beat = seal(b.keys, callauth.KindBeat, h.to, h.reply, nil, heartbeat) })
	if err := b.nc.PublishMsg(h.beat); err != nil {
		b.log.Debug("sending a heartbeat", "subject", h.reply, "err", err)
	}
}

// release stops h's heartbeats: the call is being answered. A nil h was
// never held.
func (b *beats) release(h *heldCall) {
	if h == nil {
		return
	}
	b.mu.Lock()
	delete(b.held, h)
	b.mu.Unlock()
}

// run sends a heartbeat for every call held for HeartbeatEvery since its
// last one, until ctx ends. Checking twice per period keeps the longest gap
// a caller sees at 1.5 periods.
func (b *beats) run(ctx context.Context) {
	tick := time.NewTicker(HeartbeatEvery / 2)
	defer tick.Stop()
	var due []*heldCall
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			due = due[:0]
			b.mu.Lock()
			for h := range b.held {
				if now.Sub(h.last) >= HeartbeatEvery {
					h.last = now
					due = append(due, h)
				}
			}
			b.mu.Unlock()
			for _, h := range due {
				b.send(h)
			}
		}
	}
}
