// Package importers reads the memories other tools keep into what
// openhuman-core import stores: export records (docs/export.md) for notes
// and facts, conversation turns for chat histories. Each reader follows
// its tool's documented format: the reference MCP server-memory's JSON
// Lines knowledge graph, a basic-memory folder of Markdown notes, a mem0
// export, and the conversations.json of Claude's and ChatGPT's data
// exports. Nothing here stores anything; the caller batches what a reader
// emits onto the bus.
package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Formats import reads; FormatOpenHuman is openhuman-core's own export.
const (
	FormatOpenHuman    = "openhuman"
	FormatServerMemory = "server-memory"
	FormatBasicMemory  = "basic-memory"
	FormatMem0         = "mem0"
	FormatClaude       = "claude"
	FormatChatGPT      = "chatgpt"
)

// Formats lists the formats of --from, in the order help names them.
var Formats = []string{FormatOpenHuman, FormatServerMemory, FormatBasicMemory, FormatMem0, FormatClaude, FormatChatGPT}

// Turn is one message of a conversation, as memory's ingest_conversation
// takes it.
type Turn struct {
	ThreadID  string `json:"thread_id"`
	Speaker   string `json:"speaker,omitempty"`
	Text      string `json:"text"`
	Timestamp string `json:"timestamp,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

// Sink takes what a reader finds, each with where it was found (a line, a
// note, a conversation) for messages. An error a Sink returns stops the
// reader and is returned.
type Sink struct {
	Record func(where string, rec contract.ExportRecord) error
	Turns  func(where string, turns []Turn) error
	// Fault reports a part of the input that cannot be imported; the
	// reader goes on with the rest.
	Fault func(where string, err error) error
}

// Options apply to every record or turn a reader emits.
type Options struct {
	// Workspace of everything imported ("" for the default one).
	Workspace string
	// Now stamps what the source gives no time (default time.Now).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// Read reads path in format into sink.
func Read(format, path string, opts Options, sink Sink) error {
	switch format {
	case FormatServerMemory:
		return readServerMemory(path, opts, sink)
	case FormatBasicMemory:
		return readBasicMemory(path, opts, sink)
	case FormatMem0:
		return readMem0(path, opts, sink)
	case FormatClaude:
		return readClaude(path, opts, sink)
	case FormatChatGPT:
		return readChatGPT(path, opts, sink)
	}
	return fmt.Errorf("--from %q: use one of %s", format, strings.Join(Formats, ", "))
}

// Detect names the format of path: a folder is basic-memory's; a file is
// told by its first JSON value.
func Detect(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return FormatBasicMemory, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimSpace(head[:n])
	if strings.EqualFold(filepath.Ext(path), ".md") {
		return FormatBasicMemory, nil
	}
	if len(head) == 0 {
		return "", fmt.Errorf("%s is empty", path)
	}
	if head[0] == '{' {
		// A JSON Lines file's first line, or one object, read whole
		// whatever its length: an export's first item may hold a long
		// text.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", err
		}
		first := firstKeys(f)
		switch {
		case first["v"] && first["kind"]:
			return FormatOpenHuman, nil
		case first["type"] && (first["entityType"] || first["relationType"]):
			return FormatServerMemory, nil
		case first["results"] || first["memories"]:
			return FormatMem0, nil
		}
		if bytes.Contains(head, []byte(`"memories"`)) || bytes.Contains(head, []byte(`"results"`)) {
			return FormatMem0, nil
		}
	}
	if head[0] == '[' {
		switch {
		case bytes.Contains(head, []byte(`"chat_messages"`)):
			return FormatClaude, nil
		case bytes.Contains(head, []byte(`"mapping"`)):
			return FormatChatGPT, nil
		case bytes.Contains(head, []byte(`"memory"`)):
			return FormatMem0, nil
		}
	}
	return "", fmt.Errorf("cannot tell what %s holds: name its format with --from (%s)", path, strings.Join(Formats, ", "))
}

// firstKeys are the names of the members of the JSON object r starts
// with, nil when it starts with none; their values are read past, not
// kept.
func firstKeys(r io.Reader) map[string]bool {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	keys := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
		keys[t.(string)] = true
	}
	return keys
}

// timeLayout writes a record's times.
const timeLayout = time.RFC3339Nano

// learning is a record of an imported fact.
func learning(text, provenance string, tags []string, observed time.Time, opts Options) contract.ExportRecord {
	at := observed.UTC().Format(time.RFC3339Nano)
	return contract.ExportRecord{V: contract.ExportVersion, Kind: "learning", LearningKind: contract.DefaultLearningKind,
		Text: text, Tags: tags, Provenance: provenance, Source: "import",
		Meta: contract.Meta{Workspace: opts.Workspace}, ObservedAt: at, CreatedAt: at}
}

// lines calls fn with each non-blank line of path and its number.
func lines(path string, fn func(n int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for n := 1; sc.Scan(); n++ {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			if err := fn(n, line); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// parseTime reads the times these tools write: RFC 3339 with or without a
// zone or fraction, or seconds since 1970 (ChatGPT).
func parseTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t.UTC(), !t.IsZero()
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", time.DateOnly} {
			if p, err := time.Parse(layout, t); err == nil {
				return p.UTC(), true
			}
		}
	case float64:
		if t > 0 {
			sec := int64(t)
			return time.Unix(sec, int64((t-float64(sec))*1e9)).UTC(), true
		}
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return parseTime(f)
		}
	}
	return time.Time{}, false
}
