package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/importers"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// runImport stores an export's lines (or another tool's memory, --from)
// through the memory service's write path: replicated like any write
// when memory is.
func (m *Main) runImport(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	from := fs.String("from", "", "format of FILE: "+strings.Join(importers.Formats, ", ")+" (default: detected)")
	workspace := fs.String("workspace", "", "with --from: the workspace everything imported goes to")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	if fs.NArg() != 1 {
		return m.usageError(errors.New("import takes one FILE (an export, - for stdin, or with --from another tool's file or folder)"))
	}
	path := fs.Arg(0)
	format := *from
	if format == "" {
		if path == "-" {
			format = importers.FormatOpenHuman
		} else if f, err := importers.Detect(path); err != nil {
			fmt.Fprintln(m.Stderr, "openhuman-core: import:", noFile(path, err))
			return exitUsage
		} else {
			format = f
		}
	}
	if !slices.Contains(importers.Formats, format) {
		return m.usageError(fmt.Errorf("--from %q: use one of %s", format, strings.Join(importers.Formats, ", ")))
	}
	if format == importers.FormatOpenHuman && *workspace != "" {
		return m.usageError(errors.New("--workspace is for --from: an export's items keep their workspaces (and ids)"))
	}
	return m.importFile(ctx, g, format, path, importers.Options{Workspace: *workspace})
}

// importFile imports path, in format, once it is known to fit the limit.
func (m *Main) importFile(ctx context.Context, g globalFlags, format, path string, opts importers.Options) int {
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	budget := newImportBudget(cfg.Memory)
	if err := budget.preflight(format, path, opts); err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: import:", err)
		return exitFailure
	}
	var in io.Reader = m.Stdin
	if format == importers.FormatOpenHuman && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(m.Stderr, "openhuman-core: import:", noFile(path, err))
			return exitFailure
		}
		defer f.Close()
		in = f
	}
	gw, sys, _, err := m.start(g, true)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	im := &importer{m: m, gw: gw, cc: contract.CallContext{Source: "cli", Transport: contract.TransportCLI},
		maxBytes: int(sys.NC.MaxPayload()) / 2, progress: isTerminal(m.Stderr), budget: budget}
	what := "line"
	if format == importers.FormatOpenHuman {
		err = readLines(in, func(r record) error { return im.add(ctx, r) })
	} else {
		what = "item"
		err = importers.Read(format, path, opts, m.importSink(ctx, im, format))
	}
	if err == nil {
		err = im.flush(ctx)
	}
	if err != nil {
		return im.stopped(err)
	}
	if im.turns > 0 {
		fmt.Fprintf(m.Stdout, "imported %s in %s: %d stored, %d already present\n",
			plural(im.turns, "conversation turn"), plural(im.threads, "thread"), im.turnsStored, im.turns-im.turnsStored)
	}
	return im.summary(what)
}

// importSink feeds what a reader of another tool's memory finds to im:
// records checked against the export format as a line would be, turns
// stored as conversations are (ingest --conversation's path), with
// provenance import:<format> as the records of the same readers carry.
func (m *Main) importSink(ctx context.Context, im *importer, format string) importers.Sink {
	schema := contract.ExportRecordSchema()
	turnsCC := im.cc
	turnsCC.Source = "import:" + format
	return importers.Sink{
		Record: func(where string, rec contract.ExportRecord) error {
			raw, err := exportLine(rec, schema)
			return im.add(ctx, record{where: where, raw: raw, err: err})
		},
		Fault: func(where string, err error) error {
			return im.add(ctx, record{where: where, err: err})
		},
		Turns: func(where string, turns []importers.Turn) error {
			im.threads++
			for start := 0; start < len(turns); start += contract.MaxTurns {
				batch := turns[start:min(start+contract.MaxTurns, len(turns))]
				if err := im.budget.take(turnBytes(batch)); err != nil {
					return err
				}
				raw, err := transfer.IngestConversation(ctx, im.gw, batch, turnsCC)
				if contract.ErrorCode(err) == contract.CodeInvalidRequest {
					im.t.read++
					im.refuse(where, contract.ErrorMessage(err))
					return nil
				}
				if err != nil {
					return err
				}
				var res struct{ Stored, Replayed int }
				_ = json.Unmarshal(raw, &res)
				im.turns += len(batch)
				im.turnsStored += res.Stored
			}
			return nil
		},
	}
}

// noFile says a missing FILE the way a person names it, and what import
// takes instead; any other error as it is.
func noFile(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file or folder: name a file written by openhuman-core export, - for stdin, or with --from another tool's file or folder", path)
	}
	return err
}
