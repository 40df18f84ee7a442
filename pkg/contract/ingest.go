package contract

// Limits of ingestion requests: one request must fit a NATS message. A
// file larger than that goes in parts.
const (
	MaxIngestFiles     = 200
	MaxIngestFileChars = 1 << 20
	MaxTurns           = 1000
)

// IngestFile is one file sent to memory's ingest method.
type IngestFile struct {
	SourceID    string `json:"source_id"`   // stable name of the file, e.g. its absolute path
	SourceKind  string `json:"source_kind"` // file, or folder when it came from a walked folder
	DisplayName string `json:"display_name"`
	Content     string `json:"content"`
	Language    string `json:"language,omitempty"`
	Workspace   string `json:"workspace,omitempty"`
	Folder      string `json:"folder,omitempty"`
	FilePath    string `json:"file_path,omitempty"`
	Repo        string `json:"repo,omitempty"`
	Commit      string `json:"commit,omitempty"`
	ModifiedMS  int64  `json:"modified_ms,omitempty"`

	// A file sent in parts: each part is a run of whole lines. SHA256
	// names the file's version across its parts (and tells an unchanged
	// file from its first part); Offset and Line say where Content starts
	// in the file, and More that the file goes on. Each part but the last
	// starts where the reply to the one before said (NextOffset, NextLine)
	// and carries its Resume back.
	SHA256 string `json:"sha256,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	Line   int    `json:"line,omitempty"`
	More   bool   `json:"more,omitempty"`
	Resume string `json:"resume,omitempty"`
}

// IngestedFile is what memory's ingest method did with one file (or part).
type IngestedFile struct {
	SourceID string `json:"source_id"`
	// Status is stored, unchanged or empty; part for a part that is not the
	// file's last (its chunks are stored, the file's old chunks not yet
	// removed); failed for a file whose content cannot be stored, which
	// Error explains (the batch's other files are stored).
	Status   string   `json:"status"`
	Error    string   `json:"error,omitempty"`
	Chunks   int      `json:"chunks"`
	Redacted []string `json:"redacted,omitempty"`
	// After a part: where the next one starts, and what it carries back.
	NextOffset int64  `json:"next_offset,omitempty"`
	NextLine   int    `json:"next_line,omitempty"`
	Resume     string `json:"resume,omitempty"`
}

// Ingest statuses.
const (
	IngestStored    = "stored"
	IngestUnchanged = "unchanged"
	IngestEmpty     = "empty"
	IngestPart      = "part"
	IngestFailed    = "failed"
)

// IngestInput checks memory's ingest method: a batch of files to store as
// document chunks (openhuman-core ingest sends them).
func IngestInput() *Schema {
	str := func(d string) *Schema { return String(d).MaxLen(4096) }
	file := Object("", []string{"source_id", "source_kind", "display_name", "content"}, map[string]*Schema{
		"source_id":    str("Stable name of the file, such as its absolute path."),
		"source_kind":  Enum("", "file", "folder"),
		"display_name": str("How the file is shown."),
		"content":      String("The file's text.").AllowBlank().MaxLen(MaxIngestFileChars),
		"language":     str(""),
		"workspace":    Workspace(""),
		"folder":       str(""),
		"file_path":    str(""),
		"repo":         str(""),
		"commit":       str(""),
		"modified_ms":  Integer("").Range(0, 1e15),
		"sha256":       String("SHA-256 of the whole file, in hex, when it is sent in parts.").MaxLen(64),
		"offset":       Integer("Byte offset of content in the file.").Range(0, 1e15),
		"line":         Integer("Line of the file content starts at.").Range(0, 1e12),
		"more":         Boolean("The file goes on after content."),
		"resume":       String("The previous part's reply's resume.").MaxLen(1 << 16),
	})
	return Object("", []string{"files"}, map[string]*Schema{"files": Array("", file).Count(1, MaxIngestFiles)})
}

// ConversationInput checks memory's ingest_conversation method.
func ConversationInput() *Schema {
	turn := Object("", []string{"thread_id", "text"}, map[string]*Schema{
		"thread_id": String("").MaxLen(256),
		"speaker":   String("").MaxLen(256),
		"text":      String("").MaxLen(MaxLearnText),
		"timestamp": Timestamp(""),
		"workspace": Workspace(""),
	})
	return Object("", []string{"turns"}, map[string]*Schema{"turns": Array("", turn).Count(1, MaxTurns)})
}
