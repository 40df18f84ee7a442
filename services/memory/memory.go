// Package memory is the memory service's domain: what an item is, how it is
// learned, listed, found, recalled and forgotten. Storage is behind small
// ports, each declared beside the part that uses it (Writer here, the
// others in service.go, list.go, scope.go, itemcache.go, embedding.go,
// tree.go, edit.go) and together Store, which services/memory/sqlite and,
// replicated, services/memory/jetstream implement;
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
	// replicated (0 otherwise): a read awaiting it (Store's Await) sees the
	// write on any replica.
	Seq uint64
}

// Writer is the port of the writes: learn, ingest, import and forget
// change what the store holds through it alone. Each write runs in one
// transaction. Implementations return *contract.Error values: ENGINE when
// storage fails, UNAVAILABLE when it is busy past its timeout (or,
// replicated, cannot reach its write stream).
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

// EntityCount is an entity and how many items mention it, and
// SourceSummary describes one source of items: the tree's results, declared
// in pkg/contract where its output schemas are generated from them.
type (
	EntityCount   = contract.EntityCount
	SourceSummary = contract.SourceSummary
)
