package contract

// The memory tree's arguments (the v1 surface and the tree.* tools), and
// those of memory's ingest methods.

// TreeQuery are memory.search's and memory.recall's (v1) arguments.
type TreeQuery struct {
	Query string `json:"query"`
	K     int    `json:"k,omitempty" jsonschema:"How many chunks (1 to 50)."`
}

// treeQuery is the schema of a TreeQuery whose query is described as desc.
func treeQuery(desc string) *Schema {
	return inputFor[TreeQuery](rules{
		"query": allOf(described(desc), maxLen(MaxQueryText)),
		"k":     allOf(between(1, 50), byDefault(10)),
	})
}

// ReadChunkParams name one chunk.
type ReadChunkParams struct {
	ChunkID string `json:"chunk_id" jsonschema:"The chunk's id."`
}

// BrowseParams are tree.browse's arguments.
type BrowseParams struct {
	SourceKinds []string `json:"source_kinds,omitempty" jsonschema:"Source kinds: folder, file, conversation, agent, ..."`
	SourceIDs   []string `json:"source_ids,omitempty" jsonschema:"Source ids, as tree.list_sources names them."`
	EntityIDs   []string `json:"entity_ids,omitempty" jsonschema:"Entity ids, as tree.top_entities names them (kind:surface)."`
	SinceMS     int64    `json:"since_ms,omitempty" jsonschema:"Only chunks observed at or after this Unix time in milliseconds."`
	UntilMS     int64    `json:"until_ms,omitempty" jsonschema:"Only chunks observed before this Unix time in milliseconds."`
	Query       string   `json:"query,omitempty" jsonschema:"Only chunks containing any of these words."`
	K           int      `json:"k,omitempty" jsonschema:"How many chunks (1 to 100)."`
	Offset      int      `json:"offset,omitempty" jsonschema:"How many to skip, for paging."`
}

// TopEntitiesParams are tree.top_entities's arguments.
type TopEntitiesParams struct {
	Kind string `json:"kind,omitempty" jsonschema:"Only this kind."`
	K    int    `json:"k,omitempty" jsonschema:"How many (1 to 100)."`
}

// EntityKinds are the kinds of entity tree.top_entities can name.
var EntityKinds = []string{"term", "email", "url", "handle", "hashtag"}

// ListSourcesParams are tree.list_sources's arguments.
type ListSourcesParams struct {
	UserEmailHint string `json:"user_email_hint,omitempty" jsonschema:"The user's email address: sources that mention it are marked and listed first."`
}

// IngestParams are a batch of files for memory's ingest method.
type IngestParams struct {
	Files []IngestFile `json:"files"`
}

// Turn is one turn of a conversation to store.
type Turn struct {
	ThreadID  string `json:"thread_id"`
	Speaker   string `json:"speaker,omitempty"`
	Text      string `json:"text"`
	Timestamp string `json:"timestamp,omitempty"` // RFC 3339
	Workspace string `json:"workspace,omitempty"`
}

// ConversationParams are turns for memory's ingest_conversation method.
type ConversationParams struct {
	Turns []Turn `json:"turns"`
}
