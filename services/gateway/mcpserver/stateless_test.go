package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// modern is a 2026-07-28 request: method, params (an object's members, or
// ""), and the _meta that revision puts on every request; client "" sends
// no clientInfo.
func modern(id int, method, params, client string) string {
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if client != "" {
		meta += `,"io.modelcontextprotocol/clientInfo":{"name":"` + client + `","version":"1"}`
	}
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{%s}}}`, id, method, params, meta)
}

// completeResult checks what every 2026-07-28 result carries and returns it.
func completed(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	res, _ := resp["result"].(map[string]any)
	if res == nil {
		t.Fatalf("no result: %v", resp)
	}
	meta, _ := res["_meta"].(map[string]any)
	info, _ := meta[MetaServerInfo].(map[string]any)
	if res["resultType"] != "complete" || info["name"] != "openhuman-core" || info["version"] != "test" {
		t.Errorf("resultType %v, serverInfo %v", res["resultType"], info)
	}
	return res
}

func TestDiscover(t *testing.T) {
	s, _ := newTestServer(t)
	for _, msg := range []string{
		modern(1, "server/discover", "", "Probe"),
		`{"jsonrpc":"2.0","id":2,"method":"server/discover"}`, // before any version is agreed
	} {
		res := completed(t, handle(t, s, NewSession(contract.TransportMCPStdio), msg))
		want := []any{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
		if !reflect.DeepEqual(res["supportedVersions"], want) || res["ttlMs"] == nil || res["cacheScope"] != "public" {
			t.Errorf("discover: %v", res)
		}
		caps, _ := res["capabilities"].(map[string]any)
		if caps["tools"] == nil || caps["resources"] == nil || caps["logging"] != nil || len(caps) != 2 {
			t.Errorf("capabilities: %v", caps)
		}
		if !strings.Contains(fmt.Sprint(res["instructions"]), "memory") {
			t.Errorf("instructions: %v", res["instructions"])
		}
	}
}

// A 2026-07-28 request is served without initialize, labelled with its own
// clientInfo, and leaves the session as it was.
func TestStatelessRequests(t *testing.T) {
	s, _ := newTestServer(t)
	sess := NewSession(contract.TransportMCPStdio)
	var lists [2]any
	for i := range lists {
		res := completed(t, handle(t, s, sess, modern(i, "tools/list", "", "Stateless Client")))
		if res["ttlMs"] != float64(30_000) || res["cacheScope"] != "public" {
			t.Errorf("tools/list cache hint: %v %v", res["ttlMs"], res["cacheScope"])
		}
		lists[i] = res["tools"]
	}
	if !reflect.DeepEqual(lists[0], lists[1]) || len(lists[0].([]any)) == 0 {
		t.Errorf("tools/list differs between calls, or is empty")
	}
	learn := func(id int, client, text string) {
		res := completed(t, handle(t, s, sess, modern(id, "tools/call", `"name":"memory.learn","arguments":{"text":"`+text+`"}`, client)))
		if res["isError"] == true || res["structuredContent"] == nil {
			t.Fatalf("learn: %v", res)
		}
	}
	learn(3, "Stateless Client", "Stateless requests need no handshake: zqlabelone.")
	learn(4, "", "A request without clientInfo is labelled mcp: zqlabeltwo.")
	for query, want := range map[string]string{"zqlabelone": "mcp:stateless-client", "zqlabeltwo": "mcp"} {
		res := completed(t, handle(t, s, sess, modern(5, "tools/call", `"name":"memory.fetch","arguments":{"query":"`+query+`"}`, "Other")))
		if got := provenance(t, res); got != want {
			t.Errorf("%s: provenance %q, want %q", query, got, want)
		}
	}
	// None of that initialized the session: a request of the handshake era is still refused.
	if e, _ := handle(t, s, sess, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)["error"].(map[string]any); e == nil {
		t.Error("a stateless request initialized the session")
	}
	// An initialized session's label is its own; a stateless request on it keeps the request's.
	handle(t, s, sess, initLine)
	learn(7, "Third Client", "Labels follow the request: zqlabelthree.")
	res := completed(t, handle(t, s, sess, modern(8, "tools/call", `"name":"memory.fetch","arguments":{"query":"zqlabelthree"}`, "")))
	if got := provenance(t, res); got != "mcp:third-client" || sess.Source() != "mcp:test-client" {
		t.Errorf("provenance %q, session %q", got, sess.Source())
	}
}

func provenance(t *testing.T, res map[string]any) string {
	t.Helper()
	var fetched struct {
		Hits []struct {
			Meta map[string]any `json:"meta"`
		} `json:"hits"`
	}
	raw, _ := json.Marshal(res["structuredContent"])
	if err := json.Unmarshal(raw, &fetched); err != nil || len(fetched.Hits) != 1 {
		t.Fatalf("fetch: %v %s", err, raw)
	}
	return fmt.Sprint(fetched.Hits[0].Meta["provenance"])
}

// What differs between the eras: errors, ping, and what resources carry.
func TestStatelessRevisionRules(t *testing.T) {
	s, _ := newTestServer(t)
	sess := initialized(t, s)
	errCode := func(msg string) (float64, map[string]any) {
		e, _ := handle(t, s, sess, msg)["error"].(map[string]any)
		if e == nil {
			t.Fatalf("%s: no error", msg)
		}
		data, _ := e["data"].(map[string]any)
		return e["code"].(float64), data
	}
	other := strings.Replace(modern(1, "tools/list", "", "X"), "2026-07-28", "2099-01-01", 1)
	if code, data := errCode(other); code != CodeUnsupportedProtocolVersion || len(data["supported"].([]any)) != 5 || data["requested"] != "2099-01-01" {
		t.Errorf("unsupported version: %v %v", code, data)
	}
	if code, _ := errCode(modern(2, "ping", "", "X")); code != jsonrpc.CodeMethodNotFound {
		t.Errorf("ping in 2026-07-28: %v", code)
	}
	if code, _ := errCode(modern(3, "initialize", "", "X")); code != jsonrpc.CodeMethodNotFound {
		t.Errorf("initialize in 2026-07-28: %v", code)
	}
	// No logging capability in either era: the level is nothing to set.
	if code, _ := errCode(modern(10, "logging/setLevel", `"level":"debug"`, "X")); code != jsonrpc.CodeMethodNotFound {
		t.Errorf("logging/setLevel in 2026-07-28: %v", code)
	}
	if code, _ := errCode(`{"jsonrpc":"2.0","id":11,"method":"logging/setLevel","params":{"level":"debug"}}`); code != jsonrpc.CodeMethodNotFound {
		t.Errorf("logging/setLevel before 2026-07-28: %v", code)
	}
	if resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); resp["result"] == nil {
		t.Errorf("ping of the handshake era: %v", resp)
	}
	missing := `"uri":"openhuman://nothing/here"`
	if code, _ := errCode(modern(5, "resources/read", missing, "X")); code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown resource in 2026-07-28: %v", code)
	}
	if code, _ := errCode(`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{` + missing + `}}`); code != codeResourceNotFound {
		t.Errorf("unknown resource before 2026-07-28: %v", code)
	}
	for _, method := range []string{"resources/list", "resources/templates/list"} {
		res := completed(t, handle(t, s, sess, modern(7, method, "", "X")))
		if res["ttlMs"] == nil || res["cacheScope"] == nil {
			t.Errorf("%s has no cache hint: %v", method, res)
		}
	}
	res := completed(t, handle(t, s, sess, modern(8, "resources/read", `"uri":"openhuman://prompts/soul"`, "X")))
	if res["ttlMs"] != float64(0) || res["cacheScope"] != "private" || res["contents"] == nil {
		t.Errorf("resources/read: %v", res)
	}
	// A failed tool is a result too, and says so.
	res = completed(t, handle(t, s, sess, modern(9, "tools/call", `"name":"test.code.UNAVAILABLE","arguments":{}`, "X")))
	if res["isError"] != true {
		t.Errorf("failed tool: %v", res)
	}
}
