package contract_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// resultOf is the type each tool's service returns, by the service and
// method that serve the tool, with what a value of it never holds for that
// tool taken out.
var resultOf = map[string]func() any{
	"search.web_search":        searchPage,
	"search.web_answer":        func() any { return filled[contract.WebPage]() },
	"search.searxng_search":    searchPage,
	"memory.recall":            func() any { return filled[contract.RecallResult]() },
	"memory.fetch":             func() any { return filled[contract.FetchResult]() },
	"memory.list":              func() any { return filled[contract.ListResult]() },
	"memory.learn":             func() any { return filled[contract.LearnResult]() },
	"memory.forget":            func() any { return filled[contract.ForgetResult]() },
	"memory.tree_search":       func() any { return filled[contract.ChunkList]() },
	"memory.tree_recall":       func() any { return filled[contract.ScoredChunks]() },
	"memory.tree_get_chunk":    func() any { return filled[contract.FullChunk]() },
	"memory.tree_list_chunks":  func() any { return filled[contract.ChunkList]() },
	"memory.tree_top_entities": func() any { return filled[contract.EntityList]() },
	"memory.tree_list_sources": func() any { return filled[contract.SourceList]() },
	"agents.list_tools":        func() any { return filled[contract.CoreToolList]() },
	"agents.tool_instructions": func() any { return filled[contract.CoreInstructions]() },
	"agents.list_subagents":    func() any { return filled[contract.AgentList]() },
	"agents.run_subagent":      func() any { return filled[contract.AgentRun]() },
	"agents.approval_list":     func() any { return filled[contract.ApprovalQueue]() },
	"agents.approval_decide":   func() any { return filled[contract.ApprovalDecided]() },
	"memory.export":            func() any { return filled[contract.ExportResult]() },
}

// searchPage is a web page of results: a search never answers.
func searchPage() any {
	p := filled[contract.WebPage]()
	p.Answer, p.Model = "", ""
	return p
}

// TestOutputSchemasDescribeTheirResultTypes: a value of a tool's result
// type with every field set conforms to the tool's output schema, and the
// schema declares every member it holds.
func TestOutputSchemasDescribeTheirResultTypes(t *testing.T) {
	for _, p := range []string{contract.ProfileV2, contract.ProfileV1, contract.ProfileRPC} {
		for _, tl := range contract.ToolsFor(p) {
			key := tl.Service + "." + tl.Method
			mk, ok := resultOf[key]
			if !ok {
				t.Errorf("%s (%s): no result type: name it in resultOf", tl.Name, key)
				continue
			}
			b, err := contract.Marshal(mk())
			if err != nil {
				t.Fatal(err)
			}
			obj, err := contract.DecodeArguments(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range undeclared("", tl.Output, obj) {
				t.Errorf("%s: %s is not in the output schema", key, path)
			}
			if err := tl.Output.Validate(obj); err != nil {
				t.Errorf("%s: %v\n%s", key, err, b)
			}
		}
	}
}

// undeclared lists the members of v that s does not describe, where s
// describes members at all.
func undeclared(path string, s *contract.Schema, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if len(s.Properties) == 0 {
			return nil
		}
		for k, e := range v {
			p, ok := s.Properties[k]
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, undeclared(path+"."+k, p, e)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, undeclared(fmt.Sprintf("%s[%d]", path, i), s.Items, e)...)
		}
	}
	return out
}

// filled is a T with every field set, recursively.
func filled[T any]() T {
	var v T
	setAll(reflect.ValueOf(&v).Elem())
	return v
}

func setAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*contract.Schema]() {
			v.Set(reflect.ValueOf(contract.Object("", nil, nil)))
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		setAll(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		setAll(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(any("v")))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				setAll(v.Field(i))
			}
		}
	}
}
