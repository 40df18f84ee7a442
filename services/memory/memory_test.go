package memory_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

func mustOpenService(tb testing.TB) *memory.Service {
	tb.Helper()
	st := sqlite.New(filepath.Join(tb.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	clock := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	svc.SetClock(func() time.Time { clock = clock.Add(time.Second); return clock })
	return svc
}

var cursor = contract.CallContext{Source: "mcp:cursor"}

// anyone is a caller limited to no workspace.
var anyone contract.CallContext

func learn(tb testing.TB, svc *memory.Service, text string) string {
	tb.Helper()
	res, err := svc.Learn(context.Background(), memory.LearnParams{Text: text}, cursor)
	if err != nil {
		tb.Fatal(err)
	}
	return res.ID
}

// learned is a new memory that has learned notes, in order.
func learned(tb testing.TB, notes ...string) *memory.Service {
	tb.Helper()
	svc := mustOpenService(tb)
	for _, n := range notes {
		learn(tb, svc, n)
	}
	return svc
}

func TestLearn(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	res, err := svc.Learn(ctx, memory.LearnParams{Text: "  The user prefers dark mode.  "}, cursor)
	if err != nil || res.Replayed || len(res.ID) != 32 {
		t.Fatalf("%+v %v", res, err)
	}
	again, err := svc.Learn(ctx, memory.LearnParams{Text: "The user   prefers dark mode."}, contract.CallContext{Source: "mcp"})
	if err != nil || !again.Replayed || again.ID != res.ID {
		t.Fatalf("same text from another client is not a replay: %+v %v", again, err)
	}
	other, _ := svc.Learn(ctx, memory.LearnParams{Text: "The user prefers dark mode.", Kind: "preference"}, cursor)
	if other.ID == res.ID {
		t.Error("kind is part of the fingerprint")
	}
	list, err := svc.List(ctx, memory.ListParams{}, anyone)
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("%v %v", list, err)
	}
	first := list.Items[1] // oldest
	if first.Kind != "learning" || first.Meta.LearningKind != "fact" || *first.Confidence != 0.8 ||
		first.Meta.Provenance != "mcp:cursor" || first.Meta.Source != "client" || first.Text != "The user prefers dark mode." {
		t.Errorf("stored %+v", first)
	}
}

// A client's own learning is of source "client", whatever the transport; a
// sub-agent's is of source "agent". Provenance says who, in detail.
func TestLearnSource(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for _, cc := range []contract.CallContext{
		{Source: "mcp:cursor", Transport: contract.TransportMCPStdio},
		{Source: "rpc", Transport: contract.TransportJSONRPC},
		{Source: "cli", Transport: contract.TransportCLI},
		{Source: "mcp:cursor/agent:researcher", Transport: contract.TransportMCPStdio, Agent: "researcher", Depth: 1},
	} {
		if _, err := svc.Learn(ctx, memory.LearnParams{Text: "A note from " + cc.Source}, cc); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	list, _ := svc.List(ctx, memory.ListParams{Limit: 10}, anyone)
	for _, it := range list.Items {
		got[it.Meta.Provenance] = it.Meta.Source
	}
	want := map[string]string{"mcp:cursor": "client", "rpc": "client", "cli": "client", "mcp:cursor/agent:researcher": "agent"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sources by provenance %v, want %v", got, want)
	}
	for src, n := range map[string]int{"client": 3, "agent": 1} {
		res, err := svc.List(ctx, memory.ListParams{Limit: 10, Filter: &memory.Filter{Sources: []string{src}}}, anyone)
		if err != nil || len(res.Items) != n {
			t.Errorf("filter sources [%s]: %d items, want %d (%v)", src, len(res.Items), n, err)
		}
	}
	srcs, _ := svc.ListSources(ctx, memory.ListSourcesParams{}, anyone)
	kinds := map[string]string{}
	for _, s := range srcs.Sources {
		kinds[s.SourceID] = s.SourceKind
	}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("tree sources %v, want %v", kinds, want)
	}
}

func TestLearnRefusesBlankText(t *testing.T) {
	svc := mustOpenService(t)
	for _, text := range []string{"   \n\t", "\u200b\u200c\u200d\u2060\ufeff", " \u200b \ufeff "} {
		_, err := svc.Learn(context.Background(), memory.LearnParams{Text: text}, cursor)
		if contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(err.Error(), "blank") {
			t.Errorf("learn(%q): %v", text, err)
		}
	}
}

func TestFetch(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	learn(t, svc, "Staging deploys need a green build on main.")
	learn(t, svc, "The production database runs PostgreSQL 16 on a managed host.")
	t.Run("hybrid is the default mode", func(t *testing.T) {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "staging deploy"}, anyone)
		if err != nil || res.Mode != "hybrid" || len(res.Hits) == 0 || res.Hits[0].Score == nil || len(res.Warnings) != 0 {
			t.Fatalf("%+v %v", res, err)
		}
		if !strings.HasPrefix(res.Hits[0].Text, "Staging deploys") {
			t.Errorf("best hit %q", res.Hits[0].Text)
		}
	})
	t.Run("vector and hybrid catch a misspelling keyword misses", func(t *testing.T) {
		kw, _ := svc.Fetch(ctx, memory.FetchParams{Query: "postgress databse", Mode: "keyword"}, anyone)
		if len(kw.Hits) != 0 {
			t.Errorf("keyword found %v", kw.Hits)
		}
		for _, mode := range []string{"vector", "hybrid"} {
			res, err := svc.Fetch(ctx, memory.FetchParams{Query: "postgress databse", Mode: mode}, anyone)
			if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "PostgreSQL") {
				t.Errorf("%s: %+v %v", mode, res, err)
			}
		}
	})
	t.Run("unknown modes are UNSUPPORTED", func(t *testing.T) {
		_, err := svc.Fetch(ctx, memory.FetchParams{Query: "deploy", Mode: "semantic"}, anyone)
		if contract.ErrorCode(err) != contract.CodeUnsupported || !strings.Contains(err.Error(), "hybrid") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("an emoji is a word", func(t *testing.T) {
		learn(t, svc, "Release day 🚀 went smoothly.")
		for _, mode := range []string{"keyword", ""} {
			res, err := svc.Fetch(ctx, memory.FetchParams{Query: "🚀", Mode: mode}, anyone)
			if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "🚀") {
				t.Errorf("mode %q: %+v %v", mode, res, err)
			}
		}
	})
	t.Run("stopwords only find nothing by keyword", func(t *testing.T) {
		res, err := svc.Fetch(ctx, memory.FetchParams{Query: "what is the", Mode: "keyword"}, anyone)
		if err != nil || len(res.Hits) != 0 {
			t.Fatalf("%+v %v", res, err)
		}
	})
}

