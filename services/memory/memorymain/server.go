// Package memorymain starts the memory service from configuration on a NATS
// connection. openhuman-memory and the gateway's embedded mode both call it,
// so the service runs the same way in one process or many.
package memorymain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/callauth/callauthmain"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/minilm"
	"github.com/openhuman-go/openhuman-go/services/memory/natsbus"
	"github.com/openhuman-go/openhuman-go/services/memory/ollama"
	"github.com/openhuman-go/openhuman-go/services/memory/openai"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// server is a running memory service.
type server struct {
	svc    *bus.Service
	store  *sqlite.Store
	repl   *replica // nil unless [memory] replication is on
	domain *memory.Service
	stopBg context.CancelFunc
	bgDone chan struct{}
	// closers close what the bus's checks keep (Redis, a nonce file).
	closers []io.Closer
}

// Start opens the store named by cfg and serves it on nc. When memory is
// disabled or the store cannot be opened, the service still registers and
// answers MEMORY_OFF with the reason: a client is told why, not left guessing.
func Start(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error) {
	s := &server{}
	// ctx ends the background work: embedding, and fetching models.
	ctx, cancel := context.WithCancel(context.Background())
	var domain *memory.Service
	switch {
	case !cfg.Memory.On():
		domain = memory.Off("disabled in configuration ([memory] enabled = false or OPENHUMAN_MEMORY_ENABLED=false)")
		log.Warn("memory is off by configuration")
	case cfg.Memory.Replicated:
		var err error
		if s.repl, s.store, err = openReplicated(cfg, log); err != nil {
			cancel()
			return nil, fmt.Errorf("memory replication ([memory] replicated = true): %w", err)
		}
		domain = newDomain(ctx, s.repl.store, cfg, log)
		s.repl.follow(domain, log)
	default:
		s.store = sqlite.New(cfg.Memory.Path)
		if err := s.store.Open(); err != nil {
			log.Error("memory is off: cannot open its database", "path", cfg.Memory.Path, "err", err)
			domain = memory.Failed(fmt.Sprintf("cannot open %s: %v", cfg.Memory.Path, err))
			s.store = nil
		} else {
			domain = newDomain(ctx, s.store, cfg, log)
		}
	}
	s.domain = domain
	// bgDone closes once every background goroutine has returned; each
	// goroutine closes a channel of its own, never reading s.bgDone, which
	// is set here meanwhile.
	ran := make(chan struct{})
	s.stopBg, s.bgDone = cancel, ran
	go func() { defer close(ran); domain.Run(ctx) }()
	if s.repl != nil && s.repl.follower != nil {
		followed := make(chan struct{})
		s.bgDone = followed
		go func() { _ = s.repl.follower.Run(ctx); <-ran; close(followed) }()
		s.repl.awaitCaughtUp(log)
	}
	checks, err := s.checks(cfg, log)
	if err == nil {
		s.svc, err = natsbus.Serve(nc, domain, telemetry.Version, checks, log)
	}
	if err != nil {
		s.stopBg()
		<-s.bgDone
		s.closeStore()
		return nil, err
	}
	running.add(domain)
	return s, nil
}

// checks are the bus's checks of memory's calls. With Redis the replicas
// share the nonces of the writes they took, so that a captured forget is
// not taken again by another replica, or after a restart: a forget sent
// again after the note was learned again would forget it again.
func (s *server) checks(cfg config.Config, log *slog.Logger) (bus.Checks, error) {
	var rc *redisconn.Client
	if cfg.Redis.URL != "" && cfg.NATS.URL != "" {
		var err error
		if rc, err = redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log); err != nil {
			return bus.Checks{}, err
		}
		s.closers = append(s.closers, rc)
	}
	checks, closer, err := callauthmain.Checks(cfg, rc)
	if closer != nil {
		s.closers = append(s.closers, closer)
	}
	return checks, err
}

