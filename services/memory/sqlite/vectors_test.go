package sqlite_test

import (
	"context"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

func TestVectors(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	a, b := item("first", nil), item("second", nil)
	put(t, s, a, b)
	todo, err := s.Unembedded(ctx, "m1", 0, 10)
	if err != nil || len(todo) != 2 || todo[0].Text != "first" {
		t.Fatalf("unembedded: %v %v", todo, err)
	}
	first := todo[0].Seq
	if err := s.PutVectors(ctx, "m1", []memory.Embedded{{Seq: first, Vector: []float32{0.6, 0.8}}}); err != nil {
		t.Fatal(err)
	}
	if todo, _ := s.Unembedded(ctx, "m1", 0, 10); len(todo) != 1 || todo[0].Text != "second" {
		t.Fatalf("after one vector: %v", todo)
	}
	if todo, _ := s.Unembedded(ctx, "m2", 0, 10); len(todo) != 2 {
		t.Fatalf("another model sees vectors that are not its own: %v", todo)
	}

	got := map[int64][]float32{}
	add := func(seq int64, v []float32) { got[seq] = v }
	removed := []int64{}
	remove := func(seq int64) { removed = append(removed, seq) }
	addMark, delMark, err := s.VectorChanges(ctx, "m1", 0, 0, add, remove)
	if err != nil || len(got) != 1 || got[first] == nil {
		t.Fatalf("changes: %v %v", got, err)
	}
	for _, v := range got {
		if v[0] != 0.6 || v[1] != 0.8 {
			t.Errorf("vector round trip: %v", v)
		}
	}
	// Nothing new: nothing reported. A vector of another model moves the
	// mark without being reported for this one.
	if err := s.PutVectors(ctx, "m2", []memory.Embedded{{Seq: first, Vector: []float32{1, 0}}}); err != nil {
		t.Fatal(err)
	}
	got = map[int64][]float32{}
	a2, d2, err := s.VectorChanges(ctx, "m1", addMark, delMark, add, remove)
	if err != nil || len(got) != 0 || a2 <= addMark {
		t.Fatalf("second read: %v mark %d→%d %v", got, addMark, a2, err)
	}
	// Forgetting an item removes its vectors and is reported.
	if _, err := s.Delete(ctx, []string{a.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.VectorChanges(ctx, "m1", a2, d2, add, remove); err != nil || len(removed) != 1 {
		t.Fatalf("deletion not reported: %v %v", removed, err)
	}
	if n, err := s.DropVectorsExcept(ctx, "m1"); err != nil || n != 0 {
		t.Errorf("the deleted item's m2 vector was not removed with it: dropped %d, %v", n, err)
	}
	// A vector for an item deleted meanwhile is not stored.
	if err := s.PutVectors(ctx, "m1", []memory.Embedded{{Seq: 999999, Vector: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
}

// Items stay fully durable after vectors were stored on the same connection.
func TestVectorsLeaveItemsDurable(t *testing.T) {
	s := mustOpenStore(t, "")
	ctx := context.Background()
	put(t, s, item("durable", nil))
	if err := s.PutVectors(ctx, "m", []memory.Embedded{{Seq: 1, Vector: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Synchronous(); got != 2 {
		t.Fatalf("synchronous = %d after storing vectors, want 2 (FULL)", got)
	}
}
