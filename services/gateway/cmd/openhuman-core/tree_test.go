package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The v1 smoke test of docs/smoke-tests.md, verbatim; the profile is chosen by
// environment, as a client's configuration would set it, for that one
// command only.
const smokeV1 = `printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  | OPENHUMAN_MCP_PROFILE=v1 openhuman-core mcp`

func TestSmokeV1(t *testing.T) {
	cmd := exec.Command("bash", "-c", smokeV1)
	cmd.Env = testEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	mustContain(t, lines[0], `"capabilities":{"tools":{}},"serverInfo"`)
	var names []string
	for _, part := range strings.Split(lines[1], `{"name":"`)[1:] {
		names = append(names, part[:strings.Index(part, `"`)])
	}
	if got := strings.Join(names, " "); got != "memory.search memory.recall tree.read_chunk tree.browse tree.top_entities tree.list_sources" {
		t.Errorf("v1 tools: %s", got)
	}
	// The same binary, with --profile, and v1 has no resources.
	p := exec.Command(filepath.Join(binDir, "openhuman-core"), "mcp", "--profile", "v1")
	p.Env = testEnv(t.TempDir())
	p.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"resources/list"}` + "\n")
	out, _ = p.Output()
	mustContain(t, string(out), `{"jsonrpc":"2.0","id":2,"error":{"code":-32601`)
}

// TestIngestAndTree ingests a folder with the CLI, then reads it back with
// the tree tools of both profiles, re-ingests it unchanged, changes a file
// and ingests again.
func TestIngestAndTree(t *testing.T) {
	home, src := t.TempDir(), t.TempDir()
	files := map[string]string{
		"docs/deploy.md": "# Deploy\n\n## Staging\nRun `make deploy ENV=staging`; ask @omar in #release for a review.\n\n## Production\nProduction deploys need Maya Silva's approval (maya@acme.test).\n",
		"main.go":        "package main\n\n// Serve starts the Orbit API on port 8080.\nfunc Serve() {}\n",
		"notes.log":      "ignored by .gitignore",
		".gitignore":     "*.log\n",
	}
	writeFiles(t, src, files)
	ingestCmd := func() string {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "ingest", "--workspace", "acme", src)
		cmd.Env = testEnv(home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ingest: %v\n%s", err, out)
		}
		return string(out)
	}
	mustContain(t, ingestCmd(), "ingested 3 files: 3 stored (4 chunks), 0 unchanged, 0 empty; skipped 1 ignored")
	// 4 chunks: the two sections of deploy.md (the bare title leads into the
	// first), main.go and .gitignore.

	p := startMCP(t, home)
	p.initialize("tree-check")
	hits := p.tool(1, "memory.fetch", map[string]any{"query": "staging deploy", "filter": map[string]any{"workspace": "acme", "kinds": []string{"document"}}})["hits"].([]any)
	if len(hits) == 0 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "make deploy ENV=staging") {
		t.Fatalf("fetch: %v", hits)
	}
	meta := hits[0].(map[string]any)["meta"].(map[string]any)
	if meta["source_ref"] != "Deploy > Staging" || meta["file_path"] != "docs/deploy.md" || meta["language"] != "markdown" {
		t.Errorf("meta %v", meta)
	}
	id := hits[0].(map[string]any)["id"].(string)
	full := p.tool(2, "tree.read_chunk", map[string]any{"chunk_id": id})
	if !strings.Contains(full["content"].(string), "@omar") || full["chunk"].(map[string]any)["source_kind"] != "folder" {
		t.Errorf("read_chunk %v", full)
	}
	entities := p.tool(3, "tree.top_entities", map[string]any{"k": 50})["entities"].([]any)
	var ids []string
	for _, e := range entities {
		ids = append(ids, e.(map[string]any)["entity_id"].(string))
	}
	for _, want := range []string{"handle:omar", "hashtag:release", "email:maya@acme.test", "term:maya silva", "term:orbit api"} {
		if !strings.Contains(strings.Join(ids, " "), want) {
			t.Errorf("entity %s missing from %v", want, ids)
		}
	}
	browsed := p.tool(4, "tree.browse", map[string]any{"entity_ids": []string{"email:maya@acme.test"}})
	if browsed["total"] != float64(1) {
		t.Errorf("browse by entity: %v", browsed)
	}
	sources := p.tool(5, "tree.list_sources", map[string]any{"user_email_hint": "Maya@acme.test"})["sources"].([]any)
	first := sources[0].(map[string]any)
	if len(sources) != 3 || first["display_name"] != "docs/deploy.md" || first["mentions_user"] != true || first["chunk_count"] != float64(2) {
		t.Errorf("sources %v", sources)
	}
	p.closeAndWait()

	mustContain(t, ingestCmd(), "0 stored (0 chunks), 3 unchanged")
	os.WriteFile(filepath.Join(src, "docs/deploy.md"), []byte("# Deploy\n\n## Staging\nRun `make deploy ENV=staging`; ask @omar in #release for a review.\n\n## Production\nProduction deploys are automatic after the canary.\n"), 0o644)
	mustContain(t, ingestCmd(), "1 stored (2 chunks), 2 unchanged")

	v1 := startMCP(t, home, "OPENHUMAN_MCP_PROFILE=v1")
	v1.initialize("v1-client")
	found := v1.tool(1, "memory.search", map[string]any{"query": "production deploys", "k": 5})
	all := ""
	for _, c := range found["chunks"].([]any) {
		all += c.(map[string]any)["content_preview"].(string) + "\n"
	}
	if found["total"] != float64(2) || !strings.Contains(all, "automatic after the canary") || strings.Contains(all, "approval") {
		t.Errorf("after the change, the old production chunk must be gone: %v", found)
	}
	recalled := v1.tool(2, "memory.recall", map[string]any{"query": "Orbit API port", "k": 3})
	if len(recalled["chunks"].([]any)) == 0 || len(recalled["scores"].([]any)) != len(recalled["chunks"].([]any)) {
		t.Errorf("v1 recall %v", recalled)
	}
}

func TestIngestConversation(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "chat.json")
	os.WriteFile(file, []byte(`{"thread_id":"t-42","turns":[{"speaker":"Lena","text":"Let's move the retro to Thursday.","timestamp":"2026-03-02T10:00:00Z"},{"speaker":"Omar","text":"Thursday works.","timestamp":"2026-03-02T10:01:00Z"}]}`), 0o644)
	run := func() string {
		cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "ingest", "--conversation", file)
		cmd.Env = testEnv(home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	mustContain(t, run(), "ingested 2 conversation turns: 2 stored, 0 already known")
	mustContain(t, run(), "2 already known")
	p := startMCP(t, home)
	p.initialize("")
	hits := p.tool(1, "memory.fetch", map[string]any{"query": "retro", "filter": map[string]any{"thread_id": "t-42", "kinds": []string{"conversation"}}})["hits"].([]any)
	// The reply follows, found with the turn it answers, below the one
	// that holds the word.
	if len(hits) != 2 || hits[0].(map[string]any)["text"] != "Lena: Let's move the retro to Thursday." ||
		hits[1].(map[string]any)["text"] != "Omar: Thursday works." {
		t.Fatalf("%v", hits)
	}
	if hits[1].(map[string]any)["score"].(float64) >= hits[0].(map[string]any)["score"].(float64) {
		t.Fatalf("the reply scores as high as the turn holding the word: %v", hits)
	}
	if obs := hits[0].(map[string]any)["meta"].(map[string]any)["observed_at"]; obs != "2026-03-02T10:00:00Z" {
		t.Errorf("observed_at %v", obs)
	}
}
