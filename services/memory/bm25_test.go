package memory_test

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// The keyword leg scores as SQLite FTS5's bm25() does (k1 1.2, b 0.75, its
// idf and length normalization, Porter stemming): the same texts in an FTS5
// table with the tokenizer this project used to index with give the same
// scores, to rounding.
func TestKeywordScoresMatchFTS5(t *testing.T) {
	texts := []string{
		"The billing service exports invoices every night.",
		"Billing owners are Ana and Raj; billing questions go to them.",
		"Exported reports land in the finance bucket.",
		"The search service is written in Go.",
		"Lunch is at noon on Fridays.",
		"Service levels for billing: exports finish before six, billing retries twice, and the billing dashboard shows each export.",
		"A note with none of the words.",
		"Deploys go out on Tuesdays after the standup, once the exporting job has run.",
	}
	svc := mustOpenService(t)
	for _, text := range texts {
		learn(t, svc, text)
	}
	const query = "billing service exports"
	res, err := svc.Fetch(context.Background(), memory.FetchParams{Query: query, Mode: "keyword", Limit: 100}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, h := range res.Hits {
		got[h.Text] = *h.Score
	}

	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/fts.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if _, err := db.Exec(`INSERT INTO f(text) VALUES (?)`, text); err != nil {
			t.Fatal(err)
		}
	}
	var quoted []string
	for _, term := range lexicon.Terms(query) {
		quoted = append(quoted, `"`+term+`"`)
	}
	rows, err := db.Query(`SELECT text, bm25(f) FROM f WHERE f MATCH ?`, strings.Join(quoted, " OR "))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string]float64{}
	for rows.Next() {
		var text string
		var score float64
		if err := rows.Scan(&text, &score); err != nil {
			t.Fatal(err)
		}
		want[text] = -score
	}
	if len(want) < 5 || len(got) != len(want) {
		t.Fatalf("matched %d texts, FTS5 %d (want at least 5)", len(got), len(want))
	}
	for text, w := range want {
		if g, ok := got[text]; !ok || math.Abs(g-w) > 1e-9*math.Abs(w) {
			t.Errorf("%q: score %v, FTS5 %v", text, g, w)
		}
	}
}
