package bus

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// NATS request-reply cannot tell a slow replica from a dead one: a request
// whose replica was killed waits for the caller's whole deadline. So a
// service tells a caller that asks for it, with an empty message to the
// call's reply subject, that it still holds the call (queued or running),
// and the caller gives up on a replica that has been silent too long.
// Fast calls, the common case, are answered before the first heartbeat is
// due and cost nothing more than a header.
const (
	// HeartbeatHeader on a request asks for heartbeats; on an empty
	// message to the reply subject it is one; on a reply it says the
	// service sends them, so the caller may count silence from the start
	// of its next call.
	HeartbeatHeader = "Openhuman-Heartbeat"
	// HeartbeatEvery is how often a service says it still holds a call.
	HeartbeatEvery = 500 * time.Millisecond
	// ReplicaSilence is how long a caller waits for a sign of life before
	// it counts the replica holding its call as gone: three heartbeats.
	ReplicaSilence = 3 * HeartbeatEvery
)

// Header values.
const (
	heartbeatAsk     = "ask"     // on a request
	heartbeatWorking = "working" // a heartbeat
	heartbeatSends   = "1"       // on a reply
)

// beats sends heartbeats for the calls a service holds. One goroutine
// serves them all, so holding a call costs a map entry, not a timer.
type beats struct {
	nc  *nats.Conn
	log *slog.Logger
	mu  sync.Mutex
	// held maps a call's reply subject to when it last heard from us
	// (its arrival, at first).
	held map[string]time.Time
}

func newBeats(nc *nats.Conn, log *slog.Logger) *beats {
	return &beats{nc: nc, log: log, held: map[string]time.Time{}}
}

// hold starts heartbeats for the call answering to reply.
func (b *beats) hold(reply string) {
	b.mu.Lock()
	b.held[reply] = time.Now()
	b.mu.Unlock()
}

// release stops them: the call is being answered.
func (b *beats) release(reply string) {
	b.mu.Lock()
	delete(b.held, reply)
	b.mu.Unlock()
}

// run sends a heartbeat for every call held for HeartbeatEvery since its
// last one, until ctx ends. Checking twice per period keeps the longest gap
// a caller sees at 1.5 periods.
func (b *beats) run(ctx context.Context) {
	tick := time.NewTicker(HeartbeatEvery / 2)
	defer tick.Stop()
	var due []string
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			due = due[:0]
			b.mu.Lock()
			for reply, last := range b.held {
				if now.Sub(last) >= HeartbeatEvery {
					b.held[reply] = now
					due = append(due, reply)
				}
			}
			b.mu.Unlock()
			for _, reply := range due {
				msg := &nats.Msg{Subject: reply, Header: nats.Header{HeartbeatHeader: {heartbeatWorking}}}
				if err := b.nc.PublishMsg(msg); err != nil {
					b.log.Debug("sending a heartbeat", "subject", reply, "err", err)
				}
			}
		}
	}
}
