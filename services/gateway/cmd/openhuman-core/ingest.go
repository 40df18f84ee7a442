package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/ingest"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// defaultMaxFileSize is the largest file ingest reads unless told otherwise.
const defaultMaxFileSize = 512 << 10

// runIngest stores files and folders (or a conversation) in memory.
func (m *Main) runIngest(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	workspace := fs.String("workspace", "", "workspace of every file (default: the folder's name), and of every turn that names none")
	maxSize := fs.Int64("max-file-size", defaultMaxFileSize, "skip files larger than this many bytes")
	conversation := fs.Bool("conversation", false, "the paths are JSON files of conversation turns [{thread_id, speaker, text, timestamp}]")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	if fs.NArg() == 0 {
		return m.usageError(errors.New("ingest needs at least one file or folder"))
	}
	if *maxSize < 1 {
		// Below one byte every file is "too large", or, as the ingest
		// reads it, none is: neither is what was meant.
		return m.usageError(fmt.Errorf("--max-file-size %d: give a number of bytes, 1 or more (default %d)", *maxSize, defaultMaxFileSize))
	}
	gw, sys, _, err := m.start(g, true)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	cc := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}

	if *conversation {
		return m.ingestConversations(ctx, fs.Args(), *workspace, func(turns []json.RawMessage) (json.RawMessage, error) {
			return transfer.IngestConversation(ctx, gw, turns, cc)
		})
	}

	return m.ingestFiles(ctx, gw, cc, fs.Args(), ingest.Options{Workspace: *workspace, MaxFileBytes: *maxSize, MaxRequestBytes: int(sys.NC.MaxPayload())}, g.verbose)
}

