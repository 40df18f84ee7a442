// Package memory is the memory service's domain: what an item is, how it is
// learned, listed, found, recalled and forgotten. Storage is behind Store;
// transports (the NATS bus) sit in their own packages. It imports only the
// standard library and pkg/contract.
package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
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

// Page asks for one page of results.
type Page struct {
	Limit  int
	Cursor string
}

// Scored is an item found by a search, with its relevance.
type Scored struct {
	Item
	Score float64
}

// Store keeps items. Implementations return *contract.Error values:
// INVALID_REQUEST for a cursor they did not make, ENGINE when storage fails.
type Store interface {
	// Put stores item unless an item with its ID exists; replayed reports that.
	Put(ctx context.Context, item Item) (replayed bool, err error)
	// List returns items newest first and the cursor of the next page ("" at the end).
	List(ctx context.Context, f *Filter, page Page) ([]Item, string, error)
	// Search returns items containing any of terms, best first.
	Search(ctx context.Context, terms []string, f *Filter, page Page) ([]Scored, string, error)
	// Delete removes items and their index entries; it returns the ids that did not exist.
	Delete(ctx context.Context, ids []string) (missing []string, err error)
}

// Service is the memory domain behind every transport.
type Service struct {
	store Store
	off   string // reason memory is off, "" when on
	now   func() time.Time
}

// NewService serves memory from store.
func NewService(store Store) *Service { return &Service{store: store, now: time.Now} }

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
	text, redacted := Scrub(strings.TrimSpace(p.Text))
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
	now := s.now().UTC()
	item := Item{
		Kind: "learning", LearningKind: kind, Text: text, Confidence: &conf,
		Source: "agent", Provenance: provenance(cc), ObservedAt: now, CreatedAt: now,
	}
	item.ID = Fingerprint(item)
	replayed, err := s.store.Put(ctx, item)
	if err != nil {
		return nil, err
	}
	return &LearnResult{ID: item.ID, Replayed: replayed, Redacted: redacted}, nil
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

// List pages through items newest first.
func (s *Service) List(ctx context.Context, p ListParams) (*ListResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	items, next, err := s.store.List(ctx, p.Filter, Page{Limit: limit(p.Limit), Cursor: p.Cursor})
	if err != nil {
		return nil, err
	}
	out := &ListResult{Items: make([]Hit, 0, len(items)), NextCursor: next}
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
}

// Modes this engine serves; the first is the default.
var Modes = []string{"keyword"}

// Fetch finds items matching the query's words.
func (s *Service) Fetch(ctx context.Context, p FetchParams) (*FetchResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	mode := p.Mode
	if mode == "" {
		mode = Modes[0]
	}
	if !contains(Modes, mode) {
		return nil, contract.Errorf(contract.CodeUnsupported,
			"memory.fetch mode %q is not supported by this memory engine (it supports: %s); leave mode out to use the default",
			mode, strings.Join(Modes, ", "))
	}
	out := &FetchResult{Hits: []Hit{}, Mode: mode}
	terms := Terms(p.Query)
	if len(terms) == 0 {
		return out, nil // only stopwords or punctuation: nothing to look for
	}
	found, next, err := s.store.Search(ctx, terms, p.Filter, Page{Limit: limit(p.Limit), Cursor: p.Cursor})
	if err != nil {
		return nil, err
	}
	out.NextCursor = next
	for _, sc := range found {
		score := sc.Score
		out.Hits = append(out.Hits, hitOf(sc.Item, &score))
	}
	return out, nil
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
	Meta
}

func hitOf(it Item, score *float64) Hit {
	return Hit{ID: it.ID, Kind: it.Kind, Text: it.Text, Score: score, Confidence: it.Confidence, Meta: HitMeta{
		Source: it.Source, Provenance: it.Provenance, LearningKind: it.LearningKind,
		ObservedAt: it.ObservedAt.UTC().Format(time.RFC3339Nano), CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano),
		Tags: it.Tags, Meta: it.Meta,
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
