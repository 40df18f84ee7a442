// Package memory is the memory service's domain: what an item is, how it is
// learned, listed, found, recalled and forgotten. Storage is behind Store
// (services/memory/sqlite; replicated, services/memory/jetstream);
// transports (the NATS bus) sit in their own packages. Its text work is in
// packages named for it (chunking, entities, answer, lexicon), ranking in
// retrieval, the built-in embedders in localembed. It imports only the
// standard library, pkg/contract, pkg/secrets and those packages
// (imports_test.go).
package memory

import (
	"context"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"

	"github.com/openhuman-go/openhuman-go/services/memory/entities"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
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

// Entity is something an item mentions (services/memory/entities).
type Entity = entities.Entity

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
	LearningKinds  []string   `json:"learning_kinds,omitempty"`
	TagsAny        []string   `json:"tags_any,omitempty"`
	ObservedAfter  *time.Time `json:"observed_after,omitempty"`
	ObservedBefore *time.Time `json:"observed_before,omitempty"`
	// Workspaces, when not nil, are the only workspaces an item may be of:
	// the caller's scope, which the service sets and no argument can.
	Workspaces []string `json:"-"`
	// SourceIDs, when not empty, are the only sources (as tree.list_sources
	// names them) an item may be of: forget by source sets them.
	SourceIDs []string `json:"-"`
}

// Ranked is an item's position in a ranking, with its score.
type Ranked = retrieval.Ranked

// Marks are the store's high-water marks: its newest item's seq (0 when
// empty), newest vector's id, of any model, and newest entry of the
// deletion log. Each only grows, except Items, which falls back when the
// newest item is deleted (Deletions grows then). Retrieval's indexes catch
// up to them.
type Marks = retrieval.Marks

// ItemChange is what the keyword index reads of an item stored.
type ItemChange = retrieval.ItemChange

// Embedded is a vector computed for an item.
type Embedded struct {
	Seq    int64
	Vector []float32
}

// Written is what a write did.
type Written struct {
	// Replayed[i] reports that the write's items[i] was stored before
	// (its ID exists), and nothing changed for it.
	Replayed []bool
	// Unchanged reports that a source's content hash was already stored.
	Unchanged bool
	// Missing are the ids a delete did not find.
	Missing []string
	// Seq is the write stream's sequence of the write when the store is
	// replicated (0 otherwise): a read awaiting it (Store.Await) sees the
	// write on any replica.
	Seq uint64
}

// Writer is the half of a Store that changes what it holds. Each write
// runs in one transaction.
type Writer interface {
	// Put stores items, skipping those whose ID exists (Replayed).
	Put(ctx context.Context, items []Item) (Written, error)
	// Delete removes the items of workspaces (every workspace when nil),
	// their vectors and index entries; Missing are the ids that did not
	// exist there.
	Delete(ctx context.Context, ids []string, workspaces []string) (Written, error)
	// StartSource begins storing src (its workspace and id) in parts:
	// nothing changes when src's content hash is unchanged (Unchanged);
	// otherwise what an unfinished earlier version of src noted is dropped
	// (its chunks stay until a last part).
	StartSource(ctx context.Context, src SourceRecord) (Written, error)
	// PutSourcePart stores the items of one part of src and notes them as
	// src's. With last, in the same transaction, src's items (those of its
	// workspace) that no part of this version noted are deleted and its
	// content hash is recorded.
	PutSourcePart(ctx context.Context, src SourceRecord, items []Item, last bool) (Written, error)
	// ReplaceSource makes items the whole content of src: nothing changes
	// when src's content hash is unchanged (Unchanged); otherwise its items
	// (those of its workspace) that are not among items are deleted and
	// the new ones stored.
	ReplaceSource(ctx context.Context, src SourceRecord, items []Item) (Written, error)
}

