package memorymain

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/natsbus"
)

// upgrade is the sentence model's coming: its background fetch, and what
// builds the domain that embeds with it once it is fetched.
type upgrade struct {
	fetched <-chan error
	build   func() (*memory.Service, error)
	// idle: the model was on disk at the start, and the offline domain
	// serves without embedding until it is loaded, so as not to embed
	// every item with the offline embedder and drop the model's vectors
	// in the second it takes (its Run starts only if the model is
	// refused).
	idle bool
}

// handOver waits for the sentence model's fetch, then serves memory from
// a domain built on it. A domain embeds with one model all its life, so
// that a vector space never changes under a search: the new domain joins
// the bus beside the old (one queue group, so a call goes to either, each
// answering from its own vectors), the old one stops taking calls and
// finishes those it has, and the new one's background worker embeds every
// item with the model (its progress in store health), then drops the old
// vectors. Meanwhile searches find the items not embedded yet by their
// words, as after a restart with a new model. A model refused by its
// self-check leaves the offline embedder serving, and store health says
// why.
func (s *server) handOver(ctx context.Context, u *upgrade, nc *nats.Conn, checks bus.Checks, log *slog.Logger) {
	select {
	case err := <-u.fetched:
		if err != nil {
			return // the fetch ended with ctx
		}
	case <-ctx.Done():
		return
	}
	next, err := u.build()
	if err != nil { // logged, and in store health
		s.stayOffline(ctx, u)
		return
	}
	svc, err := natsbus.Serve(nc, next, telemetry.Version, checks, log)
	if err != nil {
		log.Error("memory cannot hand over to the sentence model; it goes on with its offline embedder", "err", err)
		s.stayOffline(ctx, u)
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = svc.Stop()
		return
	}
	old, oldSvc, stopOld := s.domain, s.svc, s.stopRun
	s.domain, s.svc, s.stopRun = next, svc, s.run(ctx, next)
	s.mu.Unlock()
	running.add(next)
	if err := oldSvc.Stop(); err != nil {
		log.Warn("the offline embedder's memory service stopped with an error", "err", err)
	}
	stopOld()
	running.remove(old)
	log.Info("memory embeds with the sentence model now; its items are embedded again in the background",
		"model", next.EmbeddingProgress(ctx).Model)
}

// stayOffline keeps the offline domain serving, and embedding when it
// was idle.
func (s *server) stayOffline(ctx context.Context, u *upgrade) {
	if !u.idle {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closing {
		s.stopRun = s.run(ctx, s.domain)
	}
}