// newDomain serves memory from store with the configured embedder,
// reranker and writer; models are fetched until ctx ends.
func newDomain(ctx context.Context, store memory.Store, cfg config.Config, log *slog.Logger) *memory.Service {
	tr := minilm.NewTracker()
	// the embedder carries the configured figures
	emb := withFigures(embedder(ctx, cfg.Memory.Embeddings, tr, log), cfg.Memory.Embeddings)
	opts := &memory.Options{Logger: log, Embedder: emb, Phase: tracing.Phase}
	if cfg.Memory.Embeddings.Provider == "minilm" {
		opts.ModelState = tr.State
	}
	// The cross-encoder serves whichever embedder is configured: it reads
	// the query and the text, not their vectors.
	if r, _ := minilm.OpenReranker(ctx, modelOptions(cfg.Memory.Embeddings, nil, log)); r != nil {
		opts.Reranker, opts.RerankerState = r, r.State
	}
	if cfg.LLM.Configured() {
		opts.Writer = llm.NewWriter(llm.New(cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.APIKey, cfg.LLM.Timeout()), memory.AnswerInstructions)
	}
	log.Debug("memory database open", "path", cfg.Memory.Path, "embeddings", emb.Model())
	return memory.NewService(store, opts)
}

// Ready is nil while memory's store can be trusted, the same store health
// the gateway's /readyz asks for over the bus: a replica whose database is
// damaged, failing or cannot be opened, or one whose handlers are stuck,
// should not be sent calls.
func (s *server) Ready() error {
	if err := s.Failing(); err != nil {
		return err
	}
	if s.repl != nil && s.repl.follower != nil && !s.repl.caughtUp() {
		return errors.New("memory replica catching up with the write stream")
	}
	h := s.domain.StoreHealth()
	if h.OK {
		return nil
	}
	msg := "memory store " + h.State
	if h.Detail != "" {
		msg += ": " + h.Detail
	}
	if h.LastError != "" {
		msg += " (last error: " + h.LastError + ")"
	}
	return errors.New(msg)
}

// Failing is nil unless a handler of the service is stuck past its
// deadline (bus.Service.Failing).
func (s *server) Failing() error { return s.svc.Failing() }

// Close stops taking requests, waits for those in flight, then closes the store.
func (s *server) Close() error {
	running.remove(s.domain)
	err := s.svc.Stop()
	s.stopBg()
	<-s.bgDone
	if cerr := s.closeStore(); err == nil {
		err = cerr
	}
	return err
}

func (s *server) closeStore() error {
	for _, c := range s.closers {
		_ = c.Close()
	}
	if s.repl != nil {
		s.repl.conn.Close()
	}
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

// Embedder builds the configured embedder with its figures (make eval
// measures the same one).
func Embedder(c config.Embeddings) memory.Embedder {
	return withFigures(embedder(context.Background(), c, nil, nil), c)
}

// modelOptions are the options of the models memory runs itself; tr,
// when set, follows the embedder.
func modelOptions(c config.Embeddings, tr *minilm.Tracker, log *slog.Logger) minilm.Options {
	return minilm.Options{Dir: c.ModelsDir, HubURL: c.ModelsHubURL, Off: c.Models == "off" || c.ModelsDir == "", Tracker: tr, Log: log}
}

// embedder is the configured embedder; tr, when set, follows minilm's
// model from fetch to use, and log (slog's default when nil) has its lines.
// A fetch it starts ends with ctx.
func embedder(ctx context.Context, c config.Embeddings, tr *minilm.Tracker, log *slog.Logger) memory.Embedder {
	switch c.Provider {
	case "openai":
		return openai.New(c.BaseURL, c.Model, c.APIKey, c.BatchSize, c.Timeout())
	case "ollama":
		return ollama.New(c.BaseURL, c.Model, c.BatchSize, c.Timeout())
	case "hash", "hash-wordnet":
		e := localembed.NewHashEmbedder(c.Dim)
		e.Concepts = c.Provider == "hash-wordnet"
		return e
	case "minilm":
		// Until the model is on disk and checked, hash-glove; a fetch in
		// the background brings it for the next start.
		e, _ := minilm.OpenEmbedder(ctx, modelOptions(c, tr, log), localembed.NewGloveEmbedder(c.Dim))
		return e
	}
	return localembed.NewGloveEmbedder(c.Dim)
}
