package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Recall on lines of transcripts: when a line was said, and who it speaks of.

// An answer quoting "yesterday" says which day that was for the note, not
// for today.
func TestRecallDatesFromTheNote(t *testing.T) {
	svc := mustOpenService(t) // its clock reads 1 May 2026
	learn(t, svc, "I went to the LGBTQ support group yesterday and it was powerful.")
	res, err := svc.Recall(context.Background(), memory.RecallParams{Question: "When did I go to the support group?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer, "yesterday (30 April 2026)") || strings.Contains(res.Citations[0].Snippet, "April") {
		t.Errorf("answer %q, citation %q", res.Answer, res.Citations[0].Snippet)
	}
}

// A transcript's line says when it was said in its stamp; the sentence
// quoted from it counts its "yesterday" from that day, not from the day
// the line was stored.
func TestRecallDatesFromTheStamp(t *testing.T) {
	svc := mustOpenService(t) // its clock reads 1 May 2026
	learn(t, svc, `(2:01 pm on 23 January, 2022) Joanna said, "It has been a long week with the screenplay, the rewrites `+
		`and the notes from the producers, and I barely slept. Anyway, I took my turtles to the beach in Tampa yesterday! `+
		`They loved the sand and the waves, and I finally had time to think about the ending of the second act."`)
	res, err := svc.Recall(context.Background(), memory.RecallParams{Question: "When did Joanna take her turtles to the beach in Tampa?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer, "yesterday (22 January 2022)") {
		t.Errorf("answer %q", res.Answer)
	}
}

// A line Caroline said to another, of the other's race, does not tell what
// Caroline did after hers.
func TestRecallLineToAnother(t *testing.T) {
	svc := mustOpenService(t)
	learn(t, svc, "Caroline: Congrats on your charity race, Mel! So proud of you.")
	res, err := svc.Recall(context.Background(), memory.RecallParams{Question: "What did Caroline realize after her charity race?"}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Answer, memory.IDontKnow) {
		t.Errorf("answer %q", res.Answer)
	}
}
