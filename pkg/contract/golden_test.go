package contract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.golden.json from the catalog")

// published is every schema the server publishes or enforces: each tool's
// input and output as tools/list and the registry serve them, and the
// input of each bus method that is not a tool. Keys are profile/name, so
// the two memory.recall tools stay apart.
func published(t *testing.T) []byte {
	t.Helper()
	all := map[string]any{}
	for _, p := range []string{ProfileV2, ProfileV1, ProfileRPC} {
		for _, tl := range ToolsFor(p) {
			all[p+"/"+tl.Name] = map[string]any{"input": tl.Input, "output": tl.Output}
		}
	}
	for name, ep := range map[string]Endpoint{
		"ingest": IngestEndpoint, "conversation": ConversationEndpoint, "resources_list": ResourcesListEndpoint,
		"resources_read": ResourcesReadEndpoint, "search_health": SearchHealthEndpoint, "run_result": RunResultEndpoint,
		"import": ImportEndpoint,
	} {
		all["bus/"+name] = map[string]any{"input": ep.Input}
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	// A round trip through any sorts every object's keys: the golden
	// compares content, not the order a map or a struct happens to write.
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestSchemasAsPublished holds the published schemas to the golden file:
// the arguments a tool takes, their constraints and its results change
// only on purpose (go test -run SchemasAsPublished -update).
func TestSchemasAsPublished(t *testing.T) {
	got := published(t)
	path := filepath.Join("testdata", "schemas.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("published schemas differ from %s at line %d:\n got: %s\nwant: %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("published schemas differ from %s in length: %d lines, want %d", path, len(gl), len(wl))
	}
}
