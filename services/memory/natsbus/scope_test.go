package natsbus_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

var (
	admin   = contract.CallContext{Source: "mcp:admin", Transport: contract.TransportMCPStdio}
	callerA = contract.CallContext{Source: "http:a", Transport: contract.TransportJSONRPC, Token: "a", Workspaces: []string{"a"}}
	callerB = contract.CallContext{Source: "http:b", Transport: contract.TransportJSONRPC, Token: "b", Workspaces: []string{"b"}}
)

// seed stores, as an unlimited caller, the items of the workspaces named:
// learnings, a file ingested into each under the same path, and for b a
// conversation. The same calls in the same order make the same items.
func seed(t *testing.T, r *rig, workspaces ...string) {
	t.Helper()
	learn := map[string][]string{
		"a": {"Lena owns the Orbit roadmap for Acme.", "The Orbit launch is planned for March; ask @lena about it."},
		"b": {"The Orbit roadmap for Beta is owned by Lena and Raj, lena@beta.test.", "Beta's Orbit budget review with Lena is on Friday.",
			"Orbit Orbit roadmap roadmap Lena Lena: Beta's notes repeat every word."},
		"": {"Orbit notes from Lena that belong to no workspace."},
	}
	file := map[string]string{
		"a": "# Orbit\n\nLena leads Orbit at Acme. The roadmap lives in the wiki.",
		"b": "# Orbit\n\nRaj leads Orbit at Beta with Lena (lena@beta.test). The Orbit roadmap, the Orbit budget and @raj.",
		"":  "# Orbit\n\nA file of nobody's workspace about the Orbit roadmap.",
	}
	for _, ws := range workspaces {
		for _, text := range learn[ws] {
			r.must(t, contract.MemoryLearn.Endpoint(), withWorkspace(map[string]any{"text": text}, ws), admin)
		}
		r.must(t, contract.IngestEndpoint, map[string]any{"files": []map[string]any{withWorkspace(map[string]any{
			"source_id": "/notes/orbit.md", "source_kind": "file", "display_name": "orbit.md (" + ws + ")",
			"content": file[ws], "language": "markdown",
		}, ws)}}, admin)
		if ws == "b" {
			r.must(t, contract.ConversationEndpoint, map[string]any{"turns": []map[string]any{
				{"thread_id": "t1", "speaker": "Raj", "text": "The Orbit roadmap slips a week, Lena.", "workspace": "b"},
			}}, admin)
		}
	}
}

// withWorkspace adds workspace to args unless it is none.
func withWorkspace(args map[string]any, ws string) map[string]any {
	if ws != "" {
		args["workspace"] = ws
	}
	return args
}

