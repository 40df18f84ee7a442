package jetstream

import (
	"context"
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// A write of many items is sent in windows and answered once applied:
// each item on its own subject, those stored before reported replayed,
// every one in the store and in a second replica's, and one forgotten
// leaves its subject empty while the others stay.
func TestAWriteOfManyItems(t *testing.T) {
	j := mustJournal(t)
	a, inA := mustReplica(t, j)
	run(t, j.NewFollower("a", a, FollowOptions{}))
	ctx := context.Background()
	before := note("A note stored before the write.")
	if _, err := a.Put(ctx, []memory.Item{before}); err != nil {
		t.Fatal(err)
	}
	items := []memory.Item{before}
	for i := range putWindow + 3 {
		items = append(items, note(fmt.Sprintf("Turn %d of a long conversation.", i)))
	}
	w, err := a.Put(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := j.Last(ctx, ""); w.Seq != last || a.Applied() < w.Seq {
		t.Fatalf("answered with seq %d, stream at %d, applied %d", w.Seq, last, a.Applied())
	}
	for i, it := range items {
		if w.Replayed[i] != (i == 0) {
			t.Errorf("item %d replayed %v", i, w.Replayed[i])
		}
		if !holds(t, inA, it.ID) {
			t.Errorf("item %d is not in the store", i)
		}
	}
	again, err := a.Put(ctx, items[1:3])
	if err != nil || !again.Replayed[0] || !again.Replayed[1] {
		t.Fatalf("the same items again: %+v %v", again, err)
	}

	b, inB := mustReplica(t, j)
	run(t, j.NewFollower("b", b, FollowOptions{}))
	for i, it := range items {
		if !holds(t, inB, it.ID) {
			t.Errorf("item %d is not in the second replica", i)
		}
	}
	if _, err := a.Delete(ctx, []string{items[2].ID}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := j.Last(ctx, subjectItem+items[2].ID); err != nil || n != 0 {
		t.Errorf("the forgotten item's subject holds %d (%v)", n, err)
	}
	if n, err := j.Last(ctx, subjectItem+items[3].ID); err != nil || n == 0 {
		t.Errorf("another item's subject is empty (%v)", err)
	}
}
