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
	V            int        `json:"v"`
	ID           string     `json:"id,omitempty"`
	Kind         string     `json:"kind"`
	LearningKind string     `json:"learning_kind,omitempty"`
	Confidence   *float64   `json:"confidence,omitempty"`
	Text         string     `json:"text"`
	Tags         []string   `json:"tags,omitempty"`
	Provenance   string     `json:"provenance,omitempty"`
	Source       string     `json:"source,omitempty"`
	SourceID     string     `json:"source_id,omitempty"`
	SourceRef    string     `json:"source_ref,omitempty"`
	Meta         ExportMeta `json:"meta,omitzero"`
	ObservedAt   string     `json:"observed_at,omitempty"` // RFC 3339
	CreatedAt    string     `json:"created_at,omitempty"`  // RFC 3339
}

// ExportMeta is the metadata that places an item (part of its id).
type ExportMeta struct {
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

// ExportRecordSchema checks one line of an export, as import reads it.
func ExportRecordSchema() *Schema {
	str := func(d string) *Schema { return String(d).MaxLen(4096) }
	return Object("One memory item of an openhuman-core export (JSON Lines: one such object per line).",
		[]string{"v", "kind", "text"}, map[string]*Schema{
			"v":             Integer("Format version; a reader refuses versions newer than it knows.").Range(1, 1e6),
			"id":            String("The item's id: a fingerprint of its kind, learning kind, text, meta and source. Import keeps it, and refuses a line whose id does not match its content; leave it out to have one computed.").MaxLen(64),
			"kind":          Enum("What the item is.", ItemKinds...),
			"learning_kind": Enum("For learnings: what sort.", LearningKinds...),
			"confidence":    Number("For learnings: how sure the writer was, 0 to 1.").Range(0, 1),
			"text":          String("The item's text (secrets were removed before it was stored).").MaxLen(MaxExportText),
			"tags":          Array("Tags.", String("").MaxLen(200)).Count(0, 100),
			"provenance":    str("Who wrote it: mcp:cursor, rpc, cli, agent:..., import:server-memory, ..."),
			"source":        Enum("Where it came from.", ItemSources...),
			"source_id":     str("What it came from: a file's path, thread:<id> for a conversation."),
			"source_ref":    str("Where in its source: a heading, a line range, a turn's time."),
			"meta": Object("Metadata that places the item (part of its id).", nil, map[string]*Schema{
				"workspace": Workspace(""), "folder": str(""), "file_path": str(""), "language": str(""),
				"repo": str(""), "commit": str(""), "url": str(""), "thread_id": str(""), "agent_id": str(""),
			}),
			"observed_at": Timestamp("When what it says was observed (RFC 3339)."),
			"created_at":  Timestamp("When it was first stored (RFC 3339)."),
		})
}

// MemoryExport pages through every item a caller may see as export
// records, oldest first (JSON-RPC only; openhuman-core export writes the
// pages as JSON Lines).
var MemoryExport = Tool{
	Name: "memory.export", Title: "Export memory",
	Description: "Every item the caller may see, oldest first, as export records (docs/export.md): " +
		"id, kind, text, tags, provenance, source, times. Page with next_cursor.",
	Input: Object("", nil, map[string]*Schema{
		"workspace": Workspace("Only items of this workspace."),
		"since":     Timestamp("Only items observed at or after this RFC 3339 time."),
		"limit":     Integer("Items per page (1 to 1000); a page also ends before about 1 MB.").Range(1, MaxExportLimit).Def(DefaultExportLimit),
		"cursor":    cursorSchema(),
	}),
	Output:      pageOf("items", outObject("An export record (docs/export.schema.json).", []string{"v", "kind", "text"}, nil)),
	Annotations: readOnly("Export memory"),
	Service:     ServiceMemory, Method: "export", RPC: "openhuman.memory_export", Profiles: []string{ProfileRPC},
	Use: "memory.export to copy every item out",
}

// MethodImport is memory's method that stores export records.
const MethodImport = "import"

// ImportEndpoint stores export records (openhuman-core import sends them).
// It is retryable: a record's id is its fingerprint, and one stored before
// is left alone.
var ImportEndpoint = Endpoint{Service: ServiceMemory, Method: MethodImport, Retryable: true, Scope: ScopeAct,
	Input: Object("", []string{"items"}, map[string]*Schema{"items": Array("", ExportRecordSchema()).Count(1, MaxImportItems)})}

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