// snapshot is what every read tool answers cc, without what depends on
// when items were written (timestamps) or where in the file they are.
func snapshot(t *testing.T, r *rig, cc contract.CallContext) map[string]any {
	t.Helper()
	out := map[string]any{}
	hits := func(res map[string]any, key string) []string {
		var s []string
		for _, h := range list(res, key) {
			s = append(s, fmt.Sprintf("%v %v ws=%v", h["id"], h["score"], workspaceOf(h)))
		}
		return s
	}
	for _, mode := range []string{"keyword", "vector", "hybrid"} {
		res := r.must(t, contract.MemoryFetch.Endpoint(), map[string]any{"query": "Orbit roadmap Lena", "mode": mode, "limit": 100}, cc)
		out["fetch "+mode] = hits(res, "hits")
		out["fetch "+mode+" warnings"] = res["warnings"]
		res = r.must(t, contract.MemoryFetch.Endpoint(), map[string]any{"query": "Orbit roadmap Lena", "mode": mode, "limit": 2}, cc)
		out["fetch "+mode+" paged"] = res["next_cursor"] != nil
	}
	out["fetch typo"] = hits(r.must(t, contract.MemoryFetch.Endpoint(), map[string]any{"query": "orbitt roadmapp"}, cc), "hits")
	out["list"] = hits(r.must(t, contract.MemoryList.Endpoint(), map[string]any{"limit": 100}, cc), "items")
	rec := r.must(t, contract.MemoryRecall.Endpoint(), map[string]any{"question": "Who owns the Orbit roadmap?"}, cc)
	var cited []string
	for _, c := range list(rec, "citations") {
		cited = append(cited, fmt.Sprintf("%v %v ws=%v", c["id"], c["score"], workspaceOf(c)))
	}
	out["recall"] = []any{rec["answer"], cited}
	for _, def := range []contract.Tool{contract.TreeSearch, contract.TreeRecall} {
		res := r.must(t, def.Endpoint(), map[string]any{"query": "Orbit roadmap Lena", "k": 50}, cc)
		out[def.Name] = []any{res["total"], res["scores"], chunkIDs(res)}
	}
	for _, args := range []map[string]any{{}, {"query": "roadmap"}, {"entity_ids": []string{"term:lena", "handle:lena"}}, {"k": 1, "offset": 1}} {
		res := r.must(t, contract.TreeBrowse.Endpoint(), args, cc)
		out[fmt.Sprint("browse ", args)] = []any{res["total"], chunkIDs(res)}
	}
	out["top_entities"] = r.must(t, contract.TreeTopEntities.Endpoint(), map[string]any{"k": 100}, cc)["entities"]
	var sources []string
	for _, s := range list(r.must(t, contract.TreeListSources.Endpoint(), map[string]any{"user_email_hint": "lena@beta.test"}, cc), "sources") {
		sources = append(sources, fmt.Sprintf("%v|%v|%v|%v|%v", s["source_id"], s["source_kind"], s["display_name"], s["chunk_count"], s["mentions_user"]))
	}
	out["list_sources"] = sources
	return out
}