// ingestFiles walks paths and sends their files to memory through gw,
// saying on stderr how far it got and what failed, then sums up on stdout.
func (m *Main) ingestFiles(ctx context.Context, gw *gateway.Gateway, cc contract.CallContext, paths []string, opts ingest.Options, verbose bool) int {
	send := func(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error) {
		raw, err := transfer.Ingest(ctx, gw, files, cc)
		if err != nil {
			return nil, err
		}
		var res struct {
			Files []contract.IngestedFile `json:"files"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, contract.Errorf(contract.CodeInternal, "the memory service sent a malformed ingest reply")
		}
		return res.Files, nil
	}
	term := isTerminal(m.Stderr)
	var progress func(ingest.Stats)
	if term {
		progress = func(st ingest.Stats) {
			fmt.Fprintf(m.Stderr, "\r\033[Kingesting: %d files read, %d sent, %d skipped, %d failed", st.Seen, st.Sent, st.Skipped(), len(st.Failures))
		}
	}
	opts.Failed = func(f ingest.Failure) {
		if term {
			fmt.Fprint(m.Stderr, "\r\033[K")
		}
		fmt.Fprintf(m.Stderr, "openhuman-core: ingest: %s: %s\n", f.Path, f.Reason)
		if f.Partly {
			fmt.Fprintf(m.Stderr, "openhuman-core: ingest: %s: part of its new content is stored beside its old; ingesting it again in full replaces the old\n", f.Path)
		}
	}
	st, err := ingest.Walk(ctx, paths, opts, send, progress)
	if progress != nil {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: ingest:", contract.ErrorMessage(asContractErr(err)))
		return exitFailure
	}
	summary := fmt.Sprintf("ingested %d files: %d stored (%d chunks), %d unchanged, %d empty",
		st.Stored+st.Unchanged+st.Empty, st.Stored, st.Chunks, st.Unchanged, st.Empty)
	if st.InParts > 0 {
		summary += fmt.Sprintf(", %d sent in parts", st.InParts)
	}
	fmt.Fprintf(m.Stdout, "%s; skipped %d ignored, %d binary, %d over %d bytes, %d unreadable, %d secret; %d failed\n",
		summary, st.Ignored, st.Binary, st.TooLarge, opts.MaxFileBytes, st.Unreadable, st.Secret, len(st.Failures))
	m.printIngestSkips(st, opts.MaxFileBytes, verbose)
	if len(st.Failures) > 0 {
		return exitSomeFailed
	}
	return exitOK
}

// printIngestSkips names the files stored with secrets removed and those
// skipped, the first few of each or, verbose, all.
func (m *Main) printIngestSkips(st ingest.Stats, maxSize int64, verbose bool) {
	// Every file named, or the first few and --verbose for all of them.
	shown := namesShown
	if verbose {
		shown = -1
	}
	if len(st.RedactedFiles) > 0 {
		files := make([]string, len(st.RedactedFiles))
		for i, f := range st.RedactedFiles {
			files[i] = fmt.Sprintf("%s (%s)", f.Path, strings.Join(f.Kinds, ", "))
		}
		fmt.Fprintf(m.Stdout, "secrets removed before storing (%s) from %s: %s\n",
			strings.Join(st.Redacted, ", "), plural(len(files), "file"), listSome(files, shown))
	}
	for _, skip := range []struct {
		why   string
		names []string
	}{
		{fmt.Sprintf("over %d bytes (--max-file-size raises the limit)", maxSize), st.TooLargeNames},
		{"as binary", st.BinaryNames},
		{"as unreadable", st.UnreadableNames},
		{"as secret files (name one on the command line to ingest it, scrubbed)", st.SecretNames},
	} {
		if len(skip.names) > 0 {
			fmt.Fprintf(m.Stdout, "skipped %s: %s\n", skip.why, listSome(skip.names, shown))
		}
	}
}

// namesShown is how many files a line of the summary names without
// --verbose.
const namesShown = 10

// exitSomeFailed says some files could not be stored (each was named on
// stderr); every other file was.
const exitSomeFailed = 3

// listSome joins the first n names (all of them when n < 0) and says how
// many more there are.
func listSome(names []string, n int) string {
	if n < 0 || len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more (--verbose names them all)", strings.Join(names[:n], ", "), len(names)-n)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ingestConversations reads turn files and sends them in batches, each
// turn without a workspace of its own in workspace ("" for the default).
func (m *Main) ingestConversations(ctx context.Context, paths []string, workspace string, send func([]json.RawMessage) (json.RawMessage, error)) int {
	storedAll, replayedAll := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(m.Stderr, "openhuman-core: ingest:", err)
			return exitFailure
		}
		var turns []json.RawMessage
		thread := ""
		if err := json.Unmarshal(data, &turns); err != nil {
			var wrapped struct {
				ThreadID string            `json:"thread_id"`
				Turns    []json.RawMessage `json:"turns"`
			}
			if err2 := json.Unmarshal(data, &wrapped); err2 != nil || len(wrapped.Turns) == 0 {
				fmt.Fprintf(m.Stderr, "openhuman-core: ingest: %s is not a JSON list of turns [{thread_id, speaker, text, timestamp}]: %v\n", p, err)
				return exitUsage
			}
			turns, thread = wrapped.Turns, wrapped.ThreadID
		}
		turns = withDefaults(turns, map[string]string{"thread_id": thread, "workspace": workspace})
		for start := 0; start < len(turns); start += 500 {
			raw, err := send(turns[start:min(start+500, len(turns))])
			if err != nil {
				fmt.Fprintf(m.Stderr, "openhuman-core: ingest: %s: %s\n", p, contract.ErrorMessage(err))
				if contract.ErrorCode(err) == contract.CodeInvalidRequest {
					return exitUsage
				}
				return exitFailure
			}
			var res struct{ Stored, Replayed int }
			_ = json.Unmarshal(raw, &res)
			storedAll += res.Stored
			replayedAll += res.Replayed
		}
	}
	fmt.Fprintf(m.Stdout, "ingested %d conversation turns: %d stored, %d already known\n", storedAll+replayedAll, storedAll, replayedAll)
	return exitOK
}

// withDefaults sets each of fields that is not empty on the turns that
// lack it: the thread of a wrapped file, the workspace of --workspace.
func withDefaults(turns []json.RawMessage, fields map[string]string) []json.RawMessage {
	out := make([]json.RawMessage, len(turns))
	for i, t := range turns {
		var obj map[string]any
		if json.Unmarshal(t, &obj) == nil && obj != nil {
			set := false
			for k, v := range fields {
				if v != "" && obj[k] == nil {
					obj[k], set = v, true
				}
			}
			if set {
				t, _ = json.Marshal(obj)
			}
		}
		out[i] = t
	}
	return out
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func asContractErr(err error) error {
	var ce *contract.Error
	if errors.As(err, &ce) {
		return ce
	}
	return contract.Errorf(contract.CodeEngine, "%v", err)
}
