package contract

// Limits of ingestion requests: one request must fit a NATS message.
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
}

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
		"workspace":    str(""),
		"folder":       str(""),
		"file_path":    str(""),
		"repo":         str(""),
		"commit":       str(""),
		"modified_ms":  Integer("").Range(0, 1e15),
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
		"workspace": String("").MaxLen(4096),
	})
	return Object("", []string{"turns"}, map[string]*Schema{"turns": Array("", turn).Count(1, MaxTurns)})
}
