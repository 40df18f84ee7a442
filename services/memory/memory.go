// Package memory is the memory service's domain: what an item is, how it is
// learned, listed, found, recalled and forgotten. Storage is behind Store;
// transports (the NATS bus) sit in their own packages, and so does the
// search engine it ranks with (topk and the packages beside it). It imports
// only the standard library, pkg/contract and that engine.
package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/topk"
)

// Item is one stored memory.
type Item struct {
	Seq          int64 // store order; newest is highest
	ID           string
	Kind         string // contract.ItemKinds
	LearningKind string // contract.LearningKinds, for learnings
	Text         string
	Confidence   *float64
	Source       string // contract.ItemSources
	Provenance   string // "mcp:cursor", "cli", ...
	Meta         Meta
	Tags         []string
	ObservedAt   time.Time
	CreatedAt    time.Time
	// SourceID names what the item came from (a file, a thread); empty for
	// learnings, whose source is who wrote them (Provenance).
	SourceID string
	// SourceRef locates the item within its source (a heading, a line range).
	SourceRef string
	// TokenCount estimates the item's size in model tokens.
	TokenCount int
	// Entities are the names, handles, addresses and links it mentions.
	Entities []Entity
}

// Meta is the metadata filters match on.
type Meta struct {
	Workspace string `json:"workspace,omitempty"`
	Folder    string `json:"folder,omitempty"`
	FilePath  string `json:"file_path,omitempty"`
	Language  string `json:"language,omitempty"`
	Repo      string `json:"repo,omitempty"`
	Commit    string `json:"commit,omitempty"`
	URL       string `json:"url,omitempty"`
	ThreadID  string `json:"thread_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
}

// Filter restricts reads; every set field must match.
type Filter struct {
	Meta
	Kinds          []string   `json:"kinds,omitempty"`
	Sources        []string   `json:"sources,omitempty"`
	TagsAny        []string   `json:"tags_any,omitempty"`
	ObservedAfter  *time.Time `json:"observed_after,omitempty"`
	ObservedBefore *time.Time `json:"observed_before,omitempty"`
}

// Ranked is an item's position in a ranking, with its score.
type Ranked = topk.Ranked

// Marks are the store's high-water marks. Each only grows, except Items,
// which falls back when the newest item is deleted (Deletions grows then).
type Marks struct {
	Items     int64 // newest item's seq (0 when empty)
	Vectors   int64 // newest vector's id, of any model
	Deletions int64 // newest entry of the deletion log
}

// Embedded is a vector computed for an item.
type Embedded struct {
	Seq    int64
	Vector []float32
}

// Store keeps items and their vectors. Implementations return
// *contract.Error values: ENGINE when storage fails, UNAVAILABLE when it is
// busy past its timeout.
type Store interface {
	// Put stores items in one transaction, skipping those whose ID exists;
	// replayed[i] reports that for items[i].
	Put(ctx context.Context, items []Item) (replayed []bool, err error)
	// Delete removes items, their vectors and index entries; it returns the
	// ids that did not exist.
	Delete(ctx context.Context, ids []string) (missing []string, err error)
	// List returns up to limit items passing f with seq < before (no bound
	// when 0), newest first.
	List(ctx context.Context, f *Filter, before int64, limit int) ([]Item, error)
	// Matching returns the seqs (<= asOf) of the items passing f, ascending.
	Matching(ctx context.Context, f *Filter, asOf int64) ([]int64, error)
	// Items returns the items with the given seqs; missing ones are absent.
	Items(ctx context.Context, seqs []int64) (map[int64]Item, error)
	// Marks reads how far the store has come: newest item, newest vector,
	// newest deletion. One cheap read tells a search whether its in-memory
	// indexes have anything to catch up on.
	Marks(ctx context.Context) (Marks, error)
	// ItemChanges reports what changed since the marks: add is called for
	// each item stored after addMark (with seq above it, ascending), remove
	// for each item deleted after delMark. It returns the new marks.
	ItemChanges(ctx context.Context, addMark, delMark int64,
		add func(seq int64, text string), remove func(seq int64)) (newAdd, newDel int64, err error)

	// PutVectors stores vectors of model; vectors of items deleted
	// meanwhile are dropped.
	PutVectors(ctx context.Context, model string, vs []Embedded) error
	// Unembedded returns up to limit items with seq > after that have no
	// vector of model, oldest first.
	// Only their Seq and Text are read: that is all embedding needs.
	Unembedded(ctx context.Context, model string, after int64, limit int) ([]Item, error)
	// VectorChanges reports what changed since the marks: add is called for
	// each vector of model stored after addMark, remove for each item
	// deleted after delMark. It returns the new marks.
	VectorChanges(ctx context.Context, model string, addMark, delMark int64,
		add func(seq int64, v []float32), remove func(seq int64)) (newAdd, newDel int64, err error)
	// DropVectorsExcept removes the vectors of every other model.
	DropVectorsExcept(ctx context.Context, model string) (int64, error)

	// ReplaceSource makes items the whole content of src in one
	// transaction: nothing changes when src's content hash is unchanged;
	// otherwise its items that are not among items are deleted and the new
	// ones stored.
	ReplaceSource(ctx context.Context, src SourceRecord, items []Item) (unchanged bool, replayed []bool, err error)
	// Item reads one item by id (NOT_FOUND when absent).
	Item(ctx context.Context, id string) (Item, error)
	// Browse lists items matching q, newest observed first, and how many match.
	Browse(ctx context.Context, q BrowseQuery) ([]Item, int, error)
	// TopEntities counts items per entity, most mentioned first.
	TopEntities(ctx context.Context, kind string, k int) ([]EntityCount, error)
	// Sources lists every source with its item count and latest item.
	Sources(ctx context.Context) ([]SourceSummary, error)
}

// SourceRecord is an ingested source as the store keeps it.
type SourceRecord struct {
	ID, Kind, DisplayName, ContentHash string
}

// BrowseQuery selects items for the memory tree's browse view. Empty fields
// do not restrict.
type BrowseQuery struct {
	SourceKinds []string
	SourceIDs   []string
	EntityIDs   []string
	SinceMS     int64
	UntilMS     int64
	Seqs        []int64 // when not nil, only these items (those matching a keyword query)
	K, Offset   int
}

// EntityCount is an entity and how many items mention it.
type EntityCount struct {
	Entity
	Count int `json:"count"`
}

// SourceSummary describes one source of items.
type SourceSummary struct {
	SourceID     string `json:"source_id"`
	DisplayName  string `json:"display_name"`
	SourceKind   string `json:"source_kind"`
	ChunkCount   int    `json:"chunk_count"`
	MostRecentMS int64  `json:"most_recent_ms"`
}

// Service is the memory domain behind every transport.
type Service struct {
	store    Store
	off      string // reason memory is off, "" when on
	now      func() time.Time
	embedder Embedder
	vectors  *vectorState
	keywords *keywordState
	cache    *itemCache
	writer   AnswerWriter
	log      *slog.Logger
}

// Options configure a Service; the zero value works.
type Options struct {
	// Embedder computes the vector leg's vectors (default: the hash embedder).
	Embedder Embedder
	// InlineTimeout bounds the embedding done while learning; past it the
	// item is stored anyway and embedded in the background (default 2 s).
	InlineTimeout time.Duration
	// Writer, when set, writes recall's answers from the relevant hits
	// (a language model); without it answers are extractive.
	Writer AnswerWriter
	Logger *slog.Logger
}

// NewService serves memory from store.
func NewService(store Store, opts *Options) *Service {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Embedder == nil {
		o.Embedder = NewHashEmbedder(0)
	}
	if o.InlineTimeout <= 0 {
		o.InlineTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, now: time.Now, embedder: o.Embedder, log: o.Logger, writer: o.Writer,
		vectors: newVectorState(o.InlineTimeout), keywords: &keywordState{}, cache: newItemCache(itemCacheBytes)}
}

// Off returns a service whose every call answers MEMORY_OFF with reason, so
// clients learn why instead of seeing the tools vanish.
func Off(reason string) *Service { return &Service{off: reason, now: time.Now} }

// SetClock replaces the clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

func (s *Service) check() error {
	if s.off != "" {
		return contract.Errorf(contract.CodeMemoryOff, "memory is off: %s", s.off)
	}
	return nil
}

// LearnParams are memory.learn's arguments.
type LearnParams struct {
	Text       string   `json:"text"`
	Kind       string   `json:"kind,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// LearnResult says which item holds the learning.
type LearnResult struct {
	ID       string `json:"id"`
	Replayed bool   `json:"replayed"`
	// Redacted names the kinds of secret removed before storing.
	Redacted []string `json:"redacted,omitempty"`
}

// Learn stores one learning with the caller's provenance.
func (s *Service) Learn(ctx context.Context, p LearnParams, cc contract.CallContext) (*LearnResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	text := strings.TrimSpace(p.Text)
	if text == "" {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "argument `text` must not be blank")
	}
	kind := p.Kind
	if kind == "" {
		kind = contract.DefaultLearningKind
	}
	conf := contract.DefaultConfidence
	if p.Confidence != nil {
		conf = *p.Confidence
	}
	item := Item{
		Kind: "learning", LearningKind: kind, Text: text, Confidence: &conf,
		Source: "agent", Provenance: provenance(cc),
	}
	res, err := s.Remember(ctx, []Item{item})
	if err != nil {
		return nil, err
	}
	return &res[0], nil
}

