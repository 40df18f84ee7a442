package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// client is one MCP session against a Server, speaking raw JSON-RPC.
type client struct {
	t    *testing.T
	s    *Server
	sess *Session
	id   int
}

func connect(t *testing.T, s *Server, protocol string) *client {
	c := &client{t: t, s: s, sess: NewSession(contract.TransportMCPStdio)}
	init := c.request("initialize", map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "schema-check"}})
	if got := init["result"].(map[string]any)["protocolVersion"]; got != protocol {
		t.Fatalf("negotiated %v, want %s", got, protocol)
	}
	return c
}

func (c *client) request(method string, params any) map[string]any {
	c.t.Helper()
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	out := c.s.Handle(context.Background(), c.sess, msg)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		c.t.Fatalf("%s → %q", msg, out)
	}
	return m
}

// tools lists the tools by name, as the client sees them.
func (c *client) tools() map[string]map[string]any {
	c.t.Helper()
	byName := map[string]map[string]any{}
	for _, tl := range c.request("tools/list", nil)["result"].(map[string]any)["tools"].([]any) {
		byName[tl.(map[string]any)["name"].(string)] = tl.(map[string]any)
	}
	return byName
}

// call calls a tool that must succeed and returns its result.
func (c *client) call(name string, args map[string]any) map[string]any {
	c.t.Helper()
	resp := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	res, ok := resp["result"].(map[string]any)
	if !ok || res["isError"] == true {
		c.t.Fatalf("%s %v failed: %v", name, args, resp)
	}
	return res
}

// schemaChecker validates structured results against the outputSchema a
// client was given, with an independent JSON Schema implementation, and
// records which tools were checked.
type schemaChecker struct {
	t       *testing.T
	schemas map[string]map[string]any
	checked map[string]int
}

func newSchemaChecker(t *testing.T, listed map[string]map[string]any) *schemaChecker {
	sc := &schemaChecker{t: t, schemas: map[string]map[string]any{}, checked: map[string]int{}}
	for name, tl := range listed {
		schema, ok := tl["outputSchema"].(map[string]any)
		if !ok || schema["type"] != "object" {
			t.Errorf("%s: outputSchema %v, want an object schema", name, tl["outputSchema"])
			continue
		}
		sc.schemas[name] = schema
	}
	return sc
}

// result checks one tool result: structuredContent is present, is the
// same JSON as the text content, and conforms to the tool's outputSchema.
// It returns the structured content.
func (sc *schemaChecker) result(name string, res map[string]any) map[string]any {
	sc.t.Helper()
	structured, ok := res["structuredContent"].(map[string]any)
	if !ok {
		sc.t.Errorf("%s: no structuredContent in %v", name, res)
		return nil
	}
	var fromText any
	if err := json.Unmarshal([]byte(res["content"].([]any)[0].(map[string]any)["text"].(string)), &fromText); err != nil {
		sc.t.Errorf("%s: text content is not JSON: %v", name, err)
	}
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(structured)
	if !bytes.Equal(a, b) {
		sc.t.Errorf("%s: structuredContent differs from the text content:\n%s\n%s", name, b, a)
	}
	sc.value(name, structured)
	return structured
}

// value checks v against the outputSchema of name.
func (sc *schemaChecker) value(name string, v map[string]any) {
	sc.t.Helper()
	schema, ok := sc.schemas[name]
	if !ok {
		sc.t.Errorf("%s: no outputSchema", name)
		return
	}
	sc.checked[name]++
	for _, problem := range violations(schema, v) {
		got, _ := json.Marshal(v)
		sc.t.Errorf("%s: %s\nresult: %.600s", name, problem, got)
	}
}

// violations says how v fails to conform to schema (a JSON Schema as a
// client decodes it): what an independent JSON Schema implementation
// rejects, and every object member the schema does not name where it
// names members at all. Schemas stay open, but a field they do not
// declare is one a client cannot learn of.
func violations(schema map[string]any, v any) []string {
	raw, _ := json.Marshal(schema)
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		return []string{"the outputSchema is not JSON Schema: " + err.Error()}
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		return []string{"the outputSchema does not resolve: " + err.Error()}
	}
	var out []string
	if err := resolved.Validate(v); err != nil {
		out = append(out, "does not conform to its outputSchema: "+err.Error())
	}
	for _, path := range undeclared("", schema, v) {
		out = append(out, "field "+path+" is not in the outputSchema")
	}
	return out
}

// undeclared lists the paths of v's object members that schema does not
// describe, where schema lists properties at all.
func undeclared(path string, schema map[string]any, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if len(props) == 0 {
			return nil // a free-form object (meta, parameters, arguments)
		}
		for k, val := range v {
			p, ok := props[k].(map[string]any)
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, undeclared(path+"."+k, p, val)...)
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, item := range v {
			out = append(out, undeclared(fmt.Sprintf("%s[%d]", path, i), items, item)...)
		}
	}
	sort.Strings(out)
	return out
}

