package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// core runs the real openhuman-core on home and returns its stdout,
// stderr and exit code.
func core(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), args...)
	cmd.Env = testEnv(home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// mustCore is core for a command that must succeed.
func mustCore(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, errs, code := core(t, home, args...)
	if code != 0 {
		t.Fatalf("openhuman-core %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// exported reads an export file into its records by id.
func exported(t *testing.T, path string) map[string]contract.ExportRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]contract.ExportRecord{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r contract.ExportRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: a line that is not a record: %v: %s", path, err, sc.Text())
		}
		out[r.ID] = r
	}
	return out
}

// fillHome learns, ingests a folder and a conversation into home, as a
// person's memory fills.
func fillHome(t *testing.T, home string) {
	t.Helper()
	for _, l := range []string{
		`{"text":"Maya prefers tea over coffee."}`,
		`{"text":"The deploy runs on Fridays after the standup.","kind":"procedure","workspace":"work"}`,
		`{"text":"Omar is allergic to peanuts.","confidence":0.95}`,
		`{"text":"Use the staging cluster for load tests, never production.","kind":"correction","workspace":"work"}`,
	} {
		mustCore(t, home, "call", "memory.learn", l)
	}
	docs := t.TempDir()
	writeFiles(t, docs, map[string]string{
		"runbook.md": "# Runbook\n\nRestart the queue workers with make restart-queue.\n\n## Backups\n\nBackups run nightly at 02:00 UTC.\n",
		"notes.md":   "# Garden\n\nThe tomatoes need watering every second day in July.\n",
	})
	mustCore(t, home, "ingest", "--workspace", "docs", docs)
	chat := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(chat, []byte(`[{"thread_id":"t-1","speaker":"Lena","text":"The offsite is in Lisbon in May.","timestamp":"2026-03-02T09:14:03Z"},
		{"thread_id":"t-1","speaker":"Omar","text":"Then we book flights in April.","timestamp":"2026-03-02T09:15:00Z"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCore(t, home, "ingest", "--conversation", chat)
}

// TestExportImportRoundTrip: a memory exported from one home and imported
// into a fresh one holds every item as it was (id, text, tags,
// provenance, source, times), answers memory.fetch with the same top hit,
// and importing it again stores nothing twice.
func TestExportImportRoundTrip(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	fillHome(t, from)
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	out := mustCore(t, from, "export", file)
	mustContain(t, out, "exported 9 items to "+file+" (format v1)")
	before := exported(t, file)
	if len(before) != 9 {
		t.Fatalf("the export holds %d items, want 9 (4 learnings, 3 chunks, 2 turns)", len(before))
	}

	out = mustCore(t, to, "import", file)
	mustContain(t, out, "imported 9 lines: 9 stored, 0 already present, 0 refused")
	out = mustCore(t, to, "import", file)
	mustContain(t, out, "imported 9 lines: 0 stored, 9 already present, 0 refused")

	again := filepath.Join(t.TempDir(), "again.jsonl")
	mustCore(t, to, "export", again)
	after := exported(t, again)
	if len(after) != len(before) {
		t.Fatalf("the fresh home holds %d items, want %d", len(after), len(before))
	}
	for id, b := range before {
		a, ok := after[id]
		if !ok {
			t.Errorf("item %s (%q) did not keep its id", id, b.Text)
			continue
		}
		bj, _ := json.Marshal(b)
		aj, _ := json.Marshal(a)
		if !bytes.Equal(aj, bj) {
			t.Errorf("item %s changed:\n was %s\n now %s", id, bj, aj)
		}
	}

	// The same questions find the same first hit in both homes.
	fetchTop := func(home, q string) string {
		p := startMCP(t, home)
		p.initialize("")
		hits := p.tool(1, "memory.fetch", map[string]any{"query": q, "limit": 1})["hits"].([]any)
		p.closeAndWait()
		if len(hits) == 0 {
			return ""
		}
		return hits[0].(map[string]any)["id"].(string)
	}
	for _, q := range []string{"What does Maya drink?", "when do backups run", "Who is allergic to peanuts?", "Where is the offsite?", "which cluster for load tests"} {
		a, b := fetchTop(from, q), fetchTop(to, q)
		if a == "" || a != b {
			t.Errorf("%q: the top hit is %s before and %s after", q, a, b)
		}
	}
}

// TestImportKeepsIDs: the ids of learnings and conversation turns are
// what the build before export computed for the same content (pinned
// here), and import keeps every id it is given.
func TestImportKeepsIDs(t *testing.T) {
	home := t.TempDir()
	mustCore(t, home, "call", "memory.learn", `{"text":"Maya prefers tea over coffee."}`)
	mustCore(t, home, "call", "memory.learn", `{"text":"The deploy runs on Fridays.","kind":"procedure","workspace":"work"}`)
	chat := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(chat, []byte(`[{"thread_id":"t1","speaker":"Ann","text":"Hello Bob","timestamp":"2026-01-02T03:04:05Z"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCore(t, home, "ingest", "--conversation", chat)
	file := filepath.Join(t.TempDir(), "out.jsonl")
	mustCore(t, home, "export", file)
	recs := exported(t, file)
	for _, id := range []string{"d1e953c77caf1c3d8b256151838f1f5c", "c7d7c04b489993eba0b2985c57082a18", "bf7574e2493a3bb87e811480a0406ffe"} {
		if _, ok := recs[id]; !ok {
			t.Errorf("no item has the id %s its content always had; ids: %v", id, slices.Collect(mapKeys(recs)))
		}
	}

	// --since keeps what was observed from then on, --workspace one workspace.
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--since", "2026-01-03"}, 2}, // the learnings, not the turn of 2026-01-02
		{[]string{"--since", "2026-01-02T03:04:05Z"}, 3},
		{[]string{"--workspace", "work"}, 1},
	} {
		part := filepath.Join(t.TempDir(), "part.jsonl")
		mustCore(t, home, append(append([]string{"export"}, tc.args...), part)...)
		if got := exported(t, part); len(got) != tc.want {
			t.Errorf("export %v: %d items, want %d", tc.args, len(got), tc.want)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestImportReportsBadLines: a damaged line, a line cut short at the end
// of a truncated file, a newer format and an id that does not match its
// text are each refused with their line number; every other line is
// stored, and the exit status is 3.
func TestImportReportsBadLines(t *testing.T) {
	src := t.TempDir()
	mustCore(t, src, "call", "memory.learn", `{"text":"The first line is fine."}`)
	mustCore(t, src, "call", "memory.learn", `{"text":"So is the third."}`)
	file := filepath.Join(t.TempDir(), "out.jsonl")
	mustCore(t, src, "export", file)
	good, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	var edited contract.ExportRecord
	_ = json.Unmarshal([]byte(lines[1]), &edited)
	edited.Text = "So is the third, edited."
	editedLine, _ := json.Marshal(edited)
	body := strings.Join([]string{
		lines[0],
		`{"v":1,"kind":"learning","text":"broken" "x"}`,
		lines[1],
		`{"v":2,"kind":"learning","text":"From the future."}`,
		`{"v":1,"kind":"learning","text":"No id: one is computed."}`,
		string(editedLine),
		`{"v":1,"kind":"learning","text":"A line cut sho`,
	}, "\n")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	out, errs, code := core(t, home, "import", bad)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	mustContain(t, out, "imported 7 lines: 3 stored, 0 already present, 4 refused")
	mustContain(t, errs, "import: line 2: refused: not JSON")
	mustContain(t, errs, "import: line 4: refused: format version 2 is newer than this openhuman-core reads (1)")
	mustContain(t, errs, "import: line 6: refused: id "+edited.ID+" does not match the item's content")
	mustContain(t, errs, "import: line 7: refused: not JSON")
	// In the file's order, whether this command or memory refused them.
	if i6, i7 := strings.Index(errs, "line 6:"), strings.Index(errs, "line 7:"); i6 > i7 {
		t.Errorf("line 7's refusal came before line 6's:\n%s", errs)
	}
	listed := mustCore(t, home, "call", "memory.list", `{"limit":10}`)
	for _, want := range []string{"The first line is fine.", "So is the third.", "No id: one is computed."} {
		mustContain(t, listed, want)
	}
	if strings.Contains(listed, "cut sho") || strings.Contains(listed, "edited") {
		t.Errorf("a refused line was stored: %s", listed)
	}
}

// TestImportFromOtherTools: each tool's memory comes over in one command,
// and a second run stores nothing twice.
func TestImportFromOtherTools(t *testing.T) {
	samples := "../../importers/testdata/"
	for _, tc := range []struct {
		from, path, summary, again string
		find                       []string
	}{
		{"server-memory", "server-memory/memory.jsonl", "imported 7 items: 7 stored, 0 already present, 0 refused", "0 stored, 7 already present",
			[]string{"John Smith (person): Speaks fluent Spanish", "John Smith works at Anthropic.", `"John_Smith"`}},
		{"basic-memory", "basic-memory", "imported 2 items: 2 stored, 0 already present, 0 refused", "0 stored, 2 already present",
			[]string{"- relates_to [[Coffee Bean Origins]]", `"source_id": "basic-memory:coffee-brewing-methods"`, `"brewing"`}},
		{"mem0", "mem0/export.json", "imported 3 items: 3 stored, 0 already present, 0 refused", "0 stored, 3 already present",
			[]string{"Is allergic to peanuts", `"user:alice"`, `"observed_at": "2024-09-13T01:45:10.12Z"`}},
		{"claude", "claude/conversations.json", "imported 2 conversation turns in 1 thread: 2 stored, 0 already present", "0 stored, 2 already present",
			[]string{"Claude: For a team, Baixa or Chiado", `"thread_id": "claude:4f2c8a10-6b1e-4c2d-9f3a-1e2d3c4b5a69"`, `"provenance": "import:claude"`}},
		{"chatgpt", "chatgpt/conversations.json", "imported 3 conversation turns in 1 thread: 3 stored, 0 already present", "0 stored, 3 already present",
			[]string{"ChatGPT: No: the acetone smell means it is hungry.", `"observed_at": "2026-01-01T09:00:00.5Z"`, `"provenance": "import:chatgpt"`}},
	} {
		t.Run(tc.from, func(t *testing.T) {
			home := t.TempDir()
			out, errs, code := core(t, home, "import", samples+tc.path) // detected
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			mustContain(t, out, tc.summary)
			out, _, _ = core(t, home, "import", "--from", tc.from, samples+tc.path)
			mustContain(t, out, tc.again)
			listed := mustCore(t, home, "call", "memory.list", `{"limit":20}`)
			for _, w := range tc.find {
				mustContain(t, listed, w)
			}
		})
	}
}

// TestImportDistributed: in distributed mode import goes over the bus to
// the memory replicas and through the replicated write stream, so every
// replica holds every item, with its id; a second import stores nothing.
func TestImportDistributed(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	repl := []string{"OPENHUMAN_MEMORY_REPLICATED=true", "OPENHUMAN_MEMORY_STREAM_REPLICAS=1", "OPENHUMAN_METRICS_ADDR=127.0.0.1:0",
		"OPENHUMAN_MEMORY_ID_KEY=00112233445566778899aabbccddeeff"}
	homes := []string{t.TempDir(), t.TempDir()}
	for _, h := range homes {
		startService(t, "openhuman-memory", h, url, repl...)
	}
	src := t.TempDir()
	fillHome(t, src)
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	mustCore(t, src, "export", file)
	want := exported(t, file)

	gwHome := t.TempDir()
	run := func() string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "import", file)
			cmd.Env = testEnv(gwHome, "OPENHUMAN_NATS_URL="+url)
			out, err := cmd.CombinedOutput()
			if err == nil {
				return string(out)
			}
			if time.Now().After(deadline) { // the replicas may still be starting
				t.Fatalf("import: %v\n%s", err, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	mustContain(t, run(), fmt.Sprintf("imported %d lines: %d stored, 0 already present, 0 refused", len(want), len(want)))
	mustContain(t, run(), fmt.Sprintf("%d already present", len(want)))
	for i, h := range homes {
		deadline := time.Now().Add(10 * time.Second)
		for {
			ids := storedIDs(t, filepath.Join(h, "memory.db"))
			missing := 0
			for id := range want {
				if !ids[id] {
					missing++
				}
			}
			if missing == 0 && len(ids) == len(want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d holds %d items, %d of the %d imported missing", i, len(ids), missing, len(want))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// storedIDs reads the ids a memory file holds, beside the process using it.
func storedIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM items`)
	if err != nil {
		return map[string]bool{} // not made yet
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		out[id] = true
	}
	return out
}