// Remember stores items of any kind (learnings, document chunks,
// conversation turns) in one transaction, then embeds them.
func (s *Service) Remember(ctx context.Context, items []Item) ([]LearnResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	out, err := s.prepare(items)
	if err != nil {
		return nil, err
	}
	replayed, err := s.store.Put(ctx, items)
	if err != nil {
		return nil, err
	}
	fresh := false
	for i, r := range replayed {
		out[i].Replayed = r
		fresh = fresh || !r
	}
	if fresh {
		s.embedNew(ctx)
	}
	return out, nil
}

// prepare readies items for storing: secrets scrubbed, observed_at
// defaulted to now, tokens estimated, entities extracted, ids fingerprinted.
func (s *Service) prepare(items []Item) ([]LearnResult, error) {
	now := s.now().UTC()
	out := make([]LearnResult, len(items))
	for i := range items {
		it := &items[i]
		var redacted []string
		it.Text, redacted = Scrub(strings.TrimSpace(it.Text))
		if it.Text == "" {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "item %d has no text", i+1)
		}
		if it.ObservedAt.IsZero() {
			it.ObservedAt = now
		}
		it.CreatedAt = now
		if it.TokenCount == 0 {
			it.TokenCount = EstimateTokens(it.Text)
		}
		it.Entities = ExtractEntities(it.Text)
		it.ID = Fingerprint(*it)
		out[i] = LearnResult{ID: it.ID, Redacted: redacted}
	}
	return out, nil
}

