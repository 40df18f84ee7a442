// Package jetstream is memory's replicated store on NATS JetStream. Store
// is a memory.Store whose every write is an event of one stream (event.go,
// a wire format of its own); each replica's Follower applies the stream,
// with a durable consumer of its own, to the replica's own SQLite, and
// replicas leave snapshots of their store in a JetStream object store so a
// new replica starts from one and applies only the tail. The domain does
// not know it is replicated. A forget purges the text from the stream and
// the snapshots, and names its items by a keyed digest of their ids, never
// by id (forgetkey.go says why and where the key lives).
package jetstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Names the deployment's NATS permissions and tools refer to.
const (
	// Stream keeps every memory write, on subjects below Prefix.
	Stream = "OPENHUMAN_MEMORY"
	// Prefix is the first token of the stream's subjects. It is not
	// "openhuman": the gateway and agents may publish to openhuman.>, and
	// must not be able to write into memory's stream.
	Prefix = "openhuman_memory"
	// Bucket is the object store of snapshots (its stream is OBJ_<Bucket>).
	Bucket = "openhuman_memory_snapshots"
	// InboxPrefix is the reply prefix of the journal's connection, so its
	// NATS user need not read every _INBOX.
	InboxPrefix = "_INBOX_memory"
)

// Options configure a Journal; the zero value works.
type Options struct {
	// Replicas is how many servers keep the stream and the bucket (default 1).
	Replicas int
	// Duplicates is how long a message id is remembered (default 2 min).
	Duplicates time.Duration
	// IDKey is the secret forgets name items with (forgetkey.go): the same
	// on every replica, at least 16 bytes. Without it forgets are refused.
	IDKey  []byte
	Logger *slog.Logger
}

// Journal is the stream of memory writes and the bucket of snapshots.
type Journal struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	obs    jetstream.ObjectStore
	key    []byte
	log    *slog.Logger
}

// Open creates (or updates) the stream and the bucket on nc's JetStream.
func Open(ctx context.Context, nc *nats.Conn, opts Options) (*Journal, error) {
	if opts.Replicas <= 0 {
		opts.Replicas = 1
	}
	if opts.Duplicates <= 0 {
		opts.Duplicates = 2 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: Stream, Description: "OpenHuman memory writes: every memory replica applies them in order",
		Subjects: []string{Prefix + ".>"}, Storage: jetstream.FileStorage, Replicas: opts.Replicas,
		Retention: jetstream.LimitsPolicy, Duplicates: opts.Duplicates,
	})
	if err != nil {
		return nil, openErr("stream "+Stream, opts.Replicas, err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: Bucket, Description: "OpenHuman memory snapshots, one per replica",
		Storage: jetstream.FileStorage, Replicas: opts.Replicas,
	})
	if err != nil {
		return nil, openErr("object store "+Bucket, opts.Replicas, err)
	}
	return &Journal{nc: nc, js: js, stream: stream, obs: obs, key: opts.IDKey, log: opts.Logger}, nil
}

func openErr(what string, replicas int, err error) error {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return fmt.Errorf("memory replication needs JetStream, which the NATS server does not offer: enable it (jetstream { store_dir: ... } in nats.conf), or set memory.replicated (OPENHUMAN_MEMORY_REPLICATED) false (%w)", err)
	case errors.As(err, &api) && replicas > 1:
		return fmt.Errorf("creating the %s with %d replicas failed (%v): memory.stream_replicas (OPENHUMAN_MEMORY_STREAM_REPLICAS) must not exceed the servers of the NATS cluster; a single nats-server needs 1", what, replicas, err)
	}
	return fmt.Errorf("creating the memory %s: %w", what, err)
}

// unavailable reports a journal call that failed.
func unavailable(doing string, err error) error {
	return contract.Errorf(contract.CodeUnavailable, "the memory write stream (JetStream) failed while %s: %v", doing, err)
}

// Append publishes data and waits for the stream's acknowledgement.
func (j *Journal) Append(ctx context.Context, subject, msgID string, data []byte) (uint64, bool, error) {
	var opts []jetstream.PublishOpt
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	ack, err := j.js.PublishMsg(ctx, &nats.Msg{Subject: Prefix + "." + subject, Data: data}, opts...)
	if err != nil {
		// A lost acknowledgement may hide a stored write: sending the same
		// write again is stored once (its message id).
		return 0, false, contract.Errorf(contract.CodeUnavailable,
			"the memory write stream (JetStream) did not acknowledge the write: %v; it may or may not be stored, and sending it again is safe", err)
	}
	return ack.Sequence, ack.Duplicate, nil
}

// MaxData is the largest event Append takes: the connection's payload
// limit less room for the headers.
func (j *Journal) MaxData() int { return int(j.nc.MaxPayload()) - 4<<10 }

// Holds reports whether the message at seq is still in the stream.
func (j *Journal) Holds(ctx context.Context, seq uint64) (bool, error) {
	_, err := j.stream.GetMsg(ctx, seq)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	case err != nil:
		return false, unavailable("reading a message", err)
	}
	return true, nil
}