// Store keeps items and their vectors. Implementations return
// *contract.Error values: ENGINE when storage fails, UNAVAILABLE when it is
// busy past its timeout (or, replicated, cannot reach its write stream).
type Store interface {
	Writer
	// Await returns once the store holds every write up to seq, a
	// Written.Seq of this store or of another replica's; UNAVAILABLE when
	// it does not within a few seconds. A store that is not replicated
	// holds every write it answered, and returns at once.
	Await(ctx context.Context, seq uint64) error
	// List returns up to limit items passing f with seq < before (no bound
	// when 0), newest first.
	List(ctx context.Context, f *Filter, before int64, limit int) ([]Item, error)
	// ListAfter returns up to limit items passing f with seq > after,
	// oldest first (an export's pages).
	ListAfter(ctx context.Context, f *Filter, after int64, limit int) ([]Item, error)
	// Matching returns the seqs (<= asOf) of the items passing f, ascending.
	Matching(ctx context.Context, f *Filter, asOf int64) ([]int64, error)
	// Items returns the items with the given seqs; missing ones are absent.
	Items(ctx context.Context, seqs []int64) (map[int64]Item, error)
	// Marks reads how far the store has come: newest item, newest vector,
	// newest deletion. One cheap read tells a search whether its in-memory
	// indexes have anything to catch up on.
	Marks(ctx context.Context) (Marks, error)
	// ItemChanges reports what changed since the marks: add is called for
	// each item stored after addMark (with seq above it, ascending) with
	// what the keyword index reads of it, remove for each item deleted
	// after delMark. It returns the new marks.
	ItemChanges(ctx context.Context, addMark, delMark int64,
		add func(ItemChange), remove func(seq int64)) (newAdd, newDel int64, err error)

	// PutVectors stores vectors of model; vectors of items deleted
	// meanwhile are dropped.
	PutVectors(ctx context.Context, model string, vs []Embedded) error
	// Unembedded returns up to limit items with seq > after that have no
	// vector of model, oldest first.
	// Only their Seq and Text are read: that is all embedding needs.
	Unembedded(ctx context.Context, model string, after int64, limit int) ([]Item, error)
	// CountUnembedded counts the items with seq > after that have no
	// vector of model.
	CountUnembedded(ctx context.Context, model string, after int64) (int64, error)
	// VectorChanges reports what changed since the marks: add is called for
	// each vector of model stored after addMark, remove for each item
	// deleted after delMark. It returns the new marks.
	VectorChanges(ctx context.Context, model string, addMark, delMark int64,
		add func(seq int64, v []float32), remove func(seq int64)) (newAdd, newDel int64, err error)
	// DropVectorsExcept removes the vectors of every other model.
	DropVectorsExcept(ctx context.Context, model string) (int64, error)

	// Item reads one item of workspaces (every workspace when nil) by id
	// (NOT_FOUND when absent there).
	Item(ctx context.Context, id string, workspaces []string) (Item, error)
	// Browse lists items matching q, newest observed first, and how many match.
	Browse(ctx context.Context, q BrowseQuery) ([]Item, int, error)
	// TopEntities counts the items of workspaces (every workspace when nil)
	// per entity, most mentioned first.
	TopEntities(ctx context.Context, kind string, k int, workspaces []string) ([]EntityCount, error)
	// Sources lists every source of workspaces (every workspace when nil)
	// with its item count and latest item there.
	Sources(ctx context.Context, workspaces []string) ([]SourceSummary, error)

	// Replaced maps each of ids that a learning stored later replaces
	// (its first tag is ReplacesTag + the id) to that learning's id.
	Replaced(ctx context.Context, ids []string) (map[string]string, error)

	// Health says whether the storage can be trusted: damaged, failing
	// again and again, or sound.
	Health() contract.StoreHealth
}

// SourceRecord is an ingested source as the store keeps it. A source is
// named by its workspace and id together: the same file ingested into two
// workspaces is two sources, and one never replaces the other's items.
type SourceRecord struct {
	Workspace, ID, Kind, DisplayName, ContentHash string
}

// BrowseQuery selects items for the memory tree's browse view. Empty fields
// do not restrict.
type BrowseQuery struct {
	SourceKinds []string
	SourceIDs   []string
	EntityIDs   []string
	SinceMS     int64
	UntilMS     int64
	Seqs        []int64  // when not nil, only these items (those matching a keyword query)
	Workspaces  []string // when not nil, only items of these workspaces
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
