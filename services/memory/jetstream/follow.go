package jetstream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Follow settings.
type FollowOptions struct {
	// SnapshotEvery uploads a snapshot after this many applied events
	// (default 1000), and SnapshotInterval after this long with any
	// (default 10 min).
	SnapshotEvery    int
	SnapshotInterval time.Duration
	// TempDir holds a snapshot while it is uploaded (default: os.TempDir).
	TempDir string
	// NewItems, when set, is called after events stored new items: the
	// domain's embedding worker is woken (memory.Service.Wake). It is
	// called from a goroutine of its own, never from the loop applying
	// the stream, so a slow embedder holds back no event; events applied
	// while it runs are told of by one call after it.
	NewItems func(context.Context)
}

// attempts is how many times an event is applied before it is judged.
const attempts = 5

// Follower applies the stream to one replica.
type Follower struct {
	j       *Journal
	name    string
	st      *Store
	opts    FollowOptions
	applied atomic.Int64 // events this follower applied (not skipped or redelivered)
	since   int          // events applied since the last snapshot
	// caughtUp closes once the follower has its consumer and has applied
	// every event the stream held when it made it.
	caughtUp   chan struct{}
	caughtOnce sync.Once
	last       time.Time // last snapshot
	// fresh holds a signal when events stored new items since NewItems
	// was last called.
	fresh chan struct{}
}

// NewFollower follows the stream as the durable consumer name (the
// replica's own), applying it to st's own store.
func (j *Journal) NewFollower(name string, st *Store, opts FollowOptions) *Follower {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 1000
	}
	if opts.SnapshotInterval <= 0 {
		opts.SnapshotInterval = 10 * time.Minute
	}
	return &Follower{j: j, name: name, st: st, opts: opts, last: time.Now(), caughtUp: make(chan struct{}),
		fresh: make(chan struct{}, 1)}
}

// CaughtUp is closed once the follower follows the stream and has applied
// every event it held then: a replica that serves reads before that
// answers them "behind" until it gets there.
func (f *Follower) CaughtUp() <-chan struct{} { return f.caughtUp }

func (f *Follower) markCaughtUp() { f.caughtOnce.Do(func() { close(f.caughtUp) }) }

// AppliedEvents counts the events this follower applied since it started.
func (f *Follower) AppliedEvents() int64 { return f.applied.Load() }