// Last is the newest sequence of the stream, or of subject.
func (j *Journal) Last(ctx context.Context, subject string) (uint64, error) {
	if subject == "" {
		info, err := j.stream.Info(ctx)
		if err != nil {
			return 0, unavailable("reading its state", err)
		}
		return info.State.LastSeq, nil
	}
	msg, err := j.stream.GetLastMsgForSubject(ctx, Prefix+"."+subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, nil
	case err != nil:
		return 0, unavailable("reading a subject's last message", err)
	}
	return msg.Sequence, nil
}

// Purge removes subject's messages below seq (every one when 0).
func (j *Journal) Purge(ctx context.Context, subject string, below uint64) error {
	opts := []jetstream.StreamPurgeOpt{jetstream.WithPurgeSubject(Prefix + "." + subject)}
	if below > 0 {
		opts = append(opts, jetstream.WithPurgeSequence(below))
	}
	if err := j.stream.Purge(ctx, opts...); err != nil {
		return unavailable("removing forgotten text", err)
	}
	return nil
}

// Continue makes sure the stream numbers new writes after applied, the
// last sequence a replica's store holds. A stream that ends below it was
// deleted or lost its storage and was made again: every replica that
// applied that far would skip new writes numbered like old ones. While it
// holds nothing yet it is moved on past applied (a purge up to applied+1
// sets its first sequence); once it holds writes numbered below applied,
// this store and the stream disagree and the replica must not start.
func (j *Journal) Continue(ctx context.Context, applied uint64) error {
	info, err := j.stream.Info(ctx)
	if err != nil {
		return unavailable("reading its state", err)
	}
	st := info.State
	switch {
	case st.LastSeq >= applied:
		return nil
	case st.Msgs == 0:
		if err := j.stream.Purge(ctx, jetstream.WithPurgeSequence(applied+1)); err != nil {
			return unavailable("moving its numbering on", err)
		}
		j.log.Warn("the memory write stream ended below what this replica applied (it was deleted or lost its storage); it now numbers new writes after the replica's",
			"stream_last_seq", st.LastSeq, "applied", applied)
		return nil
	}
	return fmt.Errorf("the memory write stream %s ends at sequence %d, but this replica's store has applied up to %d: the stream was deleted or lost its storage and has taken %d new writes since, numbered like ones this store holds. "+
		"Start first the replica whose store applied the most while the stream is empty, or move this replica's memory database aside so it starts again from a snapshot",
		Stream, st.LastSeq, applied, st.Msgs)
}

// snapshotName is the object holding replica name's snapshot.
func snapshotName(replica string) string { return "snapshot-" + replica }

// DropSnapshots deletes the snapshots of sequences below seq, every one
// when 0 (the object store purges their chunks).
func (j *Journal) DropSnapshots(ctx context.Context, below uint64) error {
	list, err := j.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return unavailable("listing snapshots", err)
	}
	for _, o := range list {
		if n, err := strconv.ParseUint(o.Metadata["seq"], 10, 64); below > 0 && err == nil && n >= below {
			continue
		}
		if err := j.obs.Delete(ctx, o.Name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return unavailable("deleting snapshot "+o.Name, err)
		}
		snapshotsDropped.Inc()
	}
	return nil
}

// Restore writes the newest usable snapshot to path and returns the
// sequence it holds; ok is false when there is none. A snapshot older than
// the newest forget may hold forgotten text and is never used.
func (j *Journal) Restore(ctx context.Context, path string) (seq uint64, ok bool, err error) {
	// An empty bucket is asked for its size, not listed: nats.go's List of
	// an empty bucket waits out its context, without an error, when the
	// bucket's stream fails its first request (as a cluster that has just
	// started may), which left a fresh replica starting silently for a
	// minute and more.
	status, err := j.obs.Status(ctx)
	if err != nil {
		return 0, false, unavailable("reading the snapshot bucket", err)
	}
	if status.Size() == 0 {
		return 0, false, nil
	}
	list, err := j.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, unavailable("listing snapshots", err)
	}
	forgot, err := j.Last(ctx, subjectForget)
	if err != nil {
		return 0, false, err
	}
	var best *jetstream.ObjectInfo
	var bestSeq uint64
	for _, o := range list {
		n, err := strconv.ParseUint(o.Metadata["seq"], 10, 64)
		if err != nil || n < forgot || n <= bestSeq {
			continue
		}
		best, bestSeq = o, n
	}
	if best == nil {
		return 0, false, nil
	}
	// Written beside path and renamed once whole: a read cut short must not
	// leave a part of a database where the next start would open it.
	part := path + ".restoring"
	if err := j.obs.GetFile(ctx, best.Name, part); err != nil {
		os.Remove(part)
		return 0, false, unavailable("reading snapshot "+best.Name, err)
	}
	if err := os.Rename(part, path); err != nil {
		os.Remove(part)
		return 0, false, err
	}
	j.log.Info("memory restored from a snapshot", "snapshot", best.Name, "seq", bestSeq, "bytes", best.Size)
	return bestSeq, true, nil
}
