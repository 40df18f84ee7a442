package memorymain

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// followOptions are the snapshot settings of every replica (tests shorten
// them).
var followOptions jetstream.FollowOptions

// replica is a store that follows the write stream.
type replica struct {
	conn     *nats.Conn
	journal  *jetstream.Journal
	follower *jetstream.Follower
	name     string
	restored uint64 // the snapshot's sequence it started from, 0 when none
}

// openReplicated connects to JetStream, restores a new store (one whose
// file does not exist yet) from the newest snapshot, and opens the store.
// A failure is returned, not served as memory off: a replica that
// silently kept a store of its own would be the partial memory that
// replication is there to prevent.
func openReplicated(cfg config.Config, log *slog.Logger) (*replica, *sqlite.Store, error) {
	nc, err := bus.Connect(cfg.NATS, "openhuman-memory-journal", log, nats.CustomInboxPrefix(jetstream.InboxPrefix))
	if err != nil {
		return nil, nil, err
	}
	r := &replica{conn: nc}
	fail := func(err error) (*replica, *sqlite.Store, error) { nc.Close(); return nil, nil, err }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r.journal, err = jetstream.Open(ctx, nc, jetstream.Options{Replicas: cfg.Memory.StreamReplicas, Logger: log}); err != nil {
		return fail(err)
	}
	if _, err := os.Stat(cfg.Memory.Path); os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(cfg.Memory.Path), 0o700); err != nil {
			return fail(err)
		}
		seq, ok, err := r.journal.Restore(ctx, cfg.Memory.Path)
		if err != nil {
			return fail(fmt.Errorf("restoring memory from a snapshot: %w", err))
		}
		if ok {
			r.restored = seq
		}
	}
	store := sqlite.New(cfg.Memory.Path)
	if err := store.Open(); err != nil {
		return fail(fmt.Errorf("opening %s: %w", cfg.Memory.Path, err))
	}
	name, applied, err := store.Replica(ctx)
	if err == nil {
		err = r.journal.Continue(ctx, applied)
	}
	if err == nil && (name == "" || r.restored > 0) {
		// A restored store holds the name of the replica that took the
		// snapshot: it takes one of its own.
		name = newReplicaName()
		err = store.SetReplicaName(ctx, name)
	}
	if err != nil {
		store.Close()
		return fail(err)
	}
	r.name = name
	return r, store, nil
}

// follow starts applying the stream to domain; it returns when ctx ends.
func (r *replica) follow(ctx context.Context, domain *memory.Service, store *sqlite.Store, log *slog.Logger) {
	_, applied, err := store.Replica(ctx)
	if err != nil {
		log.Error("memory replication cannot read its position", "err", err)
		return
	}
	domain.Replicate(r.journal, applied)
	r.follower = r.journal.NewFollower(r.name, domain, store, followOptions)
	log.Info("memory replica following the write stream", "replica", r.name, "from", applied+1, "restored_from_snapshot", r.restored > 0)
}

func newReplicaName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "memory-" + hex.EncodeToString(b)
}