// schemaModel plays every language model the system asks: the librarian
// recalls, then answers; the note taker stores a note; anything else
// (memory's answers, web write-ups) gets a cited sentence.
func schemaModel(_ int, req llm.Request) llmtest.Reply {
	done := llmtest.LastToolResult(req) != ""
	switch llmtest.Agent(req) {
	case "librarian":
		if !done {
			return llmtest.Call("memory_recall", `{"question":"How does Maya take her coffee?"}`)
		}
		return llmtest.Text("Black, no sugar [1].")
	case "note_taker":
		if !done {
			return llmtest.Call("memory_learn", `{"text":"Standup moves to 9:30 on Mondays.","kind":"fact"}`)
		}
		return llmtest.Text("Not stored: the write was refused.")
	}
	for _, m := range req.Messages {
		if strings.Contains(m.Content, "Does Maya drink") {
			return llmtest.Text("Black, I think.") // memory then quotes itself, with a warning
		}
	}
	return llmtest.Text("Black, no sugar [1].")
}

// fakeSearXNG answers searches as SearXNG does with json enabled.
func fakeSearXNG(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"query":%q,"results":[
			{"url":"https://example.com/a","title":"A","content":"First result.","engine":"duckduckgo","score":3,"publishedDate":"2026-01-02T00:00:00"},
			{"url":"https://example.org/b","title":"B","content":"Second result.","engine":"brave","score":1}
		],"unresponsive_engines":[]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEveryResultConformsToItsOutputSchema calls every tool of both MCP
// surfaces on the real system, in ways that bring out the optional fields
// of their results, and checks each structuredContent against the
// outputSchema tools/list declared. The JSON-RPC-only tools' results are
// checked against their catalog schemas the same way.
func TestEveryResultConformsToItsOutputSchema(t *testing.T) {
	model := llmtest.New(t, schemaModel)
	searx := fakeSearXNG(t)
	env := map[string]string{
		"OPENHUMAN_LLM_BASE_URL": model.URL, "OPENHUMAN_LLM_MODEL": "toy",
		"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": searx.URL,
		"OPENHUMAN_APPROVAL_MODE": "ask",
	}
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, env, gateway.Options{Timeout: 30 * time.Second})
	c := connect(t, New(gw, nil), structuredSince)
	listed := c.tools()
	check := newSchemaChecker(t, listed)
	for _, tl := range contract.ToolsFor(contract.ProfileV2) {
		if _, ok := listed[tl.Name]; !ok {
			t.Fatalf("%s is not listed: the test configures every tool", tl.Name)
		}
	}

	learned := check.result("memory.learn", c.call("memory.learn", map[string]any{"text": "Maya drinks her coffee black, no sugar.", "kind": "preference", "confidence": 0.9}))
	check.result("memory.learn", c.call("memory.learn", map[string]any{"text": "Maya drinks her coffee black, no sugar.", "kind": "preference", "confidence": 0.9}))
	secret := check.result("memory.learn", c.call("memory.learn", map[string]any{"text": "Maya's staging database is postgres://app:hunter2@db.internal:5432/main."}))
	check.result("memory.learn", c.call("memory.learn", map[string]any{"text": "Questions about the release go to @maya or maya@example.com, see https://example.com/release #release."}))
	if secret["redacted"] == nil {
		t.Errorf("memory.learn did not report a redaction: %v", secret)
	}
	id := learned["id"].(string)
	// A document, for chunks with a place in their source.
	doc := "# Maya\n\nMaya leads the release.\n\n## Coffee\n\nMaya drinks her coffee black at 9:30.\n"
	if _, err := transfer.Ingest(context.Background(), gw, []contract.IngestFile{{SourceID: "/notes/maya.md", SourceKind: "file", DisplayName: "maya.md",
		Content: doc, Language: "markdown", Workspace: "notes", Folder: "/notes", FilePath: "/notes/maya.md", ModifiedMS: 1_700_000_000_000}},
		contract.CallContext{Source: "cli", Transport: contract.TransportCLI}); err != nil {
		t.Fatal(err)
	}

	check.result("memory.recall", c.call("memory.recall", map[string]any{"question": "How does Maya take her coffee?"}))
	check.result("memory.recall", c.call("memory.recall", map[string]any{"question": "What is the capital of Mars?", "filter": map[string]any{"kinds": []any{"document"}}}))
	if r := check.result("memory.recall", c.call("memory.recall", map[string]any{"question": "Does Maya drink her coffee black?"})); r["warnings"] == nil {
		t.Errorf("an uncited answer should come with a warning: %v", r)
	}
	check.result("memory.fetch", c.call("memory.fetch", map[string]any{"query": "Maya"}))
	page := check.result("memory.fetch", c.call("memory.fetch", map[string]any{"query": "Maya", "limit": 1}))
	if page["next_cursor"] == nil {
		t.Fatalf("memory.fetch with limit 1 has no next_cursor: %v", page)
	}
	check.result("memory.fetch", c.call("memory.fetch", map[string]any{"query": "Maya", "limit": 1, "cursor": page["next_cursor"]}))
	check.result("memory.fetch", c.call("memory.fetch", map[string]any{"query": "Maya", "mode": "keyword"}))
	check.result("memory.fetch", c.call("memory.fetch", map[string]any{"query": "Maya", "explain": true, "snippets": true}))
	check.result("memory.list", c.call("memory.list", map[string]any{}))
	check.result("memory.list", c.call("memory.list", map[string]any{"filter": map[string]any{"kinds": []any{"document"}, "workspace": "notes"}}))
	page = check.result("memory.list", c.call("memory.list", map[string]any{"limit": 1}))
	if page["next_cursor"] == nil {
		t.Errorf("memory.list with limit 1 has no next_cursor: %v", page)
	}

	check.result("tree.read_chunk", c.call("tree.read_chunk", map[string]any{"chunk_id": id}))
	docs := check.result("tree.browse", c.call("tree.browse", map[string]any{"source_kinds": []any{"file"}}))["chunks"].([]any)
	if len(docs) == 0 || docs[0].(map[string]any)["source_ref"] == nil {
		t.Fatalf("document chunks should say where they are: %v", docs)
	}
	check.result("tree.read_chunk", c.call("tree.read_chunk", map[string]any{"chunk_id": docs[0].(map[string]any)["id"]}))
	check.result("tree.browse", c.call("tree.browse", map[string]any{}))
	check.result("tree.browse", c.call("tree.browse", map[string]any{"query": "coffee", "k": 1, "offset": 1}))
	check.result("tree.top_entities", c.call("tree.top_entities", map[string]any{}))
	check.result("tree.list_sources", c.call("tree.list_sources", map[string]any{"user_email_hint": "maya@example.com"}))

	check.result("web_search", c.call("web_search", map[string]any{"query": "go generics"}))
	check.result("web_search", c.call("web_search", map[string]any{"query": "go generics"})) // cached
	check.result("web_answer", c.call("web_answer", map[string]any{"query": "When did Go get generics?"}))
	check.result("searxng_search", c.call("searxng_search", map[string]any{"query": "rust traits", "max_results": 1}))

	check.result("core.list_tools", c.call("core.list_tools", map[string]any{}))
	check.result("core.tool_instructions", c.call("core.tool_instructions", map[string]any{}))
	check.result("agent.list_subagents", c.call("agent.list_subagents", map[string]any{}))
	check.result("agent.run_subagent", c.call("agent.run_subagent", map[string]any{"agent_id": "librarian", "prompt": "How does Maya take her coffee?"}))

	// A note taker's write waits for a decision ([approval] mode = ask):
	// the pending call is listed, then refused, and the run reports the
	// failed tool call.
	ran := make(chan map[string]any, 1)
	go func() {
		msg := `{"jsonrpc":"2.0","id":"run","method":"tools/call","params":{"name":"agent.run_subagent","arguments":{"agent_id":"note_taker","prompt":"Note: standup moves to 9:30 on Mondays."}}}`
		var m map[string]any
		json.Unmarshal(c.s.Handle(context.Background(), c.sess, []byte(msg)), &m)
		ran <- m
	}()
	rpcTools := map[string]map[string]any{}
	for _, tl := range contract.ToolsFor(contract.ProfileRPC) {
		b, _ := json.Marshal(map[string]any{"outputSchema": tl.Output})
		var entry map[string]any
		json.Unmarshal(b, &entry)
		rpcTools[tl.Name] = entry
	}
	rpcCheck := newSchemaChecker(t, rpcTools)
	rpc := func(tool contract.Tool, params string) map[string]any {
		t.Helper()
		res, err := gw.CallRPC(context.Background(), tool.RPC, json.RawMessage(params), contract.CallContext{Source: "rpc", Transport: contract.TransportJSONRPC})
		if err != nil {
			t.Fatalf("%s: %v", tool.RPC, err)
		}
		b, _ := json.Marshal(res)
		var m map[string]any
		json.Unmarshal(b, &m)
		rpcCheck.value(tool.Name, m)
		return m
	}
	var pending []any
	for deadline := time.Now().Add(15 * time.Second); len(pending) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the note taker's write never waited for approval")
		}
		pending = rpc(contract.ApprovalList, `{}`)["pending"].([]any)
	}
	rpc(contract.ApprovalDecide, fmt.Sprintf(`{"id":%q,"approve":false,"reason":"not now"}`, pending[0].(map[string]any)["id"]))
	if items, _ := rpc(contract.MemoryExport, `{"limit":1}`)["items"].([]any); len(items) != 1 {
		t.Errorf("memory.export's first page holds %d items, want 1", len(items))
	}
	select {
	case m := <-ran:
		run := check.result("agent.run_subagent", m["result"].(map[string]any))
		if calls, _ := run["tool_calls"].([]any); len(calls) == 0 || calls[0].(map[string]any)["ok"] != false {
			t.Errorf("a refused write should be a failed tool call: %v", run)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the note taker did not finish after its refusal")
	}

	check.result("memory.forget", c.call("memory.forget", map[string]any{"ids": []any{id, "no-such-item"}}))

	// The older surface, over the same memory.
	gw1 := gatewaytest.StartIn(t, home, env, gateway.Options{Timeout: 30 * time.Second, Profile: contract.ProfileV1})
	c1 := connect(t, New(gw1, &Options{ToolsOnly: true}), structuredSince)
	check1 := newSchemaChecker(t, c1.tools())
	check1.result("memory.search", c1.call("memory.search", map[string]any{"query": "Maya"}))
	check1.result("memory.recall", c1.call("memory.recall", map[string]any{"query": "coffee", "k": 2}))
	for _, name := range []string{"tree.browse", "tree.top_entities", "tree.list_sources"} {
		check1.result(name, c1.call(name, map[string]any{}))
	}
	chunks := check1.result("tree.browse", c1.call("tree.browse", map[string]any{"k": 1}))["chunks"].([]any)
	check1.result("tree.read_chunk", c1.call("tree.read_chunk", map[string]any{"chunk_id": chunks[0].(map[string]any)["id"]}))

	for _, cc := range []struct {
		profile string
		checked map[string]int
	}{{contract.ProfileV2, check.checked}, {contract.ProfileV1, check1.checked}, {contract.ProfileRPC, rpcCheck.checked}} {
		for _, tl := range contract.ToolsFor(cc.profile) {
			if cc.checked[tl.Name] == 0 {
				t.Errorf("%s (%s) was not checked: call it here", tl.Name, cc.profile)
			}
		}
	}
}

