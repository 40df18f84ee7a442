package bus

import (
	"fmt"
	"sync"
	"time"
)

// A handler that is still running well after its request's deadline has
// stopped listening to its context: it waits on a lock, a channel or a
// peer that will never answer. Its slot is lost for good, and once the
// service's slots are all lost every call waits, health checks included,
// while $SRV.PING (answered by micro on its own) still says the service
// is alive. So the service counts such calls itself, and its readiness
// says it is failing: only a restart frees what they hold.

// defaultStuckAfter is how long past its deadline a handler may still run
// before it counts as stuck (ServiceConfig.StuckAfter): long enough for
// one that noticed its deadline to finish the statement or write it was in.
const defaultStuckAfter = 10 * time.Second

// handling are the calls a service's handlers are running, with their
// deadlines.
type handling struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]handled
}

type handled struct {
	method   string
	deadline time.Time
	logged   bool // its being stuck was logged
}

// begin records a call that must answer by deadline; end forgets it.
func (h *handling) begin(method string, deadline time.Time) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls == nil {
		h.calls = make(map[uint64]handled)
	}
	h.next++
	h.calls[h.next] = handled{method: method, deadline: deadline}
	return h.next
}

func (h *handling) end(id uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.calls, id)
}

// stuck counts the calls running more than after past their deadlines as
// of now, and returns the longest overdue; fresh lists the
// ones not reported before, so each is logged once.
func (h *handling) stuck(now time.Time, after time.Duration) (n int, worst handled, fresh []handled) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, c := range h.calls {
		if now.Sub(c.deadline) <= after {
			continue
		}
		n++
		if n == 1 || c.deadline.Before(worst.deadline) {
			worst = c
		}
		if !c.logged {
			c.logged = true
			h.calls[id] = c
			fresh = append(fresh, c)
		}
	}
	return n, worst, fresh
}

// Failing says why the service cannot be trusted with calls, nil when it
// can: a handler ran more than ServiceConfig.StuckAfter past its deadline and has not
// returned. It is what a service's readiness reports; the process must be
// restarted to get the handler's slot (and whatever it holds) back.
func (s *Service) Failing() error {
	now := time.Now()
	n, worst, fresh := s.handling.stuck(now, s.cfg.StuckAfter)
	for _, c := range fresh {
		s.cfg.Logger.Error("a handler is stuck: it is still running long after its deadline; restart the service to free it",
			"method", c.method, "past_deadline", now.Sub(c.deadline).Round(time.Second))
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d call(s) of the %s service are stuck: %s.%s has been running %s past its deadline; restart the service",
		n, s.cfg.Name, s.cfg.Name, worst.method, now.Sub(worst.deadline).Round(time.Second))
}
