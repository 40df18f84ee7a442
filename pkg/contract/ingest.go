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
	SourceID    string `json:"source_id" jsonschema:"Stable name of the file, such as its absolute path."`
	SourceKind  string `json:"source_kind"` // file, or folder when it came from a walked folder
	DisplayName string `json:"display_name" jsonschema:"How the file is shown."`
	Content     string `json:"content" jsonschema:"The file's text."`
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
	SHA256 string `json:"sha256,omitempty" jsonschema:"SHA-256 of the whole file, in hex, when it is sent in parts."`
	Offset int64  `json:"offset,omitempty" jsonschema:"Byte offset of content in the file."`
	Line   int    `json:"line,omitempty" jsonschema:"Line of the file content starts at."`
	More   bool   `json:"more,omitempty" jsonschema:"The file goes on after content."`
	Resume string `json:"resume,omitempty" jsonschema:"The previous part's reply's resume."`
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
	str := maxLen(4096)
	return inputFor[IngestParams](rules{
		"files":              count(1, MaxIngestFiles),
		"files.source_id":    str,
		"files.source_kind":  oneOf("file", "folder"),
		"files.display_name": str,
		"files.content":      allOf(blankOK, maxLen(MaxIngestFileChars)),
		"files.language":     str,
		"files.workspace":    workspaceName,
		"files.folder":       str,
		"files.file_path":    str,
		"files.repo":         str,
		"files.commit":       str,
		"files.modified_ms":  between(0, 1e15),
		"files.sha256":       maxLen(64),
		"files.offset":       between(0, 1e15),
		"files.line":         between(0, 1e12),
		"files.resume":       maxLen(1 << 16),
	})
}

// ConversationInput checks memory's ingest_conversation method.
func ConversationInput() *Schema {
	return inputFor[ConversationParams](rules{
		"turns":           count(1, MaxTurns),
		"turns.thread_id": maxLen(256),
		"turns.speaker":   maxLen(256),
		"turns.text":      maxLen(MaxLearnText),
		"turns.timestamp": dateTime,
		"turns.workspace": workspaceName,
	})
}
