package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

type qualitySet struct {
	Items []struct {
		Key          string `json:"key"`
		Kind         string `json:"kind"`
		LearningKind string `json:"learning_kind"`
		Text         string `json:"text"`
		Source       string `json:"source"`
		Repo         string `json:"repo"`
		FilePath     string `json:"file_path"`
		Language     string `json:"language"`
		Workspace    string `json:"workspace"`
		ThreadID     string `json:"thread_id"`
	} `json:"items"`
	Questions []struct {
		Q      string         `json:"q"`
		Answer []string       `json:"a"`
		Filter *memory.Filter `json:"filter"`
		None   bool           `json:"none"`
	} `json:"questions"`
}

// TestRetrievalQuality measures recall@5 and MRR of each fetch mode on a
// hand-written set (testdata/quality.json: 200 items; questions asked with
// the same words, other word forms, misspellings, paraphrases, filters, and
// questions memory cannot answer), and how often recall answers "I don't
// know" exactly when it should. It fails if the default (hybrid) does
// worse than either leg alone, in recall or MRR: a leg that returned noise
// would show there.
func TestRetrievalQuality(t *testing.T) {
	raw, err := os.ReadFile("testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	var set qualitySet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	svc := mustOpenService(t)
	ctx := context.Background()
	items := make([]memory.Item, len(set.Items))
	for i, it := range set.Items {
		source := it.Source
		if source == "" {
			source = "agent"
		}
		items[i] = memory.Item{Kind: it.Kind, LearningKind: it.LearningKind, Text: it.Text, Source: source, Provenance: "mcp:quality",
			Meta: memory.Meta{Repo: it.Repo, FilePath: it.FilePath, Language: it.Language, Workspace: it.Workspace, ThreadID: it.ThreadID}}
	}
	res, err := svc.Remember(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	idOf := map[string]string{}
	for i, it := range set.Items {
		idOf[it.Key] = res[i].ID
	}

	type score struct {
		hits, n, idk, idkWant, answered, answerWant int
		rr                                          float64
	}
	modes := []string{"keyword", "vector", "hybrid"}
	scores := map[string]*score{}
	for _, mode := range modes {
		sc := &score{}
		scores[mode] = sc
		for _, q := range set.Questions {
			if q.None {
				continue
			}
			sc.n++
			got, err := svc.Fetch(ctx, memory.FetchParams{Query: q.Q, Mode: mode, Filter: q.Filter, Limit: 5}, anyone)
			if err != nil {
				t.Fatalf("%s %q: %v", mode, q.Q, err)
			}
			for rank, h := range got.Hits {
				if containsID(q.Answer, idOf, h.ID) {
					sc.hits++
					sc.rr += 1 / float64(rank+1)
					break
				}
			}
		}
	}
	// Recall answers from hybrid hits: "I don't know" must come exactly for
	// the questions memory cannot answer.
	recallScore := &score{}
	for _, q := range set.Questions {
		ans, err := svc.Recall(ctx, memory.RecallParams{Question: q.Q, Filter: q.Filter, Limit: 5}, anyone)
		if err != nil {
			t.Fatal(err)
		}
		idk := strings.HasPrefix(ans.Answer, memory.IDontKnow)
		if q.None {
			recallScore.idkWant++
			if idk {
				recallScore.idk++
			} else {
				t.Logf("answered a question it cannot know: %q → %q", q.Q, ans.Answer)
			}
			continue
		}
		recallScore.answerWant++
		if !idk && len(ans.Citations) > 0 && containsID(q.Answer, idOf, ans.Citations[0].ID) {
			recallScore.answered++
		} else if testing.Verbose() {
			t.Logf("recall missed %q → %q", q.Q, ans.Answer)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n%d items, %d answerable questions, %d without an answer\n", len(set.Items), scores["hybrid"].n, recallScore.idkWant)
	fmt.Fprintln(&b, "| mode | recall@5 | MRR |")
	fmt.Fprintln(&b, "| --- | ---: | ---: |")
	for _, mode := range modes {
		sc := scores[mode]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", mode, float64(sc.hits)/float64(sc.n), sc.rr/float64(sc.n))
	}
	fmt.Fprintf(&b, "memory.recall: first citation correct on %d of %d answerable questions; \"I don't know\" on %d of %d unanswerable ones\n",
		recallScore.answered, recallScore.answerWant, recallScore.idk, recallScore.idkWant)
	t.Log(b.String())

	hy := scores["hybrid"]
	for _, leg := range []string{"keyword", "vector"} {
		if l := scores[leg]; hy.hits < l.hits || hy.rr < l.rr {
			t.Errorf("hybrid (recall %d, MRR %.3f) is worse than %s (recall %d, MRR %.3f)", hy.hits, hy.rr/float64(hy.n), leg, l.hits, l.rr/float64(l.n))
		}
	}
	if recallScore.idk < recallScore.idkWant {
		t.Errorf("recall answered %d questions memory holds nothing about", recallScore.idkWant-recallScore.idk)
	}
	if share := float64(recallScore.answered) / float64(recallScore.answerWant); share < 0.75 {
		t.Errorf("recall cited the right item first for only %.0f%% of answerable questions", 100*share)
	}
}

func containsID(keys []string, idOf map[string]string, id string) bool {
	for _, k := range keys {
		if idOf[k] == id {
			return true
		}
	}
	return false
}
