package keywordindex

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
	"github.com/openhuman-go/openhuman-go/services/memory/textkeys"
)

// fetchDepth is how deep memory.fetch reads each ranking.
const fetchDepth = 200

func mustIndex(texts ...string) *Index {
	x := New()
	for i, text := range texts {
		x.Add(int64(i+1), text)
	}
	return x
}

func TestKeywordIndexRanking(t *testing.T) {
	x := mustIndex(
		"We retained the old billing service for one more quarter.",
		"Deploys go out on Tuesdays after the standup.",
		"The billing service billing export runs nightly; billing owners are Ana and Raj.",
		"Lunch is at noon.", "The office plant needs water.", "Use UTC in logs.",
	)
	t.Run("stemming", func(t *testing.T) {
		if got := x.Search(textkeys.Keys([]string{"retaining"}), 10, 100, nil); len(got) != 1 || got[0].Seq != 1 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("bm25 order and positive scores", func(t *testing.T) {
		got := x.Search(textkeys.Keys([]string{"billing"}), 10, 100, nil)
		if len(got) != 2 || got[0].Seq != 3 || got[0].Score <= got[1].Score || got[1].Score <= 0 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("any term matches, both rank higher", func(t *testing.T) {
		got := x.Search(textkeys.Keys([]string{"billing", "quarter"}), 10, 100, nil)
		if len(got) != 2 || got[0].Seq != 1 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("asOf hides newer items", func(t *testing.T) {
		x.Add(7, "billing billing billing billing")
		if got := x.Search(textkeys.Keys([]string{"billing"}), 10, 6, nil); len(got) != 2 {
			t.Errorf("an item newer than asOf was ranked: %v", got)
		}
		if got := x.Search(textkeys.Keys([]string{"billing"}), 10, 7, nil); len(got) != 3 || got[0].Seq != 7 {
			t.Errorf("with it: %v", got)
		}
	})
	t.Run("allowed restricts", func(t *testing.T) {
		if got := x.Search(textkeys.Keys([]string{"billing"}), 10, 100, []int64{1, 5}); len(got) != 1 || got[0].Seq != 1 {
			t.Errorf("got %v", got)
		}
		if got := x.Search(textkeys.Keys([]string{"billing"}), 10, 100, []int64{}); len(got) != 0 {
			t.Errorf("nothing allowed, got %v", got)
		}
	})
	t.Run("k bounds the ranking", func(t *testing.T) {
		if got := x.Search(textkeys.Keys([]string{"billing"}), 1, 100, nil); len(got) != 1 || got[0].Seq != 7 {
			t.Errorf("got %v", got)
		}
	})
	t.Run("an older seq is ignored", func(t *testing.T) {
		x.Add(2, "zzzunique")
		if x.DocFreq("zzzunique") != 0 {
			t.Error("an item below the newest seq was indexed")
		}
	})
}

func TestKeywordIndexRemove(t *testing.T) {
	x := mustIndex("the zebracorn launch code", "the weather was fine", "fine weather again", "weather report")
	x.Remove(1)
	x.Remove(1) // twice is once
	x.Remove(99)
	if got := x.Search(textkeys.Keys([]string{"zebracorn"}), 10, 100, nil); len(got) != 0 {
		t.Errorf("forgotten item still found: %v", got)
	}
	if _, ok := x.ids["zebracorn"]; ok {
		t.Error("a term only the forgotten item held is still in the index")
	}
	if x.DocFreq("the") != 1 || x.DocFreq("weather") != 3 || x.live != 3 {
		t.Errorf("df(the)=%d df(weather)=%d live=%d", x.DocFreq("the"), x.DocFreq("weather"), x.live)
	}
	if got := x.Matching(textkeys.Keys([]string{"weather", "code"}), 100); fmt.Sprint(got) != "[2 3 4]" {
		t.Errorf("Matching = %v", got)
	}
	// Removing most holders of a term compacts its postings; a reused
	// term id starts clean.
	x.Remove(2)
	x.Remove(3)
	if p := x.terms[x.ids["weather"]]; len(p.slots) != 1 || p.df != 1 {
		t.Errorf("weather postings %v df %d after compaction", p.slots, p.df)
	}
	x.Add(10, "brandnew words")
	if got := x.Search(textkeys.Keys([]string{"brandnew"}), 10, 100, nil); len(got) != 1 || got[0].Seq != 10 {
		t.Errorf("got %v", got)
	}
}

// Matching agrees with a plain reading of the texts: each item once,
// ascending, none removed or newer than asOf, across slot renumbering.
func TestKeywordIndexMatching(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := New()
	texts := map[int64]string{}
	for seq := int64(1); seq <= 3000; seq++ {
		texts[seq] = fmt.Sprintf("w%d w%d w%d", r.Intn(40), r.Intn(40), r.Intn(400))
		x.Add(seq, texts[seq])
		if r.Intn(3) != 0 { // removals enough to renumber slots now and then
			for victim := range texts { // any live item
				x.Remove(victim)
				delete(texts, victim)
				break
			}
		}
	}
	if len(x.seqs) == 3000 {
		t.Fatal("slots were never renumbered")
	}
	for range 50 {
		words := []string{fmt.Sprintf("w%d", r.Intn(40)), fmt.Sprintf("w%d", r.Intn(400)), "absent"}
		asOf := int64(r.Intn(3200))
		var want []int64
		for seq := int64(1); seq <= asOf; seq++ {
			if text, ok := texts[seq]; ok && slices.ContainsFunc(strings.Fields(text), func(w string) bool { return slices.Contains(words, w) }) {
				want = append(want, seq)
			}
		}
		if got := x.Matching(textkeys.Keys(words), asOf); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Matching(%v, %d) = %v, want %v", words, asOf, got, want)
		}
	}
}

// BenchmarkKeywordIndexSearch is the keyword leg of a fetch at 10k items of
// 18 words over a 3,000-word vocabulary, two-word queries.
func BenchmarkKeywordIndexSearch(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := New()
	word := func() string { return fmt.Sprintf("w%dx", r.Intn(3000)) }
	for i := 1; i <= 10000; i++ {
		text := ""
		for range 18 {
			text += word() + " "
		}
		x.Add(int64(i), text)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Search(textkeys.Keys([]string{word(), word()}), fetchDepth, 1<<40, nil)
	}
}

// BenchmarkKeywordIndexMatching is what a tree search counts and a browse
// filters by: the items holding a common word (in about a third of 100k
// items) or a rarer one.
func BenchmarkKeywordIndexMatching(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := New()
	for i := 1; i <= 100000; i++ {
		text := fmt.Sprintf("w%dx w%dx", r.Intn(3000), r.Intn(3000))
		if i%3 == 0 {
			text += " common"
		}
		x.Add(int64(i), text)
	}
	keys := textkeys.Keys([]string{"common", "w7x"})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Matching(keys, 1<<40)
	}
}

// A keyword search's scratch comes back empty, whatever it held.
func TestKeywordScratchRelease(t *testing.T) {
	sc := &scratch{}
	sc.scores.size(100)
	sc.group.size(100)
	sc.scores.add(3, 1)
	sc.scores.add(3, 1)
	sc.group.max(7, 2)
	sc.group.max(7, 1)
	if len(sc.scores.touched) != 1 || sc.scores.v[3] != 2 || sc.group.v[7] != 2 {
		t.Fatalf("scores %v, group %v", sc.scores.touched, sc.group.touched)
	}
	sc.release()
	for _, a := range []sums{sc.scores, sc.group} {
		if len(a.touched) != 0 || slices.ContainsFunc(a.v, func(v float64) bool { return v != 0 }) {
			t.Errorf("left %v", a.touched)
		}
	}
}

// Removing most items renumbers the slots of the rest; their ranking and
// removal still work afterwards.
func TestKeywordIndexCompactsSlots(t *testing.T) {
	x := New()
	for i := 1; i <= 3000; i++ {
		x.Add(int64(i), fmt.Sprintf("note%d common", i))
	}
	for i := 1; i <= 2990; i++ {
		x.Remove(int64(i))
	}
	if len(x.seqs) > 1100 || x.dead > 1024 {
		t.Fatalf("%d slots, %d dead after removing 2,990 of 3,000", len(x.seqs), x.dead)
	}
	if got := x.Search(textkeys.Keys([]string{"common"}), 100, 1<<40, nil); len(got) != 10 || got[0].Seq != 3000 {
		t.Fatalf("after compaction: %v", got)
	}
	if got := x.Search(textkeys.Keys([]string{"note2995"}), 10, 1<<40, nil); len(got) != 1 || got[0].Seq != 2995 {
		t.Fatalf("a survivor's own word: %v", got)
	}
	x.Remove(2995)
	x.Add(3001, "note3001 common")
	if got := x.Search(textkeys.Keys([]string{"common"}), 100, 1<<40, nil); len(got) != 10 || got[0].Seq != 3001 || x.DocFreq("common") != 10 {
		t.Fatalf("after more changes: %v, df %d", got, x.DocFreq("common"))
	}
	// Held finds a survivor's words, and typos of them, after compaction.
	near := func(k, other string) bool { return k == "note2996x" && other == "note2996" }
	keys := []string{"note2996", "common", "note2996x", "note2997"}
	if got := x.Held([]int64{2996, 3001}, keys, 0b0100, near, nil); !slices.Equal(got, []uint64{0b0111, 0b0010}) {
		t.Fatalf("held after compaction = %b", got)
	}
}

// SearchWithin scores as an index holding only its universe would: the
// items outside it change no score and no order.
func TestSearchWithinIgnoresItemsOutside(t *testing.T) {
	mine := []string{
		"The billing export runs nightly.",
		"Billing owners are Ana and Raj; the export is theirs.",
		"Deploys go out on Tuesdays.",
	}
	alone := mustIndex(mine...)
	mixed := New()
	var universe []int64
	seq := int64(0)
	for i, text := range mine {
		// Others' items, between and around ours, full of the query's words.
		for j := 0; j < 50; j++ {
			seq++
			mixed.Add(seq, fmt.Sprintf("billing billing export %d %d of someone else, a much longer text than ours", i, j))
		}
		seq++
		mixed.Add(seq, text)
		universe = append(universe, seq)
	}
	keys := textkeys.Keys([]string{"billing", "export", "deploys"})
	want := alone.Search(keys, 10, 100, nil)
	got := mixed.SearchWithin(keys, 10, seq, nil, universe)
	if len(got) != len(want) || len(want) != 3 {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if universe[want[i].Seq-1] != got[i].Seq || want[i].Score != got[i].Score {
			t.Errorf("rank %d: got %v, want %v", i, got[i], want[i])
		}
	}
	alone3 := alone.Search(keys, 10, 100, []int64{3})
	if got := mixed.SearchWithin(keys, 10, seq, []int64{universe[2]}, universe); len(got) != 1 || got[0].Seq != universe[2] || got[0].Score != alone3[0].Score {
		t.Errorf("allowed within universe: %v, alone %v", got, alone3)
	}
	for _, key := range keys {
		if a, b := alone.DocFreq(key), mixed.DocFreqWithin(key, universe); a != b {
			t.Errorf("doc freq of %s: %d alone, %d within", key, a, b)
		}
	}
	if got := mixed.SearchWithin(keys, 10, seq, nil, nil); got != nil {
		t.Errorf("an empty universe ranked %v", got)
	}
}

func TestSearchTermsAlternatives(t *testing.T) {
	x := mustIndex(
		"The brand uses two typefaces on the site.", // 1: the term itself
		"The brand uses two fonts on the site.",     // 2: a synonym, as long
		"The brand uses a typeface and a font.",     // 3: both
		"Lunch is at noon.", "The office plant needs water.", "Use UTC in logs.",
		"Fonts fonts fonts everywhere, said the designer of the site.", // 7: the synonym, often
	)
	key := func(w string) string { return textkeys.Keys([]string{w})[0] }
	typeface := []Term{{Key: key("typeface"), Alts: []Alt{{Key: key("font"), Weight: 0.5}}}}
	got := x.SearchTerms(typeface, 10, 100, nil, nil)
	score := map[int64]float64{}
	for _, r := range got {
		score[r.Seq] = r.Score
	}
	if len(got) != 4 {
		t.Fatalf("want the 4 items with typeface or font, got %v", got)
	}
	if score[1] <= score[2] {
		t.Errorf("the term's own word (%g) does not beat its synonym (%g)", score[1], score[2])
	}
	if score[2] <= 0 || score[7] <= 0 {
		t.Errorf("the synonym found nothing: %v", got)
	}
	// Holding both counts as holding the term: item 3 is shorter than
	// item 1, so it may score a little more for its length, but not the
	// sum of two words.
	bothAlone := x.SearchTerms([]Term{{Key: key("typeface")}}, 10, 100, nil, nil)
	for _, r := range bothAlone {
		if r.Seq == 3 && score[3] != r.Score {
			t.Errorf("an item holding the term and its synonym scores %g, the term alone %g", score[3], r.Score)
		}
	}
	// Without alternatives SearchTerms is Search.
	if a, b := x.SearchTerms([]Term{{Key: key("brand")}}, 10, 100, nil, nil), x.Search([]string{key("brand")}, 10, 100, nil); !reflect.DeepEqual(a, b) {
		t.Errorf("SearchTerms %v, Search %v", a, b)
	}
	// A query term no item holds still ranks its synonym's items, and a
	// synonym no rarer than the term cannot outweigh an exact match of
	// another query word.
	got = x.SearchTerms([]Term{{Key: key("typefacez"), Alts: []Alt{{Key: key("font"), Weight: 0.5}}}, {Key: key("designer")}}, 10, 100, nil, nil)
	if len(got) == 0 || got[0].Seq != 7 {
		t.Errorf("got %v", got)
	}
	// Within a universe, as SearchWithin.
	if a, b := x.SearchTerms([]Term{{Key: key("brand")}}, 10, 100, nil, []int64{1, 2, 4}), x.SearchWithin([]string{key("brand")}, 10, 100, nil, []int64{1, 2, 4}); !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("SearchTerms %v, SearchWithin %v", a, b)
	}
}

func TestHeld(t *testing.T) {
	key := func(w string) string { return textkeys.Keys([]string{w})[0] }
	x := New()
	x.Add(1, "Rotations change on Mondays")
	x.Add(2, "Fonts")
	x.Add(3, "Mondays and fonts")
	keys := []string{key("mondays"), key("fonts"), key("absent")}
	got := x.Held([]int64{1, 2, 3, 9}, keys, 0, nil, nil)
	if want := []uint64{0b001, 0b010, 0b011, 0}; !slices.Equal(got, want) {
		t.Errorf("held = %b, want %b", got, want)
	}
	// like is asked only about the forgiven keys an item lacks, that start
	// with the same byte, and may stand in.
	var asked []string
	typo := func(k, other string) bool {
		asked = append(asked, k+"~"+other)
		return k == "rottat" && other == key("rotations")
	}
	if got := x.Held([]int64{1}, []string{key("mondays"), "rottat"}, 0b11, typo, got); !slices.Equal(got, []uint64{0b11}) {
		t.Errorf("with a typo rule, held = %b, want 11", got)
	}
	for _, a := range asked {
		if strings.HasPrefix(a, key("mondays")+"~") || a[0] != a[strings.Index(a, "~")+1] {
			t.Errorf("like was asked %s", a)
		}
	}
	// A key not forgiven must match exactly.
	asked = nil
	if got := x.Held([]int64{1}, []string{key("mondays"), "rottat"}, 0b01, typo, nil); !slices.Equal(got, []uint64{0b01}) || len(asked) != 0 {
		t.Errorf("rottat not forgiven: held = %b, like asked %v", got, asked)
	}
	x.Remove(2)
	if got := x.Held([]int64{2}, keys, 0, nil, nil); got[0] != 0 {
		t.Errorf("a removed item holds %b", got[0])
	}
}

// maybeTypo never rules out a pair of keys within two edits that start
// alike: Held's typo check would miss it.
func TestMaybeTypoIsABound(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	word := func() string {
		b := make([]byte, 1+r.Intn(9))
		for i := range b {
			b[i] = "abcde1"[r.Intn(6)]
		}
		return string(b)
	}
	for range 50000 {
		a, b := word(), word()
		if a[0] == b[0] && editdistance.OSA(a, b) <= 2 && !maybeTypo(headOf(a), headOf(b)) {
			t.Fatalf("%q and %q are within two edits, ruled out", a, b)
		}
	}
}

// Keys given beside the text are held as they are, counted as its tokens,
// and found only by themselves.
func TestAddKeysAsTheyAre(t *testing.T) {
	x := New()
	x.Add(1, "The deploy is done.", "\x00gina")
	x.Add(2, "Gina owns billing.")
	if got := x.Matching([]string{"\x00gina"}, 10); !slices.Equal(got, []int64{1}) {
		t.Errorf("Matching the key given = %v, want [1]", got)
	}
	if got := x.Matching([]string{"gina"}, 10); !slices.Equal(got, []int64{2}) {
		t.Errorf("Matching the word = %v, want [2]", got)
	}
	if x.lens[0] != 5 {
		t.Errorf("item 1 counts %d tokens, want 5 (four words and the key)", x.lens[0])
	}
	x.Remove(1)
	if x.DocFreq("\x00gina") != 0 {
		t.Error("the key given outlives its item")
	}
}
