package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

func validate(t *testing.T, tool, raw string) (map[string]any, error) {
	t.Helper()
	tl, ok := ToolByName(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	args, err := DecodeArguments(json.RawMessage(raw))
	if err != nil {
		return nil, err
	}
	return args, tl.Input.Validate(args)
}

func TestValidateRejects(t *testing.T) {
	big := `"` + strings.Repeat("x", MaxLearnText+1) + `"`
	for _, tc := range []struct {
		name, tool, args, field, msg string
	}{
		{"missing required", "memory.recall", `{}`, "question", "missing required argument `question`"},
		{"blank required", "memory.recall", `{"question":"  "}`, "question", "must not be blank"},
		{"zero-width only", "memory.learn", `{"text":"\u200b\u200c \u200d\u2060\ufeff"}`, "text", "must not be blank"},
		{"unknown argument", "memory.recall", `{"question":"q","bogus":1}`, "bogus", "unexpected argument `bogus`"},
		{"wrong type", "memory.recall", `{"question":42}`, "question", "must be a string, not a number"},
		{"limit too big", "memory.fetch", `{"query":"q","limit":1000}`, "limit", "out of range: 1000 must be between 1 and 100"},
		{"limit zero", "memory.list", `{"limit":0}`, "limit", "between 1 and 100"},
		{"limit fraction", "memory.list", `{"limit":2.5}`, "limit", "whole number"},
		{"limit huge", "memory.list", `{"limit":1e400}`, "limit", "out of range"},
		{"limit string", "memory.list", `{"limit":"10"}`, "limit", "must be an integer, not a string"},
		{"confidence above 1", "memory.learn", `{"text":"t","confidence":1.5}`, "confidence", "between 0 and 1"},
		{"bad kind", "memory.learn", `{"text":"t","kind":"opinion"}`, "kind", "must be one of preference, fact"},
		{"text too long", "memory.learn", `{"text":` + big + `}`, "text", "too long"},
		{"array for object", "memory.list", `{"filter":[]}`, "filter", "must be an object, not an array"},
		{"unknown filter field", "memory.list", `{"filter":{"color":"red"}}`, "filter.color", "unexpected filter field `color`"},
		{"bad timestamp", "memory.list", `{"filter":{"observed_after":"yesterday"}}`, "filter.observed_after", "RFC 3339"},
		{"bad kinds item", "memory.list", `{"filter":{"kinds":["note"]}}`, "filter.kinds[0]", "must be one of document"},
		{"empty ids", "memory.forget", `{"ids":[]}`, "ids", "must hold 1 to 100 items, got 0"},
		{"too many ids", "memory.forget", `{"ids":[` + strings.Repeat(`"a",`, 100) + `"a"]}`, "ids", "got 101"},
		{"id not string", "memory.forget", `{"ids":[1]}`, "ids[0]", "must be a string"},
		{"args array", "memory.list", `[]`, "", "must be a JSON object, not an array"},
		{"args number", "memory.list", `7`, "", "must be a JSON object, not a number"},
		{"args for no-arg tool", "agent.list_subagents", `{"x":1}`, "x", "it takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := validate(t, tc.tool, tc.args)
			if err == nil {
				t.Fatalf("accepted %s", clip(tc.args))
			}
			e := AsError(err)
			if e.Code != CodeInvalidRequest {
				t.Errorf("code %s, want INVALID_REQUEST", e.Code)
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
			if len(e.Message) > 400 {
				t.Errorf("message is %d bytes long; echoed input must be clipped", len(e.Message))
			}
			if tc.field != "" && e.Data["field"] != tc.field {
				t.Errorf("field %v, want %s", e.Data["field"], tc.field)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, tc := range []struct{ name, tool, args string }{
		{"absent arguments", "memory.list", ``},
		{"null arguments", "memory.list", `null`},
		{"string holding object", "memory.recall", `"{\"question\":\"q\"}"`},
		{"null optional dropped", "memory.fetch", `{"query":"q","limit":null,"filter":null}`},
		{"integral float", "memory.list", `{"limit":10.0}`},
		{"every filter field", "memory.list", `{"filter":{"workspace":"w","folder":"f","file_path":"p","language":"go","repo":"r","commit":"c","url":"u","thread_id":"t","agent_id":"a","kinds":["learning"],"sources":["agent","client"],"tags_any":["x"],"observed_after":"2026-01-01T00:00:00Z","observed_before":"2026-12-31T23:59:59.5+02:00"}}`},
		{"blank cursor", "memory.list", `{"cursor":""}`},
		{"full learn", "memory.learn", `{"text":"t","kind":"preference","confidence":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, err := validate(t, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range args {
				if v == nil {
					t.Errorf("null %s kept", k)
				}
			}
		})
	}
}

func TestCatalogIsConsistent(t *testing.T) {
	for _, profile := range []string{ProfileV2, ProfileV1} {
		seen := map[string]bool{}
		for _, tl := range ToolsFor(profile) {
			if seen[tl.Name] {
				t.Errorf("%s: duplicate tool %s", profile, tl.Name)
			}
			seen[tl.Name] = true
		}
	}
	rpcs, subjects := map[string]bool{}, map[string]bool{}
	for _, tl := range Tools() {
		if tl.RPC != "" && rpcs[tl.RPC] {
			t.Errorf("duplicate RPC method %s", tl.RPC)
		}
		if subjects[tl.Subject()] {
			t.Errorf("duplicate subject %s", tl.Subject())
		}
		rpcs[tl.RPC], subjects[tl.Subject()] = true, true
		if tl.Input == nil || tl.Input.Type != "object" || tl.Input.AdditionalProperties == nil || *tl.Input.AdditionalProperties {
			t.Errorf("%s: input must be a closed object schema", tl.Name)
		}
		for _, r := range tl.Input.Required {
			if _, ok := tl.Input.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", tl.Name, r)
			}
		}
		if tl.Description == "" || tl.Use == "" || tl.Service == "" || tl.Method == "" {
			t.Errorf("%s: description, use, service and method are all needed", tl.Name)
		}
		if !strings.HasPrefix(tl.Use, tl.Name+" ") {
			t.Errorf("%s: Use must start with the tool name, got %q", tl.Name, tl.Use)
		}
		// MCP tools that are not read-only pass the act gate; JSON-RPC-only
		// methods (deciding approvals) are the operator's, not a model's.
		if !tl.In(ProfileRPC) && tl.Acts == (tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint) {
			t.Errorf("%s: Acts and readOnlyHint disagree", tl.Name)
		}
		if tl.Writes && !tl.Acts {
			t.Errorf("%s: a tool that writes must pass the act gate", tl.Name)
		}
	}
}

func TestObjectSchemasAlwaysHaveProperties(t *testing.T) {
	tl, _ := ToolByName("agent.list_subagents")
	b, err := json.Marshal(tl.Input)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"type":"object","additionalProperties":false,"properties":{}}` {
		t.Errorf("got %s", b)
	}
}

func TestEveryToolHasAnOutputSchema(t *testing.T) {
	for _, tl := range Tools() {
		if tl.Output == nil || tl.Output.Type != "object" || len(tl.Output.Required) == 0 {
			t.Errorf("%s: output schema missing or empty", tl.Name)
			continue
		}
		for _, r := range tl.Output.Required {
			if _, ok := tl.Output.Properties[r]; !ok {
				t.Errorf("%s: required output %s is not a property", tl.Name, r)
			}
		}
	}
}

func TestProfiles(t *testing.T) {
	var v1 []string
	for _, tl := range ToolsFor(ProfileV1) {
		v1 = append(v1, tl.Name)
	}
	if strings.Join(v1, " ") != "memory.search memory.recall tree.read_chunk tree.browse tree.top_entities tree.list_sources" {
		t.Errorf("v1 tools: %v", v1)
	}
	v2recall, _ := ToolFor(ProfileV2, "memory.recall")
	v1recall, _ := ToolFor(ProfileV1, "memory.recall")
	if _, ok := v2recall.Input.Properties["question"]; !ok {
		t.Error("v2 memory.recall takes question")
	}
	if _, ok := v1recall.Input.Properties["query"]; !ok {
		t.Error("v1 memory.recall takes query")
	}
	if _, ok := ToolFor(ProfileV2, "memory.search"); ok {
		t.Error("memory.search is v1 only")
	}
}
