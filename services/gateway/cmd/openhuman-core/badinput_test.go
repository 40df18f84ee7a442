package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBadInput sends malformed messages to one real server process. Each
// must get the right JSON-RPC error (or an isError tool result), and the
// server must answer the ping that follows: bad input never ends a session.
func TestBadInput(t *testing.T) {
	huge := strings.Repeat("x", 2<<20)
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	cases := []struct {
		name, line string
		code       int    // expected JSON-RPC error code; 0 = isError result; -1 = no response
		msg        string // substring of the error message or tool text
	}{
		{"invalid JSON", `{not json`, -32700, "Parse error"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, "Parse error"},
		{"number message", `42`, -32600, "JSON object"},
		{"string message", `"hello"`, -32600, "JSON object"},
		{"null message", `null`, -32600, "JSON object"},
		{"empty batch", `[]`, -32600, "empty batch"},
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, -32600, `"jsonrpc" must be "2.0"`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, `"jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "id must be a string or a number"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "id must not be null"},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, -32600, `"method" is missing`},
		{"number method", `{"jsonrpc":"2.0","id":1,"method":7}`, -32600, `"method" must be a non-empty string`},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"foo/bar"}`, -32601, "Method not found: foo/bar"},
		{"prompts/list", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, -32601, "prompts/list"},
		{"prompts/get", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}`, -32601, "prompts/get"},
		{"2 MiB method name", `{"jsonrpc":"2.0","id":1,"method":"` + huge + `"}`, -32601, "Method not found"},
		{"2 MiB invalid JSON", `{"jsonrpc":` + huge, -32700, "Parse error"},
		{"initialize params string", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"v1"}`, -32602, "initialize takes"},
		{"tools/call without params", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, -32602, "tools/call takes {name, arguments}"},
		{"tools/call params array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, -32602, "tools/call takes"},
		{"tool name not string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, -32602, "tools/call takes"},
		{"unknown tool", call("no.such_tool", `{}`), -32602, "unknown MCP tool `no.such_tool`"},
		{"arguments array", call("memory.recall", `[]`), -32602, "tool arguments must be a JSON object, not an array"},
		{"arguments number", call("memory.recall", `12`), -32602, "not a number"},
		{"missing required", call("memory.recall", `{}`), -32602, "missing required argument `question`"},
		{"blank required", call("memory.recall", `{"question":"   "}`), -32602, "argument `question` must not be blank"},
		{"unknown argument", call("memory.recall", `{"question":"q","bogus":true}`), -32602, "unexpected argument `bogus`"},
		{"wrong type", call("memory.list", `{"limit":"ten"}`), -32602, "argument `limit` must be an integer, not a string"},
		{"fractional integer", call("memory.list", `{"limit":2.5}`), -32602, "whole number"},
		{"huge number", call("memory.list", `{"limit":1e309}`), -32602, "argument `limit` is out of range"},
		{"limit too large", call("memory.fetch", `{"query":"q","limit":1000}`), -32602, "between 1 and 100"},
		{"negative confidence", call("memory.learn", `{"text":"t","confidence":-0.5}`), -32602, "argument `confidence` is out of range"},
		{"bad kind", call("memory.learn", `{"text":"t","kind":"gossip"}`), -32602, "argument `kind` must be one of"},
		{"filter array", call("memory.list", `{"filter":[]}`), -32602, "argument `filter` must be an object, not an array"},
		{"unknown filter field", call("memory.list", `{"filter":{"colour":"red"}}`), -32602, "unexpected filter field `colour`"},
		{"bad timestamp", call("memory.list", `{"filter":{"observed_after":"last tuesday"}}`), -32602, "RFC 3339"},
		{"2 MiB text", call("memory.learn", `{"text":"`+huge+`"}`), -32602, "argument `text` is too long: 2097152 characters, the limit is 65536"},
		{"2 MiB argument name", call("memory.list", `{"`+huge+`":1}`), -32602, "unexpected argument"},
		{"no ids", call("memory.forget", `{"ids":[]}`), -32602, "argument `ids` must hold 1 to 100 items, got 0"},
		{"too many ids", call("memory.forget", `{"ids":[`+strings.TrimSuffix(strings.Repeat(`"a",`, 101), ",")+`]}`), -32602, "got 101"},
		{"bad cursor", call("memory.list", `{"cursor":"not-a-cursor"}`), -32602, "argument `cursor` is not a cursor this server made"},
		{"unknown mode", call("memory.fetch", `{"query":"q","mode":"semantic"}`), -32602, "argument `mode` must be one of keyword, vector, hybrid"},
		{"vector mode before anything is embedded", call("memory.fetch", `{"query":"q","mode":"vector"}`), 0, "memory.fetch failed: no item has a vector"},
		{"unknown resource", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"openhuman://prompts/nope"}}`, -32002, "no resource"},
		{"resource without uri", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}`, -32602, "resources/read takes {uri}"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, -1, ""},
		{"client response", `{"jsonrpc":"2.0","id":99,"result":{}}`, -1, ""},
	}
	if len(cases) < 25 {
		t.Fatalf("only %d cases", len(cases))
	}
	p := startMCP(t, t.TempDir())
	p.initialize("bad-input")
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pingID := 1000 + i
			p.send(tc.line)
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, pingID))
			var got []string
			pinged := false
			want := 1
			if tc.code == -1 {
				want = 0
			}
			for !pinged || len(got) < want {
				select {
				case l, ok := <-p.lines:
					if !ok {
						t.Fatalf("the server exited\nstderr:\n%s", p.stderr)
					}
					if l == fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, pingID) {
						pinged = true
						continue
					}
					got = append(got, l)
				case <-time.After(30 * time.Second):
					t.Fatalf("waited 30s; got %d lines, ping answered: %v", len(got), pinged)
				}
			}
			if len(got) != want {
				t.Fatalf("%d responses, want %d: %v", len(got), want, got)
			}
			if want == 0 {
				return
			}
			if len(got[0]) > 4096 {
				t.Errorf("response is %d bytes: it echoes the bad input", len(got[0]))
			}
			var resp struct {
				ID     any `json:"id"`
				Result *struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
				Error *struct {
					Code    int            `json:"code"`
					Message string         `json:"message"`
					Data    map[string]any `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(got[0]), &resp); err != nil {
				t.Fatalf("not a JSON-RPC response: %.300s", got[0])
			}
			switch {
			case tc.code == 0:
				if resp.Result == nil || !resp.Result.IsError || !strings.Contains(resp.Result.Content[0].Text, tc.msg) {
					t.Errorf("want an isError result containing %q, got %.300s", tc.msg, got[0])
				}
			case resp.Error == nil:
				t.Errorf("want error %d, got %.300s", tc.code, got[0])
			default:
				if resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) {
					t.Errorf("want %d %q, got %d %q", tc.code, tc.msg, resp.Error.Code, resp.Error.Message)
				}
				if tc.code == -32602 && strings.HasPrefix(tc.line, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory`) && resp.Error.Data["code"] != "INVALID_REQUEST" {
					t.Errorf("data.code = %v, want INVALID_REQUEST", resp.Error.Data["code"])
				}
			}
		})
	}
	t.Run("still serves tools afterwards", func(t *testing.T) {
		res := p.tool(5000, "memory.learn", map[string]any{"text": "The server survived the bad input."})
		if res["id"] == "" {
			t.Fatal(res)
		}
	})
	t.Run("batch mixes answers and errors", func(t *testing.T) {
		p.send(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},7,{"jsonrpc":"2.0","id":"b","method":"nope"}]`)
		var arr []map[string]any
		l := <-p.lines
		if err := json.Unmarshal([]byte(l), &arr); err != nil || len(arr) != 3 {
			t.Fatalf("batch response %s", l)
		}
		if arr[0]["id"] != "a" || arr[0]["result"] == nil || arr[1]["error"] == nil || arr[2]["id"] != "b" {
			t.Errorf("batch response %s", l)
		}
	})
	if code := p.closeAndWait(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
