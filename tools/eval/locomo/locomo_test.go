package locomo_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/tools/eval/locomo"
)

// testdata/99.json is a two-session conversation in the data's form, with
// its sessions out of order, a shared image, a number for an answer, an
// entry naming two turns and one naming a turn that does not exist.
func TestLoad(t *testing.T) {
	convs, err := locomo.Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || convs[0].ID != "99" {
		t.Fatalf("got %+v", convs)
	}
	c := convs[0]
	if c.Speakers != [2]string{"Ana", "Ben"} || len(c.Sessions) != 2 || c.Sessions[0].N != 1 {
		t.Fatalf("speakers %v, sessions %+v", c.Speakers, c.Sessions)
	}
	var ids []string
	for _, turn := range c.Turns() {
		ids = append(ids, turn.DiaID)
	}
	if !slices.Equal(ids, []string{"D1:1", "D1:2", "D2:1", "D2:2"}) {
		t.Errorf("turns in order %v", ids)
	}
	s := c.Sessions[1]
	if got := s.When.Format("2006-01-02 15:04"); got != "2023-06-03 09:15" {
		t.Errorf("session 2 at %s", got)
	}
	if got, want := locomo.LearningText(s, s.Turns[1]), `(9:15 am on 3 June, 2023) Ana said, "Look at my new bike!" [shares a photo of a red bicycle]`; got != want {
		t.Errorf("learning %s, want %s", got, want)
	}
	q := c.Questions
	if len(q) != 4 || !slices.Equal(q[1].Evidence, []string{"D1:2", "D2:1"}) || !slices.Equal(q[2].Evidence, []string{"D1:1"}) ||
		q[2].Answer != "2023" || q[3].Category != 5 {
		t.Errorf("questions %+v", q)
	}
}

func TestLoadSaysWhereToGetTheData(t *testing.T) {
	_, err := locomo.Load(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "snap-research/locomo") || !strings.Contains(err.Error(), "LOCOMO_DATA") {
		t.Fatalf("got %v", err)
	}
	t.Setenv("LOCOMO_DATA", "/nonexistent/locomo10.zip")
	if _, err := locomo.Find("."); err == nil || !strings.Contains(err.Error(), "LOCOMO_DATA") {
		t.Fatalf("got %v", err)
	}
}

func TestScore(t *testing.T) {
	var s locomo.Score
	// Two evidence turns: one at rank 1, one at rank 7; a hit holding a
	// turn said twice counts for it.
	hits := [][]string{{"D1:1"}, {"D3:3"}, nil, {"D4:4"}, {"D5:5"}, {"D6:6"}, {"D2:9", "D2:2"}, {"D8:8"}}
	s.Add(hits, []string{"D1:1", "D2:2"})
	if s.N != 1 || s.Recall5 != 0.5 || s.Recall10 != 1 || s.First != 1 {
		t.Errorf("recall %+v", s)
	}
	want := (1 + 1/math.Log2(8)) / (1 + 1/math.Log2(3))
	if math.Abs(s.NDCG10-want) > 1e-9 {
		t.Errorf("nDCG %v, want %v", s.NDCG10, want)
	}
	s.Add(hits, nil) // no evidence: not scored
	if s.N != 1 {
		t.Errorf("a question without evidence was scored")
	}
	s.AddCitation([]string{"D2:2"}, []string{"D1:1", "D2:2"}, true, true)
	s.AddCitation(nil, []string{"D1:1"}, true, false)
	s.AddCitation([]string{"D9:9"}, []string{"D1:1"}, false, false)
	if s.Asked != 3 || s.Cited != 1 || s.TopEvidence != 2 || s.Followed != 1 {
		t.Errorf("citations %+v", s)
	}
}

func TestHalves(t *testing.T) {
	for _, id := range []string{"26", "30", "41", "42", "43"} {
		if locomo.HeldOut(id) {
			t.Errorf("%s is a design conversation", id)
		}
	}
	for _, id := range []string{"44", "47", "48", "49", "50"} {
		if !locomo.HeldOut(id) {
			t.Errorf("%s is held out", id)
		}
	}
}
