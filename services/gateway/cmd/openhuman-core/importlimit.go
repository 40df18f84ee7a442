package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/importers"
)

// An import is bounded by memory.max_import_mb, counted in what it sends
// to memory (each record's JSON, each turn's), not in what it reads:
// another tool's file may unfold into far more than its size (the
// reference server-memory's entity repeats its name in a record per
// observation). What can be known before storing is checked first, so a
// refused import stores nothing: an export file's size (its lines are
// what is stored), or another tool's file read once without storing. A
// stream (stdin) is counted as it goes and stops before the record that
// would pass the limit.

// errImportLimit marks the refusal of an import past its limit.
var errImportLimit = errors.New("past memory.max_import_mb")

// importBudget counts the bytes an import has sent to memory.
type importBudget struct {
	limit int64 // bytes; 0 counts without a limit
	mb    int   // the setting, for messages
	used  int64
}

func newImportBudget(m config.Memory) *importBudget {
	return &importBudget{limit: m.MaxImportBytes(), mb: m.MaxImportMB}
}

// take counts n bytes about to be sent, refusing them when they would
// take the import past its limit.
func (b *importBudget) take(n int64) error {
	if b.limit > 0 && b.used+n > b.limit {
		return fmt.Errorf("%w: stopped before the record that would take it past %s", errImportLimit, b.raise())
	}
	b.used += n
	return nil
}

// refuse says that what was measured before storing is past the limit.
func (b *importBudget) refuse(path string, n int64, measured string) error {
	if b.limit <= 0 || n <= b.limit {
		return nil
	}
	return fmt.Errorf("%w: %s %s %d bytes, more than %s", errImportLimit, path, measured, n, b.raise())
}

func (b *importBudget) raise() string {
	return fmt.Sprintf("the %d MiB an import may store: raise memory.max_import_mb in config.toml, or set OPENHUMAN_MEMORY_MAX_IMPORT_MB, to import it", b.mb)
}

// preflight refuses, before anything is stored, an import that would
// store more than its limit: an export file larger than it, or another
// tool's file whose records and turns come to more. A reader that fails
// here is left to fail the same way when the import runs.
func (b *importBudget) preflight(format, path string, opts importers.Options) error {
	if b.limit <= 0 || path == "-" {
		return nil
	}
	if format == importers.FormatOpenHuman {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		return b.refuse(path, st.Size(), "is")
	}
	var n int64
	schema := contract.ExportRecordSchema()
	_ = importers.Read(format, path, opts, importers.Sink{
		Record: func(_ string, rec contract.ExportRecord) error {
			if raw, err := exportLine(rec, schema); err == nil {
				n += int64(len(raw)) + 1
			}
			return nil
		},
		Turns: func(_ string, turns []importers.Turn) error {
			n += turnBytes(turns)
			return nil
		},
		Fault: func(string, error) error { return nil },
	})
	return b.refuse(path, n, "holds records and turns of")
}

// exportLine is rec as an export line, or why it is not one.
func exportLine(rec contract.ExportRecord, schema *contract.Schema) (json.RawMessage, error) {
	raw, err := json.Marshal(rec)
	if err == nil {
		err = checkRecord(raw, schema)
	}
	return raw, err
}

// turnBytes is what turns weigh against the limit: their JSON.
func turnBytes(turns []importers.Turn) int64 {
	var n int64
	for _, t := range turns {
		b, _ := json.Marshal(t)
		n += int64(len(b))
	}
	return n
}
