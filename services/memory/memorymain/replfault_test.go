package memorymain

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A replica stopped while events it had been sent were still unapplied
// (its consumer holds them as delivered and unacknowledged) applies every
// one of them, in order, when it starts again, even when newer events
// arrive before the server would send the old ones again.
func TestReplicaStoppedMidBatchLosesNothing(t *testing.T) {
	ns := mustJetStream(t)
	a := startReplica(t, replConfig(t, ns.ClientURL(), t.TempDir(), 1))
	homeB := t.TempDir()
	b := startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	learn(t, a, "The first fact, before b stops.")
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	stopReplica(t, b)
	for i := range 300 {
		learn(t, a, fmt.Sprintf("Backlog fact %d: shelf %d holds box %d.", i, i%11, i))
	}
	// b starts on the backlog and stops again with most of it pulled but
	// not applied.
	b = startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	from := b.domain.Applied()
	deadline := time.Now().Add(10 * time.Second)
	for b.domain.Applied() < from+10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stopReplica(t, b)
	if last := lastSeq(t, ns.ClientURL()); b.domain.Applied() >= last {
		t.Skipf("b applied the whole backlog (%d) before it stopped", last)
	}
	b = startReplica(t, replConfig(t, ns.ClientURL(), homeB, 1))
	for i := range 3 {
		learn(t, a, fmt.Sprintf("After b's restart, fact %d.", i))
	}
	caughtUp(t, b, lastSeq(t, ns.ClientURL()))
	if ca, cb := contents(t, a), contents(t, b); !slices.Equal(ca, cb) {
		t.Fatalf("after the restart b holds %d items, a %d", len(cb), len(ca))
	}
}
