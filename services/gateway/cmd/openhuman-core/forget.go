package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// runForget forgets items by id, or everything an ingest stored from a
// file or folder, or a workspace's items: the way back from an ingest.
func (m *Main) runForget(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	source := fs.String("source", "", "every item ingested from this file, or from any file under this folder")
	workspace := fs.String("workspace", "", "every item of this workspace (with --source: that source's items in it)")
	dryRun := fs.Bool("dry-run", false, "count what would be forgotten, and forget nothing")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	ids := fs.Args()
	switch {
	case len(ids) > 0 && (*source != "" || *workspace != ""):
		return m.usageError(errors.New("forget takes ids, or --source and/or --workspace, not both"))
	case len(ids) == 0 && *source == "" && *workspace == "":
		return m.usageError(errors.New("forget needs item ids, or --source PATH (a file or folder you ingested), or --workspace W"))
	}
	params := map[string]any{"dry_run": *dryRun}
	if *source != "" {
		// ingest names a file by its absolute path: so must this.
		abs, err := filepath.Abs(*source)
		if err != nil {
			return m.usageError(fmt.Errorf("--source %q: %v", *source, err))
		}
		params["source"] = abs
	}
	if *workspace != "" {
		params["workspace"] = *workspace
	}
	gw, sys, _, err := m.start(g, true)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	cc := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}
	var total forgetTotal
	for start := 0; start < max(len(ids), 1); start += contract.MaxForgetIDs {
		if len(ids) > 0 {
			params["ids"] = ids[start:min(start+contract.MaxForgetIDs, len(ids))]
		}
		args, _ := json.Marshal(params)
		raw, err := gw.CallTool(ctx, contract.MemoryForget.Name, args, cc)
		if err != nil {
			fmt.Fprintf(m.Stderr, "openhuman-core: forget: %s (%d forgotten before it stopped)\n", contract.ErrorMessage(err), total.forgotten)
			return exitFailure
		}
		total.add(raw)
	}
	fmt.Fprintln(m.Stdout, total.say(*dryRun))
	return exitOK
}

// forgetTotal sums memory.forget's answers.
type forgetTotal struct{ forgotten, matched, notFound int }

func (t *forgetTotal) add(raw json.RawMessage) {
	var r struct {
		Forgotten int      `json:"forgotten"`
		Matched   *int     `json:"matched"`
		NotFound  []string `json:"not_found"`
	}
	_ = json.Unmarshal(raw, &r)
	t.forgotten += r.Forgotten
	if r.Matched != nil {
		t.matched += *r.Matched
	}
	t.notFound += len(r.NotFound)
}

func (t forgetTotal) say(dryRun bool) string {
	missing := ""
	if t.notFound > 0 {
		missing = fmt.Sprintf(" (%s not found)", plural(t.notFound, "id"))
	}
	if dryRun {
		return fmt.Sprintf("would forget %s%s; nothing was forgotten", plural(t.matched, "item"), missing)
	}
	return fmt.Sprintf("forgot %s%s", plural(t.forgotten, "item"), missing)
}
