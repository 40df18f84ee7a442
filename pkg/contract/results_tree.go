package contract

// The memory tree's results.

// ChunkRow is a chunk as the tree lists it.
type ChunkRow struct {
	ID             string   `json:"id"`
	SourceKind     string   `json:"source_kind"`
	SourceID       string   `json:"source_id"`
	SourceRef      string   `json:"source_ref,omitempty" jsonschema:"Where in the source: a heading or a line range."`
	Owner          string   `json:"owner" jsonschema:"Who stored it."`
	TimestampMS    int64    `json:"timestamp_ms"`
	TokenCount     int      `json:"token_count"`
	ContentPreview string   `json:"content_preview" jsonschema:"Up to 500 characters."`
	Tags           []string `json:"tags"`
}

// ChunkList is a list of chunks and how many matched in all.
type ChunkList struct {
	Chunks []ChunkRow `json:"chunks"`
	Total  int        `json:"total" jsonschema:"How many chunks match in all."`
}

// ScoredChunks are chunks with a score each, in the same order.
type ScoredChunks struct {
	Chunks []ChunkRow `json:"chunks"`
	Scores []float64  `json:"scores"`
}

// Entity is something an item mentions. ID is canonical: kind, a colon and
// the lowercased surface without a leading @ or #.
type Entity struct {
	ID      string `json:"entity_id" jsonschema:"kind:lowercased-surface"`
	Kind    string `json:"kind" jsonschema:"term, email, url, handle or hashtag."`
	Surface string `json:"surface" jsonschema:"The entity as the text writes it."`
}

// FullChunk is tree.read_chunk's result: a chunk with its whole content,
// and the item it is as memory.list shows items (its kind and every
// date), with the entities it mentions: what a person needs to judge one
// item.
type FullChunk struct {
	Chunk    ChunkRow `json:"chunk"`
	Content  string   `json:"content" jsonschema:"The whole text."`
	Item     Hit      `json:"item" jsonschema:"The item the chunk is, as memory.list shows it."`
	Entities []Entity `json:"entities" jsonschema:"The names, handles, addresses and links it mentions."`
}

// EntityCount is an entity and how many items mention it.
type EntityCount struct {
	Entity
	Count int `json:"count" jsonschema:"How many chunks mention it."`
}

// EntityList is tree.top_entities's result: the most mentioned entities.
type EntityList struct {
	Entities []EntityCount `json:"entities"`
}

// SourceSummary describes one source of items.
type SourceSummary struct {
	SourceID     string `json:"source_id" jsonschema:"The source's id: a file's path, thread:<id>, the client or agent that stored learnings."`
	DisplayName  string `json:"display_name" jsonschema:"A name to show."`
	SourceKind   string `json:"source_kind" jsonschema:"folder, file, conversation, client, agent, ..."`
	ChunkCount   int    `json:"chunk_count" jsonschema:"How many chunks it holds."`
	MostRecentMS int64  `json:"most_recent_ms" jsonschema:"When it was last active, in Unix milliseconds."`
}

// SourceRow is a source as tree.list_sources shows it.
type SourceRow struct {
	SourceSummary
	MentionsUser bool `json:"mentions_user,omitempty" jsonschema:"True when it mentions user_email_hint."`
}

// SourceList is tree.list_sources's result: sources, most recently
// active first.
type SourceList struct {
	Sources []SourceRow `json:"sources"`
}

// chunkDescription describes a chunk wherever one is published.
const chunkDescription = "A memory-tree chunk."

func fullChunk() *Schema {
	return outputFor[FullChunk](rules{"chunk": described(chunkDescription)})
}

func chunkList() *Schema {
	return outputFor[ChunkList](rules{"chunks": items(described(chunkDescription))})
}

func scoredChunks() *Schema {
	return outputFor[ScoredChunks](rules{"chunks": items(described(chunkDescription))})
}
