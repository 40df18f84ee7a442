package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOfficialSDKClientStateless: the official Go SDK's client, which
// prefers 2026-07-28, gets it from the real binary over stdio, and every
// tool offered answers it.
func TestOfficialSDKClientStateless(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "mcp")
	cmd.Env = testEnv(t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK Stateless", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s over stdio", v)
	}
	callEveryTool(ctx, t, cs, "mcp:sdk-stateless")
}

// TestOfficialSDKClientHandshake: a client that asks for 2025-11-25 still
// gets the handshake.
func TestOfficialSDKClientHandshake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "mcp")
	cmd.Env = testEnv(t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK Handshake", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s", v)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	learnAndFind(ctx, t, cs, "mcp:sdk-handshake")
}

// TestOfficialSDKClientStatelessHTTP: the SDK's client over Streamable
// HTTP negotiates 2026-07-28 and calls every tool, its requests dealt in
// turn to two gateways on one bus, as a load balancer would.
func TestOfficialSDKClientStatelessHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	urls := startReplicas(t)
	rr := &roundRobin{urls: urls[:]}
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK over HTTP", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls[0], HTTPClient: &http.Client{Transport: rr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s over HTTP", v)
	}
	if cs.ID() != "" {
		t.Errorf("a stateless client got session %q", cs.ID())
	}
	callEveryTool(ctx, t, cs, "mcp:sdk-over-http")
	if a, b := rr.sent[0].Load(), rr.sent[1].Load(); a < 5 || b < 5 {
		t.Errorf("requests per gateway: %d and %d", a, b)
	}
}

// roundRobin sends each request to the next of urls, whatever URL it was for.
type roundRobin struct {
	urls []string
	next atomic.Int64
	sent [2]atomic.Int64
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(rr.next.Add(1)) % len(rr.urls)
	rr.sent[i].Add(1)
	r := req.Clone(req.Context())
	u, err := r.URL.Parse(rr.urls[i])
	if err != nil {
		return nil, err
	}
	r.URL, r.Host = u, u.Host
	return http.DefaultTransport.RoundTrip(r)
}

// learnAndFind stores a learning and checks it comes back labelled source.
func learnAndFind(ctx context.Context, t *testing.T, cs *mcp.ClientSession, source string) string {
	t.Helper()
	learned := callTool(ctx, t, cs, "memory.learn", map[string]any{"text": "The SDK's learning is labelled by its clientInfo: zqsdkword.", "kind": "fact"})
	fetched := callTool(ctx, t, cs, "memory.fetch", map[string]any{"query": "zqsdkword"})
	hits, _ := fetched["hits"].([]any)
	if len(hits) != 1 {
		t.Fatalf("fetch: %v", fetched)
	}
	if p := hits[0].(map[string]any)["meta"].(map[string]any)["provenance"]; p != source {
		t.Errorf("provenance %v, want %s", p, source)
	}
	return learned["id"].(string)
}

// callTool calls a tool that must succeed and returns its structured result.
func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: structuredContent %s", name, raw)
	}
	return out
}

// callEveryTool calls each tool the session is offered; a tool this test
// has no arguments for fails it, so a new one is not left out.
func callEveryTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, source string) {
	t.Helper()
	id := learnAndFind(ctx, t, cs, source)
	other := callTool(ctx, t, cs, "memory.learn", map[string]any{"text": "This one is forgotten again."})["id"]
	defs := callTool(ctx, t, cs, "agent.list_subagents", map[string]any{})["definitions"].([]any)
	args := map[string]map[string]any{
		"memory.recall":          {"question": "What is labelled by its clientInfo?"},
		"memory.fetch":           {"query": "zqsdkword"},
		"memory.list":            {},
		"memory.learn":           {"text": "Every tool answers a 2026-07-28 client."},
		"memory.forget":          {"ids": []any{other}},
		"tree.read_chunk":        {"chunk_id": id},
		"tree.browse":            {},
		"tree.top_entities":      {},
		"tree.list_sources":      {},
		"core.list_tools":        {},
		"core.tool_instructions": {},
		"agent.list_subagents":   {},
		"agent.run_subagent":     {"agent_id": defs[0].(map[string]any)["id"], "prompt": "Say hello."},
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(args) {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	for _, tl := range tools.Tools {
		a, ok := args[tl.Name]
		if !ok {
			t.Errorf("no arguments for %s", tl.Name)
			continue
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: a})
		switch {
		case err != nil:
			t.Errorf("%s: %v", tl.Name, err)
		case res.IsError && !(tl.Name == "agent.run_subagent" && strings.Contains(res.Content[0].(*mcp.TextContent).Text, "model")):
			// Sub-agents need a language model, which these tests do not configure.
			t.Errorf("%s failed: %v", tl.Name, res.Content[0].(*mcp.TextContent).Text)
		}
	}
}
