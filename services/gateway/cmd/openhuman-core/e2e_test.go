package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestMemoryLifecycle drives the real binary over stdio as an MCP client
// would: learn, fetch, recall, list, forget, and checks that every item
// carries the provenance of the client that wrote it.
func TestMemoryLifecycle(t *testing.T) {
	for _, tc := range []struct{ client, source string }{
		{"Claude Desktop", "mcp:claude-desktop"},
		{"", "mcp"},
		{"  ***  ", "mcp"},
	} {
		t.Run(tc.source+"/"+tc.client, func(t *testing.T) {
			p := startMCP(t, t.TempDir())
			p.initialize(tc.client)

			learned := p.tool(1, "memory.learn", map[string]any{"text": "The team ships releases every second Thursday.", "kind": "procedure", "confidence": 0.9})
			id, _ := learned["id"].(string)
			if id == "" || learned["replayed"] != false {
				t.Fatalf("learn = %v", learned)
			}
			p.tool(2, "memory.learn", map[string]any{"text": "The staging cluster runs in eu-west-1."})
			if again := p.tool(3, "memory.learn", map[string]any{"text": "The team ships releases every second Thursday.", "kind": "procedure"}); again["id"] != id || again["replayed"] != true {
				t.Errorf("relearn = %v, want a replay of %s", again, id)
			}

			fetched := p.tool(4, "memory.fetch", map[string]any{"query": "release schedule thursday"})
			hits := fetched["hits"].([]any)
			if len(hits) != 1 {
				t.Fatalf("fetch = %v", fetched)
			}
			hit := hits[0].(map[string]any)
			meta := hit["meta"].(map[string]any)
			if hit["id"] != id || meta["provenance"] != tc.source || meta["learning_kind"] != "procedure" || hit["confidence"] != 0.9 {
				t.Errorf("hit = %v, want provenance %s", hit, tc.source)
			}

			recalled := p.tool(5, "memory.recall", map[string]any{"question": "How often do we ship releases?"})
			answer := recalled["answer"].(string)
			cites := recalled["citations"].([]any)
			if !strings.Contains(answer, "[1]") || len(cites) == 0 {
				t.Fatalf("recall = %v", recalled)
			}
			cite := cites[0].(map[string]any)
			if cite["id"] != id || cite["meta"].(map[string]any)["provenance"] != tc.source {
				t.Errorf("citation = %v", cite)
			}

			listed := p.tool(6, "memory.list", map[string]any{"limit": 1})
			items := listed["items"].([]any)
			if len(items) != 1 || listed["next_cursor"] == nil {
				t.Fatalf("list page 1 = %v", listed)
			}
			if items[0].(map[string]any)["text"] != "The staging cluster runs in eu-west-1." {
				t.Errorf("list is not newest first: %v", items[0])
			}
			page2 := p.tool(7, "memory.list", map[string]any{"limit": 1, "cursor": listed["next_cursor"]})
			if it := page2["items"].([]any); len(it) != 1 || it[0].(map[string]any)["id"] != id || page2["next_cursor"] != nil {
				t.Errorf("list page 2 = %v", page2)
			}
			for _, it := range append(items, page2["items"].([]any)...) {
				if prov := it.(map[string]any)["meta"].(map[string]any)["provenance"]; prov != tc.source {
					t.Errorf("listed provenance %v, want %s", prov, tc.source)
				}
			}

			forgot := p.tool(8, "memory.forget", map[string]any{"ids": []string{id}})
			if forgot["forgotten"] != float64(1) {
				t.Errorf("forget = %v", forgot)
			}
			if after := p.tool(9, "memory.fetch", map[string]any{"query": "release thursday"}); len(after["hits"].([]any)) != 0 {
				t.Errorf("forgotten item still found: %v", after)
			}
			if after := p.tool(10, "memory.recall", map[string]any{"question": "How often do we ship releases?"}); !strings.HasPrefix(after["answer"].(string), "I don't know") {
				t.Errorf("recall after forget = %v", after)
			}
			if code := p.closeAndWait(); code != 0 {
				t.Errorf("exit code %d\nstderr:\n%s", code, p.stderr)
			}
		})
	}
}

// TestPipedInputGetsEveryResponse pipes many tool calls and closes stdin at
// once: every request read must be answered before the process exits.
func TestPipedInputGetsEveryResponse(t *testing.T) {
	var b strings.Builder
	b.WriteString(`printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe"}}}'`)
	const calls = 60
	for i := 1; i <= calls; i++ {
		fmt.Fprintf(&b, ` '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"piped note %d"}}}'`, i, i)
	}
	b.WriteString(" | openhuman-core mcp")
	cmd := exec.Command("bash", "-c", b.String())
	cmd.Env = testEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != calls+1 {
		t.Fatalf("%d responses for %d requests", len(lines), calls+1)
	}
	for _, l := range lines {
		if strings.Contains(l, `"isError":true`) || strings.Contains(l, `"error"`) {
			t.Errorf("failed: %s", l)
		}
	}
}

// TestAgentTools calls the agents service's tools through the binary; the
// core catalog and the instructions must agree with tools/list.
func TestAgentTools(t *testing.T) {
	p := startMCP(t, t.TempDir())
	p.initialize("agents-check")
	listed := strings.Join(toolNames(p, 1), " ")
	catalog := p.tool(2, "core.list_tools", map[string]any{})
	var names []string
	for _, tl := range catalog["tools"].([]any) {
		name := tl.(map[string]any)["name"].(string)
		names = append(names, name)
		if !strings.Contains(listed, name) {
			t.Errorf("core catalog offers %s, which tools/list does not", name)
		}
		if strings.HasPrefix(name, "core.") {
			t.Errorf("core catalog offers its own introspection tool %s", name)
		}
	}
	if want := len(strings.Fields(listed)) - 2; len(names) != want { // all but core.list_tools and core.tool_instructions
		t.Errorf("core catalog = %v, want the %d tools of tools/list but the core.* ones", names, want)
	}
	md := p.tool(3, "core.tool_instructions", map[string]any{})["instructions"].(string)
	for _, n := range names {
		mustContain(t, md, "### `"+n+"`")
	}
	defs := p.tool(4, "agent.list_subagents", nil)["definitions"].([]any)
	if len(defs) != 15 {
		t.Errorf("%d definitions", len(defs))
	}
}

// TestSecretsAreScrubbed stores a learning with credentials in it through
// MCP: the answer says what was removed, and nothing can find the secret.
func TestSecretsAreScrubbed(t *testing.T) {
	p := startMCP(t, t.TempDir())
	p.initialize("scrub")
	res := p.tool(1, "memory.learn", map[string]any{"text": "The staging DB is postgres://app:Hunter2Staging@db.internal/app and the CI token is ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
	if red, _ := res["redacted"].([]any); len(red) != 2 {
		t.Fatalf("learn = %v", res)
	}
	for _, q := range []string{"Hunter2Staging", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		if hits := p.tool(2, "memory.fetch", map[string]any{"query": q, "mode": "keyword"})["hits"].([]any); len(hits) != 0 {
			t.Errorf("%s is findable: %v", q, hits)
		}
	}
	item := p.tool(3, "memory.list", map[string]any{})["items"].([]any)[0].(map[string]any)
	mustContain(t, item["text"].(string), "postgres://app:[REDACTED:url_password]@db.internal/app")
}
