package bus

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// inbox receives a client's replies on one wildcard subscription, as
// nats.go's own request multiplexer does, but keeps a call open across
// heartbeats: nats.go's takes the first message on a reply subject as the
// answer.
type inbox struct {
	nc     *nats.Conn
	prefix string // the reply subject of a call is prefix + its token
	next   atomic.Uint64

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
	reply   chan *nats.Msg // the answer, or nil after err is set; capacity 1
	err     error
	heard   atomic.Int64 // when the last heartbeat came (Unix ns), 0 before any
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
// anything else answers it.
func (in *inbox) deliver(m *nats.Msg) {
	token := strings.TrimPrefix(m.Subject, in.prefix)
	in.mu.Lock()
	p := in.calls[token]
	beat := len(m.Data) == 0 && m.Header.Get(HeartbeatHeader) == heartbeatWorking
	if p != nil && !beat {
		delete(in.calls, token)
	}
	in.mu.Unlock()
	if p == nil {
		return // a late heartbeat or reply of a call given up
	}
	if beat {
		p.heard.Store(time.Now().UnixNano())
		if _, known := in.heartbeating.Load(p.service); !known {
			in.heartbeating.Store(p.service, true)
		}
		return
	}
	p.reply <- m
}

// The server's "no responders" answer, as nats.go recognizes it.
const (
	noRespondersHeader = "Status"
	noRespondersStatus = "503"
)

// request publishes body to subject asking for heartbeats and waits for
// the reply, until ctx ends or watch gives up on the call. headers makes
// the request's other headers, which may depend on its reply subject.
func (in *inbox) request(ctx context.Context, service, subject string, body []byte, headers func(reply string) (nats.Header, error)) (*nats.Msg, error) {
	token := strconv.FormatUint(in.next.Add(1), 36)
	reply := in.prefix + token
	hdr, err := headers(reply)
	if err != nil {
		return nil, err
	}
	hdr.Set(HeartbeatHeader, heartbeatAsk)
	p := &pending{service: service, reply: make(chan *nats.Msg, 1)}
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
