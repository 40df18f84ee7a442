package retrieval_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// conversationStore stores turns as conversation ingest does ("speaker:
// text", a thread per sitting, the time each was said) in a SQLite store of
// the test's own, with vectors of emb, and returns the seq of each text.
func conversationStore(t *testing.T, emb memory.Embedder, sittings map[string]time.Time, turns [][2]string) (*sqlite.Store, map[string]int64) {
	t.Helper()
	st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	var items []memory.Item
	for i, tt := range turns {
		at := sittings[tt[0]].Add(time.Duration(i) * time.Minute)
		it := memory.Item{Kind: "conversation", Source: "conversation", Text: tt[1], Provenance: "cli:test",
			Meta: memory.Meta{ThreadID: tt[0]}, ObservedAt: at, CreatedAt: at}
		it.ID = memory.Fingerprint(it)
		items = append(items, it)
	}
	if _, err := st.Put(ctx, items); err != nil {
		t.Fatal(err)
	}
	stored, err := st.List(ctx, nil, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	seqOf := map[string]int64{}
	var out []memory.Embedded
	for _, it := range stored {
		seqOf[it.Text] = it.Seq
		v, _ := emb.Embed(ctx, []string{it.Text})
		out = append(out, memory.Embedded{Seq: it.Seq, Vector: v[0]})
	}
	if err := st.PutVectors(ctx, emb.Model(), out); err != nil {
		t.Fatal(err)
	}
	return st, seqOf
}

func firstHit(t *testing.T, e *retrieval.Engine, st *sqlite.Store, query string) int64 {
	t.Helper()
	m, err := st.Marks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := e.Rank(context.Background(), retrieval.Query{Text: query, Mode: retrieval.ModeHybrid, Marks: m, AsOf: m.Items, Depth: 50, Need: 5})
	if err != nil || len(got) == 0 {
		t.Fatalf("%q: %v, %v", query, got, err)
	}
	return got[0].Seq
}

// A question naming a speaker is answered by what they said, not by the
// turns that name them; a question naming a month finds the turns said in
// it, though no turn names its date.
func TestTurnsBySpeakerAndTime(t *testing.T) {
	emb := localembed.NewGloveEmbedder(0)
	may := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	june := time.Date(2023, 6, 27, 10, 0, 0, 0, time.UTC)
	st, seq := conversationStore(t, emb, map[string]time.Time{"s1": may, "s2": june}, [][2]string{
		{"s1", "Sam: Thanks, Maya! Is the pottery class still on?"},
		{"s1", "Maya: Yes, the pottery class is where I made a blue bowl."},
		{"s1", "Sam: We went camping by the lake, the kids loved it."},
		{"s2", "Sam: Camping again soon, I hope."},
		{"s2", "Maya: How are the kids?"},
	})
	e := retrieval.New(st, emb, nil)
	if got, want := firstHit(t, e, st, "What did Maya say about the pottery class?"), seq["Maya: Yes, the pottery class is where I made a blue bowl."]; got != want {
		t.Errorf("Maya's pottery: first hit %d, want her own turn %d", got, want)
	}
	if got, want := firstHit(t, e, st, "When did Sam go camping in May 2023?"), seq["Sam: We went camping by the lake, the kids loved it."]; got != want {
		t.Errorf("camping in May: first hit %d, want the turn said in May %d", got, want)
	}
	if got, want := firstHit(t, e, st, "What did Sam say about camping in June?"), seq["Sam: Camping again soon, I hope."]; got != want {
		t.Errorf("camping in June: first hit %d, want the turn said in June %d", got, want)
	}
}

// A turn that answers the one before it is found with what that one asked,
// though it repeats none of the question's words.
func TestTurnFoundWithTheTurnItAnswers(t *testing.T) {
	emb := localembed.NewGloveEmbedder(0)
	may := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	st, seq := conversationStore(t, emb, map[string]time.Time{"s1": may}, [][2]string{
		{"s1", "Sam: How did your kids like the museum trip?"},
		{"s1", "Maya: They were stoked for the dinosaur exhibit!"},
		{"s1", "Sam: My kids prefer the beach."},
		{"s1", "Maya: Nice, the weather was great."},
		{"s1", "Maya: I took the kids to the park later."},
	})
	e := retrieval.New(st, emb, nil)
	// The question turn holds the question's words itself and may come
	// first; the answer must come next, before a turn that merely shares
	// a word.
	got := ranked(t, e, st, "What did Maya's kids like at the museum?")
	if want := seq["Maya: They were stoked for the dinosaur exhibit!"]; !slices.Contains(got[:2], want) {
		t.Errorf("hits %v, want Maya's answer %d among the first two", got, want)
	}
	// recall reads both shares: what the answer holds itself, and with the
	// question before it.
	m, _ := st.Marks(context.Background())
	cands, _, _ := e.Rank(context.Background(), retrieval.Query{Text: "What did Maya's kids like at the museum?", Mode: retrieval.ModeHybrid, Marks: m, AsOf: m.Items, Depth: 50, Need: 5})
	for _, c := range cands {
		if c.Seq == seq["Maya: They were stoked for the dinosaur exhibit!"] && c.InContext <= c.Coverage {
			t.Errorf("the answer holds %.2f itself and %.2f with the turn before", c.Coverage, c.InContext)
		}
	}
}

func ranked(t *testing.T, e *retrieval.Engine, st *sqlite.Store, query string) []int64 {
	t.Helper()
	m, err := st.Marks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := e.Rank(context.Background(), retrieval.Query{Text: query, Mode: retrieval.ModeHybrid, Marks: m, AsOf: m.Items, Depth: 50, Need: 5})
	if err != nil || len(got) < 2 {
		t.Fatalf("%q: %v, %v", query, got, err)
	}
	var seqs []int64
	for _, c := range got {
		seqs = append(seqs, c.Seq)
	}
	return seqs
}
