package httpapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/gateway"
)

// TestFetchExplainOnEveryTransport: memory.fetch's explain crosses the bus
// and each transport whole (MCP's structuredContent and its text alike,
// with a session and without, and /rpc), only when asked for, and asking
// changes nothing else of the answer. Feature names belong to the rank
// profile and change with it, so only the explanation's shape is held.
func TestFetchExplainOnEveryTransport(t *testing.T) {
	ts := mustServe(t, gateway.Options{})
	for _, text := range []string{
		"Maya drinks her coffee black, no sugar.",
		"The coffee machine on floor 2 is descaled on Fridays.",
		"The standup moves to 9:30 on Mondays.",
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_learn","params":{"text":%q}}`, text)
		if _, out := post(t, ts.URL+"/rpc", body); decodeAnswer(t, out).Error != nil {
			t.Fatalf("learn: %s", out)
		}
	}
	resp, out := post(t, ts.URL+"/mcp", initBody, mcpHeaders...)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize: %s", out)
	}
	post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(session)...)

	transports := map[string]func(args string) map[string]any{
		"mcp": func(args string) map[string]any {
			_, out := post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.fetch","arguments":`+args+`}}`, withSession(session)...)
			return toolResult(t, out)
		},
		"mcp stateless": func(args string) map[string]any {
			body, headers := modernCall(3, "tools/call", "memory.fetch", args, "")
			_, out := post(t, ts.URL+"/mcp", body, headers...)
			return toolResult(t, out)
		},
		"rpc": func(args string) map[string]any {
			_, out := post(t, ts.URL+"/rpc", `{"jsonrpc":"2.0","id":4,"method":"openhuman.memory_fetch","params":`+args+`}`)
			a := decodeAnswer(t, out)
			if a.Error != nil || a.Result == nil {
				t.Fatalf("rpc: %s", out)
			}
			return a.Result
		},
	}
	for name, call := range transports {
		for _, mode := range []string{"hybrid", "keyword", "vector"} {
			t.Run(name+" "+mode, func(t *testing.T) {
				args := `{"query":"coffee","mode":"` + mode + `"`
				plain := call(args + `}`)
				asked := call(args + `,"explain":false}`)
				explained := call(args + `,"explain":true}`)
				for _, hit := range hitsOf(t, plain) {
					if _, ok := hit["explain"]; ok {
						t.Errorf("a hit explained without explain: %v", hit)
					}
				}
				if !reflect.DeepEqual(plain, asked) {
					t.Errorf("explain false answers otherwise than no explain:\n%v\n%v", plain, asked)
				}
				hits := hitsOf(t, explained)
				for _, hit := range hits {
					checkExplanation(t, hit)
					delete(hit, "explain")
				}
				if !reflect.DeepEqual(plain, explained) {
					t.Errorf("explain changed the answer besides the explanations:\n%v\n%v", plain, explained)
				}
			})
		}
	}
}

// toolResult is a successful MCP tools/call's structured result, which
// must be the JSON of its text content too.
func toolResult(t *testing.T, body string) map[string]any {
	t.Helper()
	a := decodeAnswer(t, body)
	if a.Error != nil || a.Result == nil || a.Result["isError"] == true {
		t.Fatalf("tools/call: %s", body)
	}
	structured, ok := a.Result["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent: %s", body)
	}
	content, _ := a.Result["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no text content: %s", body)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &fromText); err != nil {
		t.Fatalf("the text content is not JSON: %v\n%s", err, body)
	}
	if !reflect.DeepEqual(structured, fromText) {
		t.Fatalf("structuredContent and the text differ:\n%v\n%v", structured, fromText)
	}
	return structured
}

func hitsOf(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	raw, _ := res["hits"].([]any)
	if len(raw) == 0 {
		t.Fatalf("no hits: %v", res)
	}
	hits := make([]map[string]any, len(raw))
	for i, h := range raw {
		hits[i] = h.(map[string]any)
	}
	return hits
}

// checkExplanation holds a hit's explanation to its contract: the profile
// that scored it and at least one feature, each named, of a phase, with a
// finite value and weight.
func checkExplanation(t *testing.T, hit map[string]any) {
	t.Helper()
	e, ok := hit["explain"].(map[string]any)
	if !ok {
		t.Errorf("hit %v has no explanation", hit["id"])
		return
	}
	if p, _ := e["profile"].(string); p == "" {
		t.Errorf("hit %v: explanation names no profile: %v", hit["id"], e)
	}
	features, _ := e["features"].([]any)
	if len(features) == 0 {
		t.Errorf("hit %v: explanation has no features: %v", hit["id"], e)
	}
	for _, f := range features {
		f, _ := f.(map[string]any)
		name, _ := f["name"].(string)
		phase, _ := f["phase"].(string)
		if name == "" || phase == "" {
			t.Errorf("hit %v: a feature without its name or phase: %v", hit["id"], f)
		}
		for _, k := range []string{"value", "weight"} {
			if v, ok := f[k].(float64); !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("hit %v: feature %q has %s %v", hit["id"], name, k, f[k])
			}
		}
	}
}