// TestViolationsCatchLies: the check above finds a result that breaks its
// schema.
func TestViolationsCatchLies(t *testing.T) {
	b, _ := json.Marshal(contract.MemoryLearn.Output)
	var schema map[string]any
	json.Unmarshal(b, &schema)
	for _, tc := range []struct {
		result string
		want   string
	}{
		{`{"id":"x","replayed":false}`, ""},
		{`{"id":"x","replayed":false,"redacted":["password"]}`, ""},
		{`{"id":"x"}`, "replayed"},
		{`{"id":7,"replayed":false}`, "id"},
		{`{"id":"x","replayed":"no"}`, "replayed"},
		{`{"id":"x","replayed":false,"redacted":[1]}`, "redacted"},
		{`{"id":"x","replayed":false,"redacted":null}`, "redacted"},
		{`{"id":"x","replayed":false,"stored_at":1}`, ".stored_at is not in the outputSchema"},
	} {
		var v map[string]any
		json.Unmarshal([]byte(tc.result), &v)
		got := strings.Join(violations(schema, v), "; ")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: violations %q, want one about %q", tc.result, got, tc.want)
		}
	}
}

// TestStructuredOutputFollowsTheProtocol: outputSchema and
// structuredContent came with 2025-06-18; sessions on older revisions get
// neither, and the same text. A failed call never carries
// structuredContent.
func TestStructuredOutputFollowsTheProtocol(t *testing.T) {
	s, _ := newTestServer(t)
	var texts []string
	for _, protocol := range ProtocolVersions {
		c := connect(t, s, protocol)
		want := protocol >= structuredSince
		for name, tl := range c.tools() {
			if _, ok := tl["outputSchema"]; ok != want {
				t.Errorf("%s: %s has outputSchema: %v, want %v", protocol, name, ok, want)
			}
		}
		res := c.call("agent.list_subagents", map[string]any{})
		if _, ok := res["structuredContent"]; ok != want {
			t.Errorf("%s: structuredContent: %v, want %v", protocol, ok, want)
		}
		texts = append(texts, res["content"].([]any)[0].(map[string]any)["text"].(string))

		resp := c.request("tools/call", map[string]any{"name": "tree.read_chunk", "arguments": map[string]any{"chunk_id": "no-such-chunk"}})
		res = resp["result"].(map[string]any)
		if _, ok := res["structuredContent"]; res["isError"] != true || ok {
			t.Errorf("%s: a failed call: %v", protocol, resp)
		}
	}
	for _, text := range texts[1:] {
		if text != texts[0] {
			t.Errorf("the text content depends on the protocol:\n%s\n%s", texts[0], text)
		}
	}
}