func TestPagingIsStableUnderWrites(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for i := 0; i < 25; i++ {
		learn(t, svc, fmt.Sprintf("release note number %d about the quarterly release", i))
	}
	for _, mode := range []string{"keyword", "vector", "hybrid"} {
		t.Run(mode, func(t *testing.T) {
			seen := map[string]bool{}
			notes := 0
			cur := ""
			for page := 0; ; page++ {
				res, err := svc.Fetch(ctx, memory.FetchParams{Query: "quarterly release", Mode: mode, Limit: 7, Cursor: cur}, anyone)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					if seen[h.ID] {
						t.Fatalf("page %d repeats %q", page, h.Text)
					}
					if strings.Contains(h.Text, mode+" written while paging") {
						t.Fatalf("an item written after the first page appeared")
					}
					seen[h.ID] = true
					if strings.HasPrefix(h.Text, "release note number") {
						notes++
					}
				}
				// A write between pages must not shift or join the pages.
				learn(t, svc, fmt.Sprintf("quarterly release %s written while paging %d", mode, page))
				if res.NextCursor == "" {
					break
				}
				cur = res.NextCursor
			}
			if notes != 25 {
				t.Errorf("%d of the 25 release notes over the pages", notes)
			}
		})
	}
	t.Run("list", func(t *testing.T) {
		seen := map[string]bool{}
		cur := ""
		for {
			res, err := svc.List(ctx, memory.ListParams{Limit: 10, Cursor: cur}, anyone)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Items {
				if seen[h.ID] {
					t.Fatalf("list repeats %q", h.Text)
				}
				seen[h.ID] = true
			}
			learn(t, svc, fmt.Sprintf("listed while paging %d", len(seen)))
			if res.NextCursor == "" {
				break
			}
			cur = res.NextCursor
		}
	})
}