// Run applies the stream, in order, from the first event the replica has
// not applied, until ctx ends. The consumer is durable and named after the
// replica, but where to start comes from the store (which records each
// event's sequence with its effect): a consumer the server dropped while
// the replica was away is made again at the right place.
func (f *Follower) Run(ctx context.Context) error {
	if f.opts.NewItems != nil {
		told := make(chan struct{})
		defer func() { <-told }()
		go func() { defer close(told); f.tell(ctx) }()
	}
	for {
		err := f.run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		f.j.log.Error("memory replication stopped following the write stream; retrying", "replica", f.name, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

func (f *Follower) run(ctx context.Context) error {
	cons, err := f.consumer(ctx)
	if err != nil {
		return err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(256))
	if err != nil {
		return err
	}
	if cons.CachedInfo().NumPending == 0 {
		f.markCaughtUp()
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		msg, err := it.Next(jetstream.NextMaxWait(time.Minute))
		switch {
		case errors.Is(err, jetstream.ErrMsgIteratorClosed):
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
			f.maybeSnapshot(ctx, false)
			continue
		case err != nil:
			return err
		}
		if err := f.handle(ctx, msg); err != nil {
			return err
		}
	}
}

// consumer creates the replica's durable consumer at the store's position.
func (f *Follower) consumer(ctx context.Context) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable: f.name, Description: "memory replica " + f.name,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute,
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: f.st.Applied() + 1,
		MaxAckPending: 1024, FilterSubject: Prefix + ".>",
		// A replica gone a day loses its consumer, not its place: it is
		// made again from the store's sequence when the replica returns.
		InactiveThreshold: 24 * time.Hour,
	}
	// A consumer left by an earlier run is made again, never reused: it
	// may have sent events the replica never applied (pulled, then the
	// replica stopped), and it would send those again only after AckWait,
	// behind newer ones, which the replica would apply first and then
	// take the old ones for redeliveries. Starting from the store's
	// sequence delivers every event in order.
	if err := f.j.js.DeleteConsumer(ctx, Stream, f.name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, err
	}
	return f.j.js.CreateConsumer(ctx, Stream, cfg)
}

// handle applies one message, after any event before it the consumer
// skipped past (fillGap); apply says what becomes of one that fails.
func (f *Follower) handle(ctx context.Context, msg jetstream.Msg) error {
	md, err := msg.Metadata()
	if err != nil {
		return err
	}
	seq := md.Sequence.Stream
	if seq <= f.st.Applied() {
		// A redelivery, or an event fillGap applied: the gauges say how
		// far the replica is all the same.
		appliedSeq.Set(float64(f.st.Applied()))
		lag.Set(float64(md.NumPending))
		if md.NumPending == 0 {
			f.markCaughtUp()
		}
		return msg.Ack()
	}
	if err := f.fillGap(ctx, seq); err != nil {
		return err
	}
	poisoned, err := f.apply(ctx, seq, msg.Subject(), msg.Data())
	if err != nil {
		return err
	}
	if poisoned {
		_ = msg.Term()
		if md.NumPending == 0 {
			f.markCaughtUp()
		}
		return nil
	}
	if err := msg.Ack(); err != nil {
		// Applied and recorded: a redelivery is skipped by its sequence.
		f.j.log.Warn("memory replication could not acknowledge an applied event", "seq", seq, "err", err)
	}
	appliedSeq.Set(float64(seq))
	lag.Set(float64(md.NumPending))
	if md.NumPending == 0 {
		f.markCaughtUp()
	}
	f.since++
	f.maybeSnapshot(ctx, msg.Subject() == Prefix+"."+subjectForget)
	return nil
}

// apply applies the event at seq. An event is tried a few times; then, if
// the store is sound, the event itself is at fault (a poison event): it is
// logged, counted and skipped (marked applied so the replica moves on, and
// reported as poisoned for the caller to terminate) rather than wedging
// the replica. If the store is not sound, skipping would lose the write on
// this replica, so it keeps trying, loudly, with its health reporting the
// trouble.
func (f *Follower) apply(ctx context.Context, seq uint64, subject string, data []byte) (skipped bool, err error) {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		fresh, err := f.st.apply(ctx, seq, data)
		if err == nil {
			f.applied.Add(1)
			if fresh {
				f.signalFresh()
			}
			return false, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		applyErrors.Inc()
		var ce *contract.Error
		poison := errors.As(err, &ce) && ce.Code == contract.CodeInvalidRequest
		if !poison && attempt >= attempts && f.st.in.Health().OK {
			poison = ce == nil || ce.Code != contract.CodeUnavailable
		}
		if poison {
			poisoned.Inc()
			f.j.log.Error("memory replication SKIPPED an event it cannot apply; this replica no longer matches the others for it",
				"replica", f.name, "seq", seq, "subject", subject, "attempts", attempt, "err", err)
			if err := f.st.in.MarkApplied(ctx, seq); err != nil {
				return false, err
			}
			f.st.skipped(seq)
			return true, nil
		}
		f.j.log.Error("memory replication could not apply an event; retrying", "replica", f.name, "seq", seq, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// signalFresh notes that new items were stored, for tell; it never waits.
func (f *Follower) signalFresh() {
	select {
	case f.fresh <- struct{}{}:
	default: // one is pending already: it covers these items too
	}
}

// tell calls NewItems after each signal of new items until ctx ends.
func (f *Follower) tell(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.fresh:
			f.opts.NewItems(ctx)
		}
	}
}

// fillGap applies, from the stream itself, the events between the last one
// applied and seq that the consumer has not delivered in order. A pull
// consumer delivers in order only while nothing is lost: a batch in flight
// when the connection drops (a partition, a NATS server stopped) is
// delivered again only after the ack wait, after newer events, and applying
// those first would move the applied mark past it for good. A gap can
// also be messages purged by a forget, which are no longer stored and need
// nothing.
func (f *Follower) fillGap(ctx context.Context, seq uint64) error {
	filled := 0
	for s := f.st.Applied() + 1; s < seq; s = max(s+1, f.st.Applied()+1) {
		raw, err := f.readGap(ctx, s, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := f.apply(ctx, s, raw.Subject, raw.Data); err != nil {
			return err
		}
		filled++
	}
	if filled > 0 {
		f.j.log.Warn("memory replication applied events its consumer skipped past", "replica", f.name, "events", filled, "before", seq)
	}
	return nil
}

// gapReadWait bounds one read of a gap: while NATS is unreachable a
// request waits for its context, and the failure must be seen and told.
var gapReadWait = 5 * time.Second

// readGap reads the event at s, missing before seq, from the stream. A
// read that fails (NATS unreachable, JetStream without a leader) is
// logged, counted and tried again, with backoff, until it answers or ctx
// ends: the replica stays before the gap rather than apply seq without
// the events before it and differ from the others for good. Only a
// message the stream no longer holds (ErrMsgNotFound: purged by a forget)
// is passed over.
func (f *Follower) readGap(ctx context.Context, s, seq uint64) (*jetstream.RawStreamMsg, error) {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, gapReadWait)
		raw, err := f.j.stream.GetMsg(rctx, s)
		cancel()
		if err == nil || errors.Is(err, jetstream.ErrMsgNotFound) {
			return raw, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		gapReadErrors.Inc()
		f.j.log.Error("memory replication could not read an event its consumer skipped past; retrying, and applying nothing after it meanwhile",
			"replica", f.name, "seq", s, "before", seq, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// maybeSnapshot uploads a snapshot when enough happened since the last:
// at once after a forget, whose text older snapshots held and which the
// forget deleted.
func (f *Follower) maybeSnapshot(ctx context.Context, now bool) {
	due := now || f.since >= f.opts.SnapshotEvery || (f.since > 0 && time.Since(f.last) >= f.opts.SnapshotInterval)
	if !due {
		return
	}
	if err := f.Snapshot(ctx); err != nil {
		f.j.log.Warn("memory snapshot failed; new replicas replay more of the stream until one succeeds", "replica", f.name, "err", err)
	}
}

// Snapshot uploads the replica's store, as of the last applied event, as
// its snapshot. It runs between events, so the store's sequence is the
// one applied.
func (f *Follower) Snapshot(ctx context.Context) error {
	f.since, f.last = 0, time.Now()
	dir, err := os.MkdirTemp(f.opts.TempDir, "memory-snapshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.db")
	seq, err := f.st.in.Snapshot(ctx, path)
	if err != nil {
		return err
	}
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	_, err = f.j.obs.Put(ctx, jetstream.ObjectMeta{Name: snapshotName(f.name),
		Metadata: map[string]string{"seq": strconv.FormatUint(seq, 10)}}, file)
	if err != nil {
		return unavailable("uploading a snapshot", err)
	}
	snapshots.Inc()
	f.j.log.Debug("memory snapshot uploaded", "replica", f.name, "seq", seq)
	return nil
}