func provenance(cc contract.CallContext) string {
	if cc.Source == "" {
		return "unknown"
	}
	return cc.Source
}

// Fingerprint is an item's id: a hash of its content and the metadata that
// places it, but not of when it was observed or who said it, so storing the
// same thing again is a replay rather than a duplicate.
func Fingerprint(it Item) string {
	h := sha256.New()
	for _, part := range []string{it.Kind, it.LearningKind, strings.Join(strings.Fields(it.Text), " "),
		it.Meta.Workspace, it.Meta.Folder, it.Meta.FilePath, it.Meta.Repo, it.Meta.Commit, it.Meta.URL, it.Meta.ThreadID, it.Meta.AgentID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	// Appended only when set, so items without a source keep the ids they
	// always had.
	if it.SourceID != "" || it.SourceRef != "" {
		h.Write([]byte(it.SourceID + "\x00" + it.SourceRef + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// ListParams are memory.list's arguments.
type ListParams struct {
	Filter *Filter `json:"filter,omitempty"`
	Limit  int     `json:"limit,omitempty"`
	Cursor string  `json:"cursor,omitempty"`
}

// ListResult is one page of items, newest first.
type ListResult struct {
	Items      []Hit  `json:"items"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// List pages through items newest first. The cursor holds the last seq
// seen, so pages stay consistent while other writers add items.
func (s *Service) List(ctx context.Context, p ListParams) (*ListResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	fp := argsFingerprint("list", p.Filter)
	c, err := decodeCursor(p.Cursor, fp)
	if err != nil {
		return nil, err
	}
	n := limit(p.Limit)
	items, err := s.store.List(ctx, p.Filter, c.Before, n+1)
	if err != nil {
		return nil, err
	}
	out := &ListResult{Items: make([]Hit, 0, min(len(items), n))}
	if len(items) > n {
		items = items[:n]
		out.NextCursor = cursor{Before: items[n-1].Seq, For: fp}.encode()
	}
	for _, it := range items {
		out.Items = append(out.Items, hitOf(it, nil))
	}
	return out, nil
}

// FetchParams are memory.fetch's arguments.
type FetchParams struct {
	Query  string  `json:"query"`
	Mode   string  `json:"mode,omitempty"`
	Filter *Filter `json:"filter,omitempty"`
	Limit  int     `json:"limit,omitempty"`
	Cursor string  `json:"cursor,omitempty"`
}

// FetchResult is one page of hits, best first.
type FetchResult struct {
	Hits       []Hit  `json:"hits"`
	Mode       string `json:"mode"`
	NextCursor string `json:"next_cursor,omitempty"`
	// Warnings say when the results are less than asked for, and why.
	Warnings []string `json:"warnings,omitempty"`
}

// ForgetParams are memory.forget's arguments.
type ForgetParams struct {
	IDs []string `json:"ids"`
}

// ForgetResult counts what was removed and names ids that were not there.
type ForgetResult struct {
	Forgotten int      `json:"forgotten"`
	NotFound  []string `json:"not_found"`
}

// Forget removes items for good.
func (s *Service) Forget(ctx context.Context, p ForgetParams) (*ForgetResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ids := dedupe(p.IDs)
	missing, err := s.store.Delete(ctx, ids)
	if err != nil {
		return nil, err
	}
	// The index drops their vectors at its next sync, from the store's
	// deletion log.
	if missing == nil {
		missing = []string{}
	}
	return &ForgetResult{Forgotten: len(ids) - len(missing), NotFound: missing}, nil
}

// Hit is an item as tools return it.
type Hit struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Text       string   `json:"text"`
	Meta       HitMeta  `json:"meta"`
	Score      *float64 `json:"score,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// HitMeta is an item's metadata as tools return it: where it came from,
// who wrote it, when, and what it belongs to.
type HitMeta struct {
	Source       string   `json:"source"`
	Provenance   string   `json:"provenance"`
	LearningKind string   `json:"learning_kind,omitempty"`
	ObservedAt   string   `json:"observed_at"`
	CreatedAt    string   `json:"created_at"`
	Tags         []string `json:"tags,omitempty"`
	SourceID     string   `json:"source_id,omitempty"`
	SourceRef    string   `json:"source_ref,omitempty"`
	Meta
}

func hitOf(it Item, score *float64) Hit {
	return Hit{ID: it.ID, Kind: it.Kind, Text: it.Text, Score: score, Confidence: it.Confidence, Meta: HitMeta{
		Source: it.Source, Provenance: it.Provenance, LearningKind: it.LearningKind,
		ObservedAt: it.ObservedAt.UTC().Format(time.RFC3339Nano), CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano),
		Tags: it.Tags, SourceID: it.SourceID, SourceRef: it.SourceRef, Meta: it.Meta,
	}}
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

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