func TestCursorMisuse(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		learn(t, svc, fmt.Sprintf("alpha %d", i))
	}
	list, _ := svc.List(ctx, memory.ListParams{Limit: 1}, anyone)
	fetch, _ := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Limit: 1}, anyone)
	for name, call := range map[string]func() error{
		"garbage": func() error {
			_, err := svc.List(ctx, memory.ListParams{Cursor: "%%%not-a-cursor"}, anyone)
			return err
		},
		"list cursor, other filter": func() error {
			_, err := svc.List(ctx, memory.ListParams{Cursor: list.NextCursor, Filter: &memory.Filter{Kinds: []string{"document"}}}, anyone)
			return err
		},
		"fetch cursor, other query": func() error {
			_, err := svc.Fetch(ctx, memory.FetchParams{Query: "beta", Cursor: fetch.NextCursor}, anyone)
			return err
		},
		"fetch cursor, other mode": func() error {
			_, err := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Mode: "keyword", Cursor: fetch.NextCursor}, anyone)
			return err
		},
		"list cursor used for fetch": func() error {
			_, err := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Cursor: list.NextCursor}, anyone)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(err.Error(), "cursor") {
				t.Fatalf("got %v", err)
			}
		})
	}

	// A cursor's fingerprint is no secret: one read cursor is enough to
	// write others, with any numbers, in the server's exact encoding.
	var real struct {
		A int64  `json:"a"`
		O int    `json:"o"`
		F string `json:"f"`
	}
	b, _ := base64.RawURLEncoding.DecodeString(fetch.NextCursor)
	if err := json.Unmarshal(b, &real); err != nil || real.O != 1 {
		t.Fatalf("next_cursor %s holds %s", fetch.NextCursor, b)
	}
	forge := func(asOf int64, offset int) string {
		return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"a":%d,"o":%d,"f":%q}`, asOf, offset, real.F))
	}
	if _, err := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Limit: 1, Cursor: forge(real.A, 1)}, anyone); err != nil {
		t.Fatalf("the forging is not the server's encoding: %v", err)
	}
	for _, offset := range []int{200, 201, 1 << 40, math.MaxInt - 10, math.MaxInt} {
		t.Run(fmt.Sprintf("offset %d", offset), func(t *testing.T) {
			_, err := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Limit: 1, Cursor: forge(real.A, offset)}, anyone)
			if ce := contract.AsError(err); contract.ErrorCode(err) != contract.CodeInvalidRequest || ce.Data["field"] != "cursor" {
				t.Fatalf("got %v", err)
			}
		})
	}
	// The deepest page a next_cursor can name, and a pin past every write,
	// are pages like any other.
	for _, c := range []string{forge(real.A, 199), forge(math.MaxInt64, 1)} {
		if res, err := svc.Fetch(ctx, memory.FetchParams{Query: "alpha", Limit: 1, Cursor: c}, anyone); err != nil || len(res.Hits) > 1 {
			t.Errorf("%+v %v", res, err)
		}
	}
}

func TestRecall(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	learn(t, svc, "The user's favourite editor is Helix.")
	learn(t, svc, "Deploys to production happen on Tuesdays after the standup.")
	learn(t, svc, "The production database is Postgres 16 on a managed host.")
	learn(t, svc, "Lunch orders close at 11:30.")

	t.Run("answer cites what it quotes", func(t *testing.T) {
		res, err := svc.Recall(ctx, memory.RecallParams{Question: "When do production deploys happen?"}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "extractive" || len(res.Citations) == 0 {
			t.Fatalf("%+v", res)
		}
		if !strings.Contains(res.Answer, "Tuesdays") || !strings.Contains(res.Citations[0].Snippet, "Tuesdays") {
			t.Errorf("best hit not first: %q", res.Answer)
		}
		markers := regexp.MustCompile(`\[(\d+)\]`).FindAllStringSubmatch(res.Answer, -1)
		if len(markers) == 0 {
			t.Fatalf("no citation markers in %q", res.Answer)
		}
		for _, m := range markers {
			n, _ := strconv.Atoi(m[1])
			if n < 1 || n > len(res.Citations) {
				t.Errorf("marker [%d] points at no citation (have %d)", n, len(res.Citations))
			}
		}
		for _, c := range res.Citations {
			if c.Meta.Provenance != "mcp:cursor" || c.ID == "" || c.Score <= 0 {
				t.Errorf("citation %+v", c)
			}
		}
	})
	t.Run("nothing relevant is I don't know", func(t *testing.T) {
		for _, q := range []string{"What is the capital of Mongolia?", "what is it?", "Which host runs the billing queue and staging cache workers?"} {
			res, err := svc.Recall(ctx, memory.RecallParams{Question: q}, anyone)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.Answer, memory.IDontKnow) || len(res.Citations) != 0 {
				t.Errorf("%q answered %q with %d citations", q, res.Answer, len(res.Citations))
			}
		}
	})
	t.Run("filter applies", func(t *testing.T) {
		res, err := svc.Recall(ctx, memory.RecallParams{Question: "production deploys", Filter: &memory.Filter{Kinds: []string{"document"}}}, anyone)
		if err != nil || len(res.Citations) != 0 {
			t.Fatalf("%+v %v", res, err)
		}
	})
}

func TestForget(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	id := learn(t, svc, "Temporary note about the offsite.")
	res, err := svc.Forget(ctx, memory.ForgetParams{IDs: []string{id, id, "nope"}}, anyone)
	if err != nil || res.Forgotten != 1 || len(res.NotFound) != 1 || res.NotFound[0] != "nope" {
		t.Fatalf("%+v %v", res, err)
	}
	if got, _ := svc.Fetch(ctx, memory.FetchParams{Query: "offsite"}, anyone); len(got.Hits) != 0 {
		t.Error("forgotten item still found")
	}
	// An item read by a search is cached; forgetting it empties the cache
	// of it at the next search.
	text := "The offsite moved to Porto."
	id = learn(t, svc, text)
	if got, _ := svc.Fetch(ctx, memory.FetchParams{Query: "porto"}, anyone); len(got.Hits) != 1 || !memory.CachedText(svc, text) {
		t.Fatalf("after a search the item is not cached: %+v", got)
	}
	if _, err := svc.Forget(ctx, memory.ForgetParams{IDs: []string{id}}, anyone); err != nil {
		t.Fatal(err)
	}
	svc.Fetch(ctx, memory.FetchParams{Query: "anything"}, anyone)
	if memory.CachedText(svc, text) {
		t.Error("the forgotten item's text is still in the item cache")
	}
}

func TestOff(t *testing.T) {
	svc := memory.Off("disabled in config.toml ([memory] enabled = false)")
	ctx := context.Background()
	_, err := svc.Learn(ctx, memory.LearnParams{Text: "x"}, cursor)
	if contract.ErrorCode(err) != contract.CodeMemoryOff || !strings.HasPrefix(err.Error(), "memory is off: disabled") {
		t.Fatalf("got %v", err)
	}
	if _, err := svc.Recall(ctx, memory.RecallParams{Question: "x"}, anyone); contract.ErrorCode(err) != contract.CodeMemoryOff {
		t.Fatalf("got %v", err)
	}
}

func TestLearnScrubsSecrets(t *testing.T) {
	svc := mustOpenService(t)
	ctx := context.Background()
	res, err := svc.Learn(ctx, memory.LearnParams{Text: "Staging DB is postgres://app:s3cretpass@db.staging:5432/app and the deploy key is ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Redacted, ",") != "api_key,url_password" {
		t.Errorf("redacted = %v", res.Redacted)
	}
	list, _ := svc.List(ctx, memory.ListParams{}, anyone)
	text := list.Items[0].Text
	if strings.Contains(text, "s3cretpass") || strings.Contains(text, "ghp_") {
		t.Fatalf("secret stored: %q", text)
	}
	if got, _ := svc.Fetch(ctx, memory.FetchParams{Query: "s3cretpass"}, anyone); len(got.Hits) != 0 {
		t.Error("secret is searchable")
	}
}
