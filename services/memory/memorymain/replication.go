package memorymain

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
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
	store    *jetstream.Store // the domain's store: writes go through the stream
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
	ctx, cancel := context.WithTimeout(context.Background(), openWithin+30*time.Second)
	defer cancel()
	if r.journal, err = openJournal(ctx, nc, cfg, log); err != nil {
		return fail(err)
	}
	if _, err := os.Stat(cfg.Memory.Path); os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(cfg.Memory.Path), 0o700); err != nil {
			return fail(err)
		}
		seq, ok, err := restore(ctx, r.journal, cfg.Memory.Path, log)
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
	r.store = jetstream.NewStore(r.journal, store, applied)
	return r, store, nil
}

// openWithin bounds how long a replica waits for JetStream at start.
const openWithin = time.Minute

// openJournal creates the stream and bucket, trying again for up to
// openWithin. A cluster that has just started answers JetStream requests
// only once it has a metadata leader and enough peers for the stream's
// copies, and a request made meanwhile may go unanswered (a first start of
// docker-compose.yml starts the replicas with the NATS servers); without
// JetStream at all, there is nothing to wait for.
func openJournal(ctx context.Context, nc *nats.Conn, cfg config.Config, log *slog.Logger) (*jetstream.Journal, error) {
	ctx, cancel := context.WithTimeout(ctx, openWithin)
	defer cancel()
	var j *jetstream.Journal
	notEnabled := func(err error) bool {
		return errors.Is(err, natsjs.ErrJetStreamNotEnabled) || errors.Is(err, natsjs.ErrJetStreamNotEnabledForAccount)
	}
	err := retry(ctx, 10*time.Second, log, "memory replication: JetStream is not ready; trying again", notEnabled,
		func(ctx context.Context) (err error) {
			j, err = jetstream.Open(ctx, nc, jetstream.Options{Replicas: cfg.Memory.StreamReplicas, IDKey: cfg.Memory.IDKeyBytes(), Logger: log})
			return err
		})
	return j, err
}

// restore restores a new store from the newest snapshot, each try bounded
// to 20 s: a bucket whose stream has just been created may not answer yet.
func restore(ctx context.Context, j *jetstream.Journal, path string, log *slog.Logger) (seq uint64, ok bool, err error) {
	err = retry(ctx, 20*time.Second, log, "memory replication: restoring from a snapshot failed; trying again", nil,
		func(ctx context.Context) (err error) {
			seq, ok, err = j.Restore(ctx, path)
			return err
		})
	return seq, ok, err
}

// retry calls try, each call bounded to each, until it succeeds, fails
// for good (final, when not nil, says so) or ctx ends, warning of every
// failure and waiting a second before the next call.
func retry(ctx context.Context, each time.Duration, log *slog.Logger, warning string, final func(error) bool, try func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, each)
		err := try(actx)
		cancel()
		if err == nil || final != nil && final(err) || ctx.Err() != nil {
			return err
		}
		log.Warn(warning, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

// follow makes the follower that applies the stream to the replica's own
// store, calling newItems (the serving domain's Wake) when new items are
// stored, for its embedding worker; Start runs it.
func (r *replica) follow(newItems func(context.Context), log *slog.Logger) {
	opts := followOptions
	opts.NewItems = newItems
	r.follower = r.journal.NewFollower(r.name, r.store, opts)
	log.Info("memory replica following the write stream", "replica", r.name, "from", r.store.Applied()+1, "restored_from_snapshot", r.restored > 0)
}

// catchUpWithin bounds how long a replica waits, before taking calls, to
// have applied what the stream held when it started: past it, it takes
// them anyway (a read waits for the writes it must see, and says so when
// they do not come), as a replica that never served would help no one.
var catchUpWithin = time.Minute

// awaitCaughtUp waits for the follower to catch up, up to catchUpWithin.
// A replica that joined the bus earlier got reads it could not answer:
// right after a first start, and while it applies a long tail.
func (r *replica) awaitCaughtUp(log *slog.Logger) {
	select {
	case <-r.follower.CaughtUp():
	case <-time.After(catchUpWithin):
		log.Warn("memory replica takes calls before it has caught up with the write stream; reads wait for the writes they must see",
			"replica", r.name, "waited", catchUpWithin)
	}
}

// caughtUp reports whether the follower has caught up with the stream.
func (r *replica) caughtUp() bool {
	select {
	case <-r.follower.CaughtUp():
		return true
	default:
		return false
	}
}

func newReplicaName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "memory-" + hex.EncodeToString(b)
}
