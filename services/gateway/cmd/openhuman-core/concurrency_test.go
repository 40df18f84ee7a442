package main

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

// TestTwoProcessesLoseNothing runs two `openhuman-core mcp` processes on the
// same home, as Claude Desktop and Cursor do, each learning 500 things at
// once. All 1000 must be stored.
func TestTwoProcessesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1000 items through two processes; make test-long runs it")
	}
	home := t.TempDir()
	const each = 500
	procs := []*mcpProc{startMCP(t, home), startMCP(t, home)}
	var wg sync.WaitGroup
	for w, p := range procs {
		p.initialize(fmt.Sprintf("writer-%d", w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Pipelined: all requests first, then all responses, so both
			// processes contend for the database at the same moments.
			for i := 1; i <= each; i++ {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
					"params": map[string]any{"name": "memory.learn", "arguments": map[string]any{"text": fmt.Sprintf("writer %d learned fact number %d", w, i)}}})
				p.send(string(b))
			}
		}()
	}
	wg.Wait()
	for w, p := range procs {
		for i := 0; i < each; i++ {
			resp := p.next()
			if res, ok := resp["result"].(map[string]any); !ok || res["isError"] == true {
				t.Fatalf("writer %d: %v\nstderr:\n%s", w, resp, p.stderr)
			}
		}
	}
	// Count through a third process, page by page.
	reader := startMCP(t, home)
	reader.initialize("counter")
	seen := map[string]bool{}
	var cursor any
	for page := 0; page < 20; page++ {
		args := map[string]any{"limit": 100}
		if cursor != nil {
			args["cursor"] = cursor
		}
		res := reader.tool(page+1, "memory.list", args)
		for _, it := range res["items"].([]any) {
			seen[it.(map[string]any)["id"].(string)] = true
		}
		if cursor = res["next_cursor"]; cursor == nil {
			break
		}
	}
	if len(seen) != 2*each {
		t.Fatalf("%d distinct items stored, want %d", len(seen), 2*each)
	}
	for _, p := range procs {
		if code := p.closeAndWait(); code != 0 {
			t.Errorf("exit %d\nstderr:\n%s", code, p.stderr)
		}
	}
}
