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
	"sync"

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
	// mu guards svc, domain and stopRun, which a handover to the sentence
	// model replaces (handover.go).
	mu      sync.Mutex
	svc     *bus.Service
	domain  *memory.Service
	stopRun context.CancelFunc // ends domain's Run
	closing bool               // Close has begun: no handover any more
	store   *sqlite.Store
	repl    *replica // nil unless [memory] replication is on
	stopBg  context.CancelFunc
	// bg counts the background goroutines: each domain's Run, the
	// replica's follower, the handover.
	bg sync.WaitGroup
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
	s.stopBg = cancel
	var domain *memory.Service
	var next *upgrade // the sentence model's coming, when it is fetched
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
		domain, next = newDomain(ctx, s.repl.store, cfg, log)
		s.repl.follow(func(ctx context.Context) { s.current().Wake(ctx) }, log)
	default:
		s.store = sqlite.New(cfg.Memory.Path)
		if err := s.store.Open(); err != nil {
			log.Error("memory is off: cannot open its database", "path", cfg.Memory.Path, "err", err)
			domain = memory.Failed(fmt.Sprintf("cannot open %s: %v", cfg.Memory.Path, err))
			s.store = nil
		} else {
			domain, next = newDomain(ctx, s.store, cfg, log)
		}
	}
	s.domain, s.stopRun = domain, func() {}
	if next == nil || !next.idle {
		s.stopRun = s.run(ctx, domain)
	}
	if s.repl != nil && s.repl.follower != nil {
		s.bg.Add(1)
		go func() { defer s.bg.Done(); _ = s.repl.follower.Run(ctx) }()
		s.repl.awaitCaughtUp(log)
	}
	checks, err := s.checks(cfg, log)
	if err == nil {
		s.svc, err = natsbus.Serve(nc, domain, telemetry.Version, checks, log)
	}
	if err != nil {
		s.stopBg()
		s.bg.Wait()
		s.closeStore()
		return nil, err
	}
	running.add(domain)
	if next != nil {
		s.bg.Add(1)
		go func() { defer s.bg.Done(); s.handOver(ctx, next, nc, checks, log) }()
	}
	return s, nil
}

// run runs d's background work until ctx ends or the returned function is
// called.
func (s *server) run(ctx context.Context, d *memory.Service) context.CancelFunc {
	ctx, stop := context.WithCancel(ctx)
	s.bg.Add(1)
	go func() { defer s.bg.Done(); d.Run(ctx) }()
	return stop
}

// current is the domain serving now.
func (s *server) current() *memory.Service {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.domain
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
// reranker and writer; models are fetched until ctx ends. While the
// sentence model is fetched, the upgrade builds the domain that takes
// over once it is (nil when none is fetched).
func newDomain(ctx context.Context, store memory.Store, cfg config.Config, log *slog.Logger) (*memory.Service, *upgrade) {
	c := cfg.Memory.Embeddings
	tr := minilm.NewTracker()
	e, fetching, onDisk := domainEmbedder(ctx, c, tr, log)
	// the embedder carries the configured figures
	opts := &memory.Options{Logger: log, Embedder: withFigures(e, c), Phase: tracing.Phase}
	if c.Provider == "minilm" {
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
	log.Debug("memory database open", "path", cfg.Memory.Path, "embeddings", opts.Embedder.Model())
	var next *upgrade
	if fetching != nil {
		next = &upgrade{fetched: fetching, idle: onDisk, build: func() (*memory.Service, error) {
			emb, err := minilm.LoadEmbedder(modelOptions(c, tr, log))
			if err != nil {
				return nil, err
			}
			o := *opts
			o.Embedder = withFigures(emb, c)
			return memory.NewService(store, &o), nil
		}}
	}
	return memory.NewService(store, opts), next
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
	h := s.current().StoreHealth()
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
func (s *server) Failing() error {
	s.mu.Lock()
	svc := s.svc
	s.mu.Unlock()
	return svc.Failing()
}

// Close stops taking requests, waits for those in flight, then closes the store.
func (s *server) Close() error {
	s.mu.Lock()
	s.closing = true
	svc, domain := s.svc, s.domain
	s.mu.Unlock()
	running.remove(domain)
	err := svc.Stop()
	s.stopBg()
	s.bg.Wait()
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
	e, _ := embedder(context.Background(), c, nil, nil)
	return withFigures(e, c)
}

// modelOptions are the options of the models memory runs itself; tr,
// when set, follows the embedder.
func modelOptions(c config.Embeddings, tr *minilm.Tracker, log *slog.Logger) minilm.Options {
	o := minilm.Options{Dir: c.ModelsDir, HubURL: c.ModelsHubURL, Off: c.Models == "off" || c.ModelsDir == "", Tracker: tr, Log: log}
	if tuneModels != nil {
		tuneModels(&o)
	}
	return o
}

// tuneModels, when set, changes the models' options (tests: the figures
// a random model reproduces).
var tuneModels func(*minilm.Options)

// domainEmbedder is embedder for a service, which waits for no model:
// minilm's sentence model, when it is on disk, is loaded in the
// background (onDisk), memory's service handing over to it then.
func domainEmbedder(ctx context.Context, c config.Embeddings, tr *minilm.Tracker, log *slog.Logger) (e memory.Embedder, fetched <-chan error, onDisk bool) {
	if c.Provider != "minilm" {
		e, fetched = embedder(ctx, c, tr, log)
		return e, fetched, false
	}
	return minilm.OpenEmbedderLater(ctx, modelOptions(c, tr, log), localembed.NewGloveEmbedder(c.Dim))
}

// embedder is the configured embedder; tr, when set, follows minilm's
// model from fetch to use, and log (slog's default when nil) has its lines.
// A fetch it starts ends with ctx, and the channel says how (nil when
// none was started).
func embedder(ctx context.Context, c config.Embeddings, tr *minilm.Tracker, log *slog.Logger) (memory.Embedder, <-chan error) {
	switch c.Provider {
	case "openai":
		return openai.New(c.BaseURL, c.Model, c.APIKey, c.BatchSize, c.Timeout()), nil
	case "ollama":
		return ollama.New(c.BaseURL, c.Model, c.BatchSize, c.Timeout()), nil
	case "hash", "hash-wordnet":
		e := localembed.NewHashEmbedder(c.Dim)
		e.Concepts = c.Provider == "hash-wordnet"
		return e, nil
	case "minilm":
		// Until the model is on disk and checked, hash-glove, while a
		// fetch in the background brings it.
		return minilm.OpenEmbedder(ctx, modelOptions(c, tr, log), localembed.NewGloveEmbedder(c.Dim))
	}
	return localembed.NewGloveEmbedder(c.Dim), nil
}
