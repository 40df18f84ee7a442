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

// chunkDescription describes a chunk wherever one is published.
const chunkDescription = "A memory-tree chunk."

func chunkRow() *Schema {
	s := outputFor[ChunkRow](nil)
	s.Description = chunkDescription
	return s
}

func chunkList() *Schema {
	return outputFor[ChunkList](rules{"chunks": items(described(chunkDescription))})
}

func scoredChunks() *Schema {
	return outputFor[ScoredChunks](rules{"chunks": items(described(chunkDescription))})
}
