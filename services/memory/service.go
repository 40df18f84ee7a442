package memory

import (
	"context"
	"log/slog"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
)

// Store is everything the Service asks of storage: the ports its parts
// declare where they use them, together, so one adapter serves them all
// (services/memory/sqlite; replicated, services/memory/jetstream).
// Implementations return *contract.Error values: ENGINE when storage
// fails, UNAVAILABLE when it is busy past its timeout (or, replicated,
// cannot reach its write stream).
type Store interface {
	Writer
	marker
	storeState
	pager
	scopeStore
	itemReader
	vectorStore
	treeStore
	replacements
	retrieval.Source
}

// marker is how far the store has come: what search, recall, the tree
// views, export and embedding read before anything else.
type marker interface {
	// Marks reads the store's newest item, newest vector and newest
	// deletion. One cheap read tells a search whether its in-memory
	// indexes have anything to catch up on.
	Marks(ctx context.Context) (Marks, error)
}

// storeState is what readiness and min_seq ask of the store.
type storeState interface {
	// Await returns once the store holds every write up to seq, a
	// Written.Seq of this store or of another replica's; UNAVAILABLE when
	// it does not within a few seconds. A store that is not replicated
	// holds every write it answered, and returns at once.
	Await(ctx context.Context, seq uint64) error
	// Health says whether the storage can be trusted: damaged, failing
	// again and again, or sound.
	Health() contract.StoreHealth
}

// Service is the memory domain behind every transport. Each part holds
// the store by the port it uses.
type Service struct {
	store        marker
	state        storeState
	writes       Writer
	pages        pager
	scope        scopeStore
	reads        itemReader
	vectors      vectorStore
	tree         treeStore
	replacements replacements
	phase        PhaseFunc
	off          string // reason memory is off, "" when on
	failed       bool   // off because its store could not be opened, not by choice
	now          func() time.Time
	embedder     Embedder
	embed        *embedState
	search       *retrieval.Engine
	cache        *itemCache
	scopes       scopeCache
	replaced     replacedMemo
	writer       AnswerWriter
	log          *slog.Logger
	recallCosine float64 // Options.RecallMinCosine
	modelState   func() *contract.ModelState
	// reranker scores the second phase of ranking, nil without one.
	reranker      Reranker
	rerankerState func() *contract.ModelState
}

// Options configure a Service; the zero value works.
type Options struct {
	// Embedder computes the vector leg's vectors. The wiring picks it
	// (memorymain.Embedder); without one, search runs on keywords alone
	// and nothing is embedded.
	Embedder Embedder
	// InlineTimeout bounds the embedding done while learning; past it the
	// item is stored anyway and embedded in the background (default 2 s).
	InlineTimeout time.Duration
	// Writer, when set, writes recall's answers from the relevant hits
	// (a language model); without it answers are extractive.
	Writer AnswerWriter
	Logger *slog.Logger
	// ExactKeywords makes hybrid search's keyword leg look for the query's
	// words only; by default it also looks for their WordNet synonyms,
	// derived and broader words, weighed below the words themselves.
	ExactKeywords bool
	// RecallMinCosine, when above 0, replaces the embedder's cosine from
	// which recall quotes a note on its vector alone (recall.go).
	RecallMinCosine float64
	// ModelState, when set, says how the configured model memory runs
	// itself fares (minilm's Tracker): store health reports it with the
	// embedding's progress.
	ModelState func() *contract.ModelState
	// Reranker, when set, scores the best candidates against the query in
	// ranking's second phase; RerankerState says how its model fares, for
	// store health.
	Reranker      Reranker
	RerankerState func() *contract.ModelState
	// Phase, when set, is called as each retrieval phase starts (rank,
	// read items, write answer) and returns the context to run it in and
	// what to call with its outcome: the hook for tracing spans.
	Phase PhaseFunc
	// Profile, when set, ranks with another profile than
	// retrieval.DefaultProfile: an evaluation's ablation.
	Profile *retrieval.Profile
}

// PhaseFunc starts a named phase of a call; see Options.Phase.
type PhaseFunc func(ctx context.Context, name string) (context.Context, func(error))

func noPhase(ctx context.Context, _ string) (context.Context, func(error)) {
	return ctx, func(error) {}
}

// NewService serves memory from store.
func NewService(store Store, opts *Options) *Service {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Embedder == nil {
		o.Embedder = noEmbedder{}
	}
	if o.InlineTimeout <= 0 {
		o.InlineTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Phase == nil {
		o.Phase = noPhase
	}
	s := &Service{store: store, state: store, writes: store, pages: store, scope: store, reads: store,
		vectors: store, tree: store, replacements: store, phase: o.Phase, now: time.Now, embedder: o.Embedder, log: o.Logger, writer: o.Writer,
		embed: newEmbedState(o.InlineTimeout), cache: newItemCache(itemCacheBytes), recallCosine: o.RecallMinCosine, modelState: o.ModelState,
		reranker: o.Reranker, rerankerState: o.RerankerState}
	ro := &retrieval.Options{ExactKeywords: o.ExactKeywords, Removed: s.cache.drop, Profile: o.Profile}
	if o.Reranker != nil {
		ro.Reranker, ro.Texts = o.Reranker, s.texts
	}
	s.search = retrieval.New(store, o.Embedder, ro)
	return s
}

// Off returns a service whose every call answers MEMORY_OFF with reason, so
// clients learn why instead of seeing the tools vanish.
func Off(reason string) *Service { return &Service{off: reason, now: time.Now, phase: noPhase} }

// Failed returns a service that is off because its store could not be
// opened: every call answers MEMORY_OFF with reason, and its store health
// is not ok, so readiness says so.
func Failed(reason string) *Service {
	s := Off(reason)
	s.failed = true
	return s
}

// StoreHealth says whether memory's storage can be trusted.
func (s *Service) StoreHealth() contract.StoreHealth {
	switch {
	case s.off != "" && s.failed:
		return contract.StoreHealth{State: contract.StoreOff, Detail: "memory is off: " + s.off}
	case s.off != "":
		return contract.StoreHealth{OK: true, State: contract.StoreDisabled, Detail: "memory is off: " + s.off}
	}
	return s.state.Health()
}

// SetClock replaces the clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

func (s *Service) check() error {
	if s.off != "" {
		return contract.Errorf(contract.CodeMemoryOff, "memory is off: %s", s.off)
	}
	return nil
}

func limit(n int) int {
	switch {
	case n <= 0:
		return contract.DefaultLimit
	case n > contract.MaxLimit:
		return contract.MaxLimit
	}
	return n
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// AwaitSeq waits until this service's store holds every write up to min,
// a seq a write answered (min_seq): a read that must see a write answered
// by another replica. UNAVAILABLE when it does not within a few seconds.
func (s *Service) AwaitSeq(ctx context.Context, min uint64) error {
	if s.state == nil || min == 0 {
		return nil
	}
	return s.state.Await(ctx, min)
}
