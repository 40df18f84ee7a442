package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// record is one item on its way into memory: where it came from (a line
// of the file, a note), for messages, and the export record, or why it is
// not one.
type record struct {
	where string
	raw   json.RawMessage
	err   error
}

// maxLineBytes bounds one line of an export: an item's text is at most
// 128 KiB, so a longer line is no item.
const maxLineBytes = 1 << 20

// readLines emits each line of an export, numbered from 1. A line that is
// not one JSON object of the format (a line cut short by a truncated
// file, an edit gone wrong) is emitted with its fault; blank lines are
// skipped.
func readLines(r io.Reader, emit func(record) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	schema := contract.ExportRecordSchema()
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			rec := record{where: fmt.Sprintf("line %d", n), raw: line}
			switch {
			case tooLong:
				rec.err = fmt.Errorf("longer than %d bytes: no item is that long", maxLineBytes)
			default:
				rec.err = checkRecord(line, schema)
			}
			if rec.err == nil {
				rec.raw = bytes.Clone(line)
			} else {
				rec.raw = nil
			}
			if e := emit(rec); e != nil {
				return e
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine reads one line without its end; tooLong reports a line past
// maxLineBytes, which is read to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(buf)+len(part) <= maxLineBytes {
			buf = append(buf, part...)
		} else {
			tooLong = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			buf = nil
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

// checkRecord says what is wrong with line as an export record, or nil.
func checkRecord(line []byte, schema *contract.Schema) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON (%v): a truncated or damaged line", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value: each line holds one item")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("not a JSON object: each line is one item object (docs/export.md)")
	}
	if n, ok := obj["v"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v > contract.ExportVersion {
			return fmt.Errorf("format version %d is newer than this openhuman-core reads (%d): import it with a newer one", v, contract.ExportVersion)
		}
	}
	if err := schema.Validate(obj); err != nil {
		return errors.New(contract.ErrorMessage(err))
	}
	return nil
}

// importTally counts what became of the records of an import.
type importTally struct {
	read, stored, present, refused int
}

// importer sends records to memory in batches that fit a bus message and
// reports each refusal by where it came from.
type importer struct {
	m        *Main
	gw       *gateway.Gateway
	cc       contract.CallContext
	maxBytes int
	progress bool
	budget   *importBudget

	batch []record
	size  int
	t     importTally
	// Conversations (--from claude, chatgpt) go as turns.
	threads, turns, turnsStored int
}

// add takes one record, sending the batch when it is full.
func (im *importer) add(ctx context.Context, rec record) error {
	im.t.read++
	if rec.err != nil {
		// Named with the batch it stands in, so that refusals come in the
		// file's order, whoever refused them.
		im.batch = append(im.batch, rec)
		return nil
	}
	if err := im.budget.take(int64(len(rec.raw)) + 1); err != nil {
		return err
	}
	if len(im.batch) > 0 && (len(im.batch) == contract.MaxImportItems || im.size+len(rec.raw)+1 > im.maxBytes) {
		if err := im.flush(ctx); err != nil {
			return err
		}
	}
	im.batch = append(im.batch, rec)
	im.size += len(rec.raw) + 1
	return nil
}

// flush sends the batch. Each record is stored whole or not at all: the
// memory service stores a batch in one write.
func (im *importer) flush(ctx context.Context) error {
	if len(im.batch) == 0 {
		return nil
	}
	var raws []json.RawMessage
	for _, r := range im.batch {
		if r.err == nil {
			raws = append(raws, r.raw)
		}
	}
	res := &contract.ImportResult{}
	if len(raws) > 0 {
		var err error
		if res, err = transfer.Import(ctx, im.gw, raws, im.cc); err != nil {
			return err
		}
	}
	sent := 0
	for _, r := range im.batch {
		if r.err != nil {
			im.refuse(r.where, r.err.Error())
			continue
		}
		switch o := res.Results[sent]; o.Status {
		case contract.ImportStored:
			im.t.stored++
		case contract.ImportPresent:
			im.t.present++
		default:
			im.refuse(r.where, o.Error)
		}
		sent++
	}
	im.batch, im.size = im.batch[:0], 0
	if im.progress {
		fmt.Fprintf(im.m.Stderr, "\r\033[Kimporting: %d read, %d stored, %d already present, %d refused", im.t.read, im.t.stored, im.t.present, im.t.refused)
	}
	return nil
}

func (im *importer) refuse(where, why string) {
	im.t.refused++
	if im.progress {
		fmt.Fprint(im.m.Stderr, "\r\033[K")
	}
	fmt.Fprintf(im.m.Stderr, "openhuman-core: import: %s: refused: %s\n", where, why)
}

// stopped reports the error that stopped an import and returns its exit
// code. What was stored stays: records are stored whole, by id, so
// importing again stores the rest and nothing twice.
func (im *importer) stopped(err error) int {
	if im.progress {
		fmt.Fprint(im.m.Stderr, "\r\033[K")
	}
	if errors.Is(err, errImportLimit) {
		fmt.Fprintf(im.m.Stderr, "openhuman-core: import: %v (%d stored before it stopped)\n", err, im.t.stored)
		return exitFailure
	}
	fmt.Fprintf(im.m.Stderr, "openhuman-core: import: %s (%d stored before it stopped; importing again stores the rest)\n",
		contract.ErrorMessage(asContractErr(err)), im.t.stored)
	return exitFailure
}

// summary prints the counts and returns the exit code: 3 when some
// records were refused (each was named on stderr), the rest stored.
func (im *importer) summary(what string) int {
	if im.progress {
		fmt.Fprint(im.m.Stderr, "\r\033[K")
	}
	if im.t.read > 0 || im.turns == 0 {
		fmt.Fprintf(im.m.Stdout, "imported %s: %d stored, %d already present, %d refused\n",
			plural(im.t.read, what), im.t.stored, im.t.present, im.t.refused)
	}
	if im.t.refused > 0 {
		return exitSomeFailed
	}
	return exitOK
}