func chunkIDs(res map[string]any) []string {
	var ids []string
	for _, c := range list(res, "chunks") {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

// A caller limited to workspace a gets from every read tool exactly what an
// unlimited caller gets from a memory that holds a's items only: the same
// items, scores, totals and counts. So nothing it sees tells it that other
// workspaces' items exist, let alone what they say.
func TestScopedReadsSeeOnlyTheirWorkspace(t *testing.T) {
	mixed := mustServe(t, nil)
	seed(t, mixed, "b", "a", "")
	alone := mustServe(t, nil)
	seed(t, alone, "a")

	got, want := snapshot(t, mixed, callerA), snapshot(t, alone, admin)
	for key := range want {
		if !reflect.DeepEqual(got[key], want[key]) {
			t.Errorf("%s:\nscoped to a: %v\na alone:     %v", key, got[key], want[key])
		}
	}
	// The comparison means something only if a's items are found at all and
	// the others' would be, unscoped.
	if n := len(want["list"].([]string)); n != 3 {
		t.Fatalf("a holds %d items", n)
	}
	everything := snapshot(t, mixed, admin)
	if n := len(everything["list"].([]string)); n != 10 {
		t.Errorf("an unlimited caller lists %d items, want 10: %v", n, everything["list"])
	}
	seen := map[string]bool{}
	for _, h := range everything["fetch hybrid"].([]string) {
		seen[strings.Fields(h)[2]] = true
	}
	if !seen["ws=a"] || !seen["ws=b"] || !seen["ws="] {
		t.Errorf("an unlimited caller's fetch found workspaces %v", seen)
	}
	for key, v := range got {
		if s, ok := v.([]string); ok {
			for _, h := range s {
				if f := strings.Fields(h); len(f) == 3 && f[2] != "ws=a" {
					t.Errorf("%s showed an item of another workspace: %s", key, h)
				}
			}
		}
	}
}

// Forgetting another workspace's item by its id is forgetting an id that
// was never stored: the same answer, and the item stays.
func TestScopedForgetLeavesOtherWorkspaces(t *testing.T) {
	r := mustServe(t, nil)
	seed(t, r, "a", "b")
	var idA, idB string
	for _, h := range list(r.must(t, contract.MemoryList.Endpoint(), map[string]any{"limit": 100}, admin), "items") {
		switch workspaceOf(h) {
		case "a":
			idA = h["id"].(string)
		case "b":
			idB = h["id"].(string)
		}
	}
	never := strings.Repeat("0", 32)
	res := r.must(t, contract.MemoryForget.Endpoint(), map[string]any{"ids": []string{idB, never}}, callerA)
	if res["forgotten"] != 0.0 || fmt.Sprint(res["not_found"]) != fmt.Sprint([]string{idB, never}) {
		t.Errorf("a forgetting b's item: %v", res)
	}
	if _, err := r.call(t, contract.TreeReadChunk.Endpoint(), map[string]any{"chunk_id": idB}, admin); err != nil {
		t.Errorf("b's item is gone: %v", err)
	}
	_, errHidden := r.call(t, contract.TreeReadChunk.Endpoint(), map[string]any{"chunk_id": idB}, callerA)
	_, errAbsent := r.call(t, contract.TreeReadChunk.Endpoint(), map[string]any{"chunk_id": never}, callerA)
	if contract.ErrorCode(errHidden) != contract.CodeNotFound ||
		strings.ReplaceAll(contract.ErrorMessage(errHidden), idB, "ID") != strings.ReplaceAll(contract.ErrorMessage(errAbsent), never, "ID") {
		t.Errorf("reading b's item as a: %v; reading an id never stored: %v", errHidden, errAbsent)
	}
	fetchA := func() string {
		var ids []string
		for _, h := range list(r.must(t, contract.MemoryFetch.Endpoint(), map[string]any{"query": "Orbit Acme launch", "limit": 100}, callerA), "hits") {
			ids = append(ids, h["id"].(string))
		}
		return strings.Join(ids, " ")
	}
	if !strings.Contains(fetchA(), idA) {
		t.Fatalf("a does not find its item %s", idA)
	}
	res = r.must(t, contract.MemoryForget.Endpoint(), map[string]any{"ids": []string{idA, idB}}, callerA)
	if res["forgotten"] != 1.0 || fmt.Sprint(res["not_found"]) != fmt.Sprint([]string{idB}) {
		t.Errorf("a forgetting its own item and b's: %v", res)
	}
	// What a scope holds is followed as it changes.
	if strings.Contains(fetchA(), idA) {
		t.Errorf("a still finds the item it forgot")
	}
	added := r.must(t, contract.MemoryLearn.Endpoint(), map[string]any{"text": "The Acme launch party is on Orbit day."}, callerA)["id"].(string)
	if !strings.Contains(fetchA(), added) {
		t.Errorf("a does not find the item it just learned")
	}
	res = r.must(t, contract.MemoryForget.Endpoint(), map[string]any{"ids": []string{idB}}, admin)
	if res["forgotten"] != 1.0 {
		t.Errorf("an unlimited caller forgetting b's item: %v", res)
	}
}

// A limited caller writes only into its workspaces; limited to one, that is
// where what it writes without naming one goes.
func TestScopedWrites(t *testing.T) {
	r := mustServe(t, nil)
	learn := contract.MemoryLearn.Endpoint()

	_, err := r.call(t, learn, map[string]any{"text": "Beta's launch is off.", "workspace": "b"}, callerA)
	if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(contract.ErrorMessage(err), "argument `workspace`") ||
		!strings.Contains(contract.ErrorMessage(err), "it may write to: a") {
		t.Errorf("learning into b as a: %v", err)
	}
	res := r.must(t, learn, map[string]any{"text": "Acme's launch is on."}, callerA)
	items := list(r.must(t, contract.MemoryList.Endpoint(), map[string]any{}, admin), "items")
	if len(items) != 1 || items[0]["id"] != res["id"] || workspaceOf(items[0]) != "a" {
		t.Errorf("learning with no workspace as a stored %v", items)
	}
	if res := r.must(t, learn, map[string]any{"text": "Acme's launch is on.", "workspace": "a"}, callerA); res["replayed"] != true {
		t.Errorf("naming the default workspace is not the same learning: %v", res)
	}

	two := contract.CallContext{Source: "http:ab", Token: "ab", Workspaces: []string{"a", "c"}}
	_, err = r.call(t, learn, map[string]any{"text": "Which workspace?"}, two)
	if contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(contract.ErrorMessage(err), "argument `workspace` is required") ||
		!strings.Contains(contract.ErrorMessage(err), "(a, c)") {
		t.Errorf("learning with no workspace as a caller of two: %v", err)
	}
	if _, err := r.call(t, learn, map[string]any{"text": "Into c.", "workspace": "c"}, two); err != nil {
		t.Errorf("learning into one of its workspaces: %v", err)
	}

	file := func(ws string) map[string]any {
		return withWorkspace(map[string]any{"source_id": "/x.md", "source_kind": "file", "display_name": "x.md", "content": "Acme ships on Monday."}, ws)
	}
	_, err = r.call(t, contract.IngestEndpoint, map[string]any{"files": []any{file("a"), file("b")}}, callerA)
	if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(contract.ErrorMessage(err), "argument `files[1].workspace`") {
		t.Errorf("ingesting into b as a: %v", err)
	}
	r.must(t, contract.IngestEndpoint, map[string]any{"files": []any{file("")}}, callerA)
	_, err = r.call(t, contract.ConversationEndpoint, map[string]any{"turns": []any{
		map[string]any{"thread_id": "t", "text": "Fine by me.", "workspace": "a"},
		map[string]any{"thread_id": "t", "text": "Not by me.", "workspace": "b"},
	}}, callerA)
	if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(contract.ErrorMessage(err), "argument `turns[1].workspace`") {
		t.Errorf("a conversation into b as a: %v", err)
	}
	r.must(t, contract.ConversationEndpoint, map[string]any{"turns": []any{map[string]any{"thread_id": "t", "text": "Fine by me."}}}, callerA)

	// Refused calls stored nothing; the accepted ones went to a (and c).
	got := map[string]int{}
	for _, h := range list(r.must(t, contract.MemoryList.Endpoint(), map[string]any{"limit": 100}, admin), "items") {
		got[workspaceOf(h)]++
	}
	if fmt.Sprint(got) != "map[a:3 c:1]" {
		t.Errorf("stored per workspace: %v", got)
	}
	if n := len(list(r.must(t, contract.MemoryList.Endpoint(), map[string]any{}, callerB), "items")); n != 0 {
		t.Errorf("b lists %d items", n)
	}
}

// A cursor carries a position, not a permission: used under another scope
// it is refused, and under its own it pages through the same items only.
func TestScopedCursors(t *testing.T) {
	r := mustServe(t, nil)
	seed(t, r, "a", "b")
	for _, def := range []contract.Tool{contract.MemoryFetch, contract.MemoryList} {
		args := map[string]any{"limit": 1}
		if def.Name == contract.MemoryFetch.Name {
			args["query"] = "Orbit roadmap Lena"
		}
		seen := 0
		for {
			res := r.must(t, def.Endpoint(), args, callerA)
			for _, h := range list(res, map[bool]string{true: "hits", false: "items"}[def.Name == contract.MemoryFetch.Name]) {
				if workspaceOf(h) != "a" {
					t.Errorf("%s paged onto %v", def.Name, h)
				}
				seen++
			}
			next, ok := res["next_cursor"].(string)
			if !ok {
				break
			}
			args["cursor"] = next
			if _, err := r.call(t, def.Endpoint(), args, callerB); contract.ErrorCode(err) != contract.CodeInvalidRequest ||
				!strings.Contains(contract.ErrorMessage(err), "argument `cursor`") {
				t.Errorf("%s: a's cursor used by b: %v", def.Name, err)
			}
			if _, err := r.call(t, def.Endpoint(), args, admin); contract.ErrorCode(err) != contract.CodeInvalidRequest {
				t.Errorf("%s: a's cursor used by an unlimited caller: %v", def.Name, err)
			}
		}
		if seen != 3 {
			t.Errorf("%s paged through %d of a's 3 items", def.Name, seen)
		}
	}
}
