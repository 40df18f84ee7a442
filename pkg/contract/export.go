package contract

// Portable memory: the JSON Lines format openhuman-core export writes and
// import reads, one item per line. docs/export.schema.json is
// ExportRecordSchema written out (a test keeps them equal). A line names
// its format version (v); a reader refuses a newer version than it knows
// rather than guessing at fields it has never seen. Vectors are not part
// of it (the importing memory embeds again), and neither are secrets:
// items are scrubbed before they are stored, so none can be exported.

// ExportVersion is the version of the export format this build writes
// and the newest it reads.
const ExportVersion = 1

// MaxExportText is the longest text of an exported item: a conversation
// turn holds its speaker's name besides a learning's longest text.
const MaxExportText = 1 << 17

// Paging and batching of export and import over the bus.
const (
	DefaultExportLimit = 500
	MaxExportLimit     = 1000
	MaxImportItems     = 500
)

// ExportRecord is one line of an export: an item with everything that
// places it, by the names memory.list's meta uses.
type ExportRecord struct {
	V            int      `json:"v" jsonschema:"Format version; a reader refuses versions newer than it knows."`
	ID           string   `json:"id,omitempty" jsonschema:"The item's id: a fingerprint of its kind, learning kind, text, meta and source. Import keeps it, and refuses a line whose id does not match its content; leave it out to have one computed."`
	Kind         string   `json:"kind" jsonschema:"What the item is."`
	LearningKind string   `json:"learning_kind,omitempty" jsonschema:"For learnings: what sort."`
	Confidence   *float64 `json:"confidence,omitempty" jsonschema:"For learnings: how sure the writer was, 0 to 1."`
	Text         string   `json:"text" jsonschema:"The item's text (secrets were removed before it was stored)."`
	Tags         []string `json:"tags,omitempty" jsonschema:"Tags."`
	Provenance   string   `json:"provenance,omitempty" jsonschema:"Who wrote it: mcp:cursor, rpc, cli, agent:..., import:server-memory, ..."`
	Source       string   `json:"source,omitempty" jsonschema:"Where it came from."`
	SourceID     string   `json:"source_id,omitempty" jsonschema:"What it came from: a file's path, thread:<id> for a conversation."`
	SourceRef    string   `json:"source_ref,omitempty" jsonschema:"Where in its source: a heading, a line range, a turn's time."`
	Meta         Meta     `json:"meta,omitzero" jsonschema:"Metadata that places the item (part of its id)."`
	ObservedAt   string   `json:"observed_at,omitempty" jsonschema:"When what it says was observed (RFC 3339)."`
	CreatedAt    string   `json:"created_at,omitempty" jsonschema:"When it was first stored (RFC 3339)."`
}

// ExportRecordSchema checks one line of an export, as import reads it.
func ExportRecordSchema() *Schema {
	str := maxLen(4096)
	rs := rules{
		"v":             between(1, 1e6),
		"id":            maxLen(64),
		"kind":          oneOf(ItemKinds...),
		"learning_kind": oneOf(LearningKinds...),
		"confidence":    between(0, 1),
		"text":          maxLen(MaxExportText),
		"tags":          allOf(count(0, 100), items(maxLen(200))),
		"provenance":    str,
		"source":        oneOf(ItemSources...),
		"source_id":     str,
		"source_ref":    str,
		"meta":          described("Metadata that places the item (part of its id)."),
		"observed_at":   dateTime,
		"created_at":    dateTime,
	}
	// The meta fields say what they are in a filter; here the record's
	// description says it for them all.
	for _, f := range []string{"folder", "file_path", "language", "repo", "commit", "url", "thread_id", "agent_id"} {
		rs["meta."+f] = allOf(described(""), str)
	}
	rs["meta.workspace"] = allOf(described(""), workspaceName)
	s := inputFor[ExportRecord](rs)
	s.Description = "One memory item of an openhuman-core export (JSON Lines: one such object per line)."
	return s
}

// MemoryExport pages through every item a caller may see as export
// records, oldest first (JSON-RPC only; openhuman-core export writes the
// pages as JSON Lines).
var MemoryExport = Tool{
	Name: "memory.export", Title: "Export memory",
	Description: "Every item the caller may see, oldest first, as export records (docs/export.md): " +
		"id, kind, text, tags, provenance, source, times. Page with next_cursor.",
	Input: inputFor[ExportParams](rules{
		"workspace": workspaceName,
		"since":     dateTime,
		"limit":     allOf(between(1, MaxExportLimit), byDefault(DefaultExportLimit)),
		"cursor":    cursorRule,
	}),
	Output:      outputFor[ExportResult](rules{"items": items(described("An export record (docs/export.schema.json)."))}),
	Annotations: readOnly("Export memory"),
	Service:     ServiceMemory, Method: "export", RPC: "openhuman.memory_export", Profiles: []string{ProfileRPC},
	Use: "memory.export to copy every item out",
}

// ExportResult is memory.export's result: one page of an export.
type ExportResult struct {
	Items      []ExportRecord `json:"items"`
	NextCursor string         `json:"next_cursor,omitempty" jsonschema:"Pass as cursor for the next page; absent on the last page."`
}

// MethodImport is memory's method that stores export records.
const MethodImport = "import"

// ImportEndpoint stores export records (openhuman-core import sends them).
// It is retryable: a record's id is its fingerprint, and one stored before
// is left alone.
var ImportEndpoint = Endpoint{Service: ServiceMemory, Method: MethodImport, Retryable: true, Scope: ScopeAct,
	Input: importInput()}

func importInput() *Schema {
	s := inputFor[ImportParams](rules{"items": count(1, MaxImportItems)})
	s.Properties["items"].Items = ExportRecordSchema()
	return s
}

// ImportResult is what memory's import did with each record, in order.
type ImportResult struct {
	Results []ImportOutcome `json:"results"`
	// Seq is the write stream's newest sequence of the batch, when replicated.
	Seq uint64 `json:"seq,omitempty"`
}

// ImportOutcome is what became of one record.
type ImportOutcome struct {
	ID     string `json:"id,omitempty"`
	Status string `json:"status"` // ImportStored, ImportPresent or ImportRefused
	Error  string `json:"error,omitempty"`
}

// Import statuses.
const (
	ImportStored  = "stored"
	ImportPresent = "present"
	ImportRefused = "refused"
)
