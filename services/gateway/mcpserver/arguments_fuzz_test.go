package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// FuzzCheckArguments gives every tool of the catalog arbitrary arguments:
// checking never panics, a refusal is INVALID_REQUEST with a message, and
// what is accepted conforms to the tool's inputSchema as an independent
// JSON Schema implementation reads it (violations).
func FuzzCheckArguments(f *testing.F) {
	tools := contract.Tools()
	schemas := make([]map[string]any, len(tools))
	for i, t := range tools {
		raw, _ := json.Marshal(t.Input)
		if err := json.Unmarshal(raw, &schemas[i]); err != nil {
			f.Fatalf("%s: inputSchema: %v", t.Name, err)
		}
	}
	for i, args := range []string{
		`{"text":"The user prefers tabs.","kind":"preference","confidence":0.9}`,
		`{"ids":["a","b"]}`, `{"query":"deploy","limit":5,"filter":{"kinds":["learning"]}}`,
		`{"query":" "}`, `{"limit":1e400}`, `"{\"query\":\"x\"}"`, `null`, ``, `[]`, `{"limit":-1,"x":1}`,
		`{"agent_id":"librarian","prompt":"find it"}`, `{"id":"p1","approve":true}`, `{"k":3.5}`,
	} {
		f.Add(byte(i), []byte(args))
	}
	f.Fuzz(func(t *testing.T, pick byte, args []byte) {
		i := int(pick) % len(tools)
		tool := tools[i]
		obj, err := tool.CheckArguments(args)
		if err != nil {
			if contract.ErrorCode(err) != contract.CodeInvalidRequest || contract.ErrorMessage(err) == "" {
				t.Fatalf("%s %q: refused with %v (code %s)", tool.Name, args, err, contract.ErrorCode(err))
			}
			return
		}
		// The checked map holds json.Numbers; a client's decoder sees numbers.
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("%s %q: accepted arguments do not encode: %v", tool.Name, args, err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if bad := violations(schemas[i], v); len(bad) > 0 {
			t.Fatalf("%s accepted %q: %v", tool.Name, args, bad)
		}
	})
}
