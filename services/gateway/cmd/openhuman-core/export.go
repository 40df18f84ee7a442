package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// runExport writes every item the caller may see as JSON Lines
// (docs/export.md), page by page: it never holds more than one page.
func (m *Main) runExport(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	workspace := fs.String("workspace", "", "only the items of this workspace")
	since := fs.String("since", "", "only the items observed at or after this RFC 3339 time (or a date, 2026-01-31)")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	if fs.NArg() > 1 {
		return m.usageError(fmt.Errorf("export writes to one FILE (or - for stdout), got %q", fs.Args()))
	}
	params := map[string]any{}
	if *workspace != "" {
		params["workspace"] = *workspace
	}
	if *since != "" {
		t, err := parseSince(*since)
		if err != nil {
			return m.usageError(err)
		}
		params["since"] = t.Format(time.RFC3339Nano)
	}
	out, closeOut, err := m.openOutput(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: export:", err)
		return exitFailure
	}
	gw, sys, _, err := m.start(g, true)
	if err != nil {
		closeOut(false)
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	cc := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}
	w := bufio.NewWriterSize(out, 256<<10)
	term := fs.Arg(0) != "" && fs.Arg(0) != "-" && isTerminal(m.Stderr)
	n, err := exportPages(ctx, gw, params, cc, w, func(n int) {
		if term {
			fmt.Fprintf(m.Stderr, "\r\033[Kexporting: %d items", n)
		}
	})
	if err != nil {
		closeOut(false)
		fmt.Fprintln(m.Stderr, "openhuman-core: export:", err)
		return exitFailure
	}
	if term {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if err := w.Flush(); err != nil {
		closeOut(false)
		fmt.Fprintln(m.Stderr, "openhuman-core: export:", err)
		return exitFailure
	}
	if err := closeOut(true); err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: export:", err)
		return exitFailure
	}
	if fs.Arg(0) != "" && fs.Arg(0) != "-" {
		fmt.Fprintf(m.Stdout, "exported %s to %s (format v%d)\n", plural(n, "item"), fs.Arg(0), contract.ExportVersion)
	}
	return exitOK
}

// exportPages writes every page of the export params ask for to w, and
// calls progress with the count of items written after each. Its error is
// said as is after "export:".
func exportPages(ctx context.Context, gw *gateway.Gateway, params map[string]any, cc contract.CallContext, w *bufio.Writer, progress func(n int)) (int, error) {
	n := 0
	for {
		raw, err := transfer.Export(ctx, gw, params, cc)
		if err != nil {
			return n, errors.New(contract.ErrorMessage(err))
		}
		var page struct {
			Items      []json.RawMessage `json:"items"`
			NextCursor string            `json:"next_cursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return n, errors.New("the memory service sent a malformed page")
		}
		for _, line := range page.Items {
			w.Write(line)
			w.WriteByte('\n')
		}
		n += len(page.Items)
		progress(n)
		if page.NextCursor == "" {
			return n, nil
		}
		params["cursor"] = page.NextCursor
	}
}

// openOutput opens FILE for writing, or stdout for "" and "-". A file is
// written beside its name and renamed into place by close(true), so an
// export cut short never leaves a file that looks whole.
func (m *Main) openOutput(name string) (io.Writer, func(ok bool) error, error) {
	if name == "" || name == "-" {
		return m.Stdout, func(bool) error { return nil }, nil
	}
	if err := notADirectory(name, "memory.jsonl"); err != nil {
		return nil, nil, err
	}
	tmp := name + ".partial"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, func(ok bool) error {
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if ok && err == nil {
			err = os.Rename(tmp, name)
		}
		if !ok || err != nil {
			os.Remove(tmp)
		}
		return err
	}, nil
}

// notADirectory refuses a FILE to write that names a folder, before
// anything is written beside it; example is a file name to suggest.
func notADirectory(name, example string) error {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory: name a file in it to write, such as %s", name, filepath.Join(name, example))
	}
	return nil
}

// parseSince reads --since: an RFC 3339 time or a date (midnight UTC).
func parseSince(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("--since " + s + ": give an RFC 3339 time (2026-01-31T09:00:00Z) or a date (2026-01-31)")
}
