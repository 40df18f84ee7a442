package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// With replication on, a write does not touch the store itself: it is
// prepared here (scrubbed, chunked, fingerprinted, timestamped) into an
// event, appended to the journal, and applied, in the journal's order, by
// every replica's Apply, this one's included. The write returns once its
// own replica has applied it, with the journal's sequence, which a later
// read passes back as min_seq to wait for on whichever replica answers.

// journal is the replicated log of memory writes (services/memory/jetstream).
// Subjects are relative to the journal's prefix; every method returns
// UNAVAILABLE when the log cannot be reached.
type journal interface {
	// Append stores data on subject once per msgID ("" never
	// de-duplicates) and returns its sequence; dup reports that msgID was
	// already stored, at seq.
	Append(ctx context.Context, subject, msgID string, data []byte) (seq uint64, dup bool, err error)
	// Holds reports whether the message at seq is still stored.
	Holds(ctx context.Context, seq uint64) (bool, error)
	// Last returns the sequence of the newest message, of subject when
	// not "" (0 when there is none).
	Last(ctx context.Context, subject string) (uint64, error)
	// Purge removes subject's messages below seq (all when 0).
	Purge(ctx context.Context, subject string, below uint64) error
	// DropSnapshots removes the stored snapshots of sequences below seq
	// (every one when 0).
	DropSnapshots(ctx context.Context, below uint64) error
	// MaxData is the largest event Append takes, in bytes.
	MaxData() int
}

// Journal subjects, below the journal's prefix: a learning or conversation
// turn on its own subject, an ingested source's versions and parts on its
// source's, and deletions on one subject that holds no text.
const (
	SubjectForget = "forget"
	subjectItem   = "item."
	subjectSource = "source."
)

// readWait bounds how long a read waits for its replica to apply min_seq.
const readWait = 5 * time.Second

// replication is a Service's replicated state; nil when off.
type replication struct {
	log     journal
	applied atomic.Uint64
	mu      sync.Mutex
	moved   chan struct{} // closed and replaced each time applied grows
	results map[uint64]outcome
}

// outcome is what applying one event did, for the write that appended it.
type outcome struct {
	Replayed  []bool
	Unchanged bool
	Missing   []string
}

// event is one write as the journal carries it, ready to apply.
type event struct {
	Op    string        `json:"op"` // put, replace, start, part, delete
	Items []Item        `json:"items,omitempty"`
	Src   *SourceRecord `json:"src,omitempty"`
	Last  bool          `json:"last,omitempty"`
	IDs   []string      `json:"ids,omitempty"`
	// Workspaces of a delete: null is every workspace, [] none.
	Workspaces []string `json:"workspaces"`
}

// Replicate sends every later write through log and starts the service at
// applied, the store's last applied sequence.
func (s *Service) Replicate(log journal, applied uint64) {
	r := &replication{log: log, moved: make(chan struct{}), results: map[uint64]outcome{}}
	r.applied.Store(applied)
	s.repl = r
}

// Applied is the last journal sequence this replica applied (0 when not
// replicated).
func (s *Service) Applied() uint64 {
	if s.repl == nil {
		return 0
	}
	return s.repl.applied.Load()
}

type appliedSeqKey struct{}

// NewContextWithAppliedSeq marks the store writes made with ctx as the
// effect of journal event seq: the store records seq in their transaction.
func NewContextWithAppliedSeq(ctx context.Context, seq uint64) context.Context {
	return context.WithValue(ctx, appliedSeqKey{}, seq)
}

// AppliedSeqFromContext is the journal sequence ctx carries, if any.
func AppliedSeqFromContext(ctx context.Context) (uint64, bool) {
	seq, ok := ctx.Value(appliedSeqKey{}).(uint64)
	return seq, ok
}

// Apply applies the journal event at seq to the store; one at or below
// the applied sequence is a redelivery and changes nothing. An event that
// cannot be decoded is INVALID_REQUEST: retrying will not help.
func (s *Service) Apply(ctx context.Context, seq uint64, data []byte) error {
	r := s.repl
	if seq <= r.applied.Load() {
		return nil
	}
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return contract.Errorf(contract.CodeInvalidRequest, "journal event %d is not an event: %v", seq, err)
	}
	ctx = NewContextWithAppliedSeq(ctx, seq)
	var out outcome
	var err error
	switch ev.Op {
	case "put":
		out.Replayed, err = s.store.Put(ctx, ev.Items)
	case "replace", "start", "part":
		if ev.Src == nil {
			return contract.Errorf(contract.CodeInvalidRequest, "journal event %d (%s) names no source", seq, ev.Op)
		}
		switch ev.Op {
		case "replace":
			out.Unchanged, out.Replayed, err = s.store.ReplaceSource(ctx, *ev.Src, ev.Items)
		case "start":
			out.Unchanged, err = s.store.StartSource(ctx, *ev.Src)
		default:
			out.Replayed, err = s.store.PutSourcePart(ctx, *ev.Src, ev.Items, ev.Last)
		}
	case "delete":
		out.Missing, err = s.store.Delete(ctx, ev.IDs, ev.Workspaces)
	default:
		return contract.Errorf(contract.CodeInvalidRequest, "journal event %d has unknown op %q", seq, ev.Op)
	}
	if err != nil {
		return err
	}
	r.advance(seq, &out)
	for _, rp := range out.Replayed {
		if !rp {
			s.embedNew(context.WithoutCancel(ctx))
			break
		}
	}
	return nil
}

// Skipped records that the event at seq was given up on (the store has
// marked it applied), so that reads waiting for it are not held.
func (s *Service) Skipped(seq uint64) { s.repl.advance(seq, nil) }

// advance moves the applied mark to seq and keeps out for the write
// waiting for it. Results nobody collects (other replicas' writes) are
// dropped once far behind.
func (r *replication) advance(seq uint64, out *outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if out != nil {
		r.results[seq] = *out
	}
	if len(r.results) > 4096 {
		for k := range r.results {
			if k+4096 < seq {
				delete(r.results, k)
			}
		}
	}
	if seq > r.applied.Load() {
		r.applied.Store(seq)
	}
	close(r.moved)
	r.moved = make(chan struct{})
}

// AwaitSeq waits, up to 5 s, until this replica has applied min: a read
// that must see a write answered elsewhere. UNAVAILABLE when it has not.
func (s *Service) AwaitSeq(ctx context.Context, min uint64) error {
	if s.repl == nil || min == 0 || s.repl.applied.Load() >= min {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readWait)
	defer cancel()
	if err := s.repl.await(ctx, min); err != nil {
		return contract.Errorf(contract.CodeUnavailable,
			"this memory replica is behind: it has applied the write stream up to %d, the read asks for %d; retry (another replica may answer)",
			s.repl.applied.Load(), min).With("min_seq", min)
	}
	return nil
}

func (r *replication) await(ctx context.Context, seq uint64) error {
	for {
		r.mu.Lock()
		if r.applied.Load() >= seq {
			r.mu.Unlock()
			return nil
		}
		moved := r.moved
		r.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// publish appends ev and waits until this replica has applied it; dup
// reports that msgID was stored before (nothing new was applied).
func (s *Service) publish(ctx context.Context, subject, msgID string, ev event) (seq uint64, out outcome, dup bool, err error) {
	r := s.repl
	data, err := json.Marshal(ev)
	if err != nil {
		return 0, out, false, contract.Errorf(contract.CodeInternal, "encoding a journal event: %v", err)
	}
	id := msgID
	// A new message is numbered after every one applied before it was sent.
	before := r.applied.Load()
	for range 3 {
		seq, dup, err = r.log.Append(ctx, subject, id, data)
		if err != nil || !dup || id == "" {
			break
		}
		// The same write was appended before: it stands unless a forget
		// purged it since, and then this one is new.
		held, herr := r.log.Holds(ctx, seq)
		if herr != nil {
			return 0, out, false, herr
		}
		if held {
			break
		}
		id = fmt.Sprintf("%s@%d", msgID, seq)
	}
	if err != nil {
		return 0, out, false, err
	}
	if !dup && seq <= before {
		// A new message numbered like one this replica applied: the stream
		// was deleted or lost and made again. Every replica that applied
		// that far would skip it as a redelivery, so it must not be
		// answered as stored.
		return 0, out, false, contract.Errorf(contract.CodeUnavailable,
			"the memory write stream went back: it numbered this write %d, but this replica had applied up to %d before sending it, so the stream was deleted or lost its storage in JetStream; restart the memory replicas (each continues the numbering after its store), then send the write again",
			seq, before)
	}
	if err := r.await(ctx, seq); err != nil {
		return seq, out, dup, contract.Errorf(contract.CodeUnavailable,
			"the write is stored in the journal (seq %d) but this replica has not applied it yet; read with min_seq %d to see it", seq, seq)
	}
	if !dup {
		r.mu.Lock()
		out = r.results[seq]
		delete(r.results, seq)
		r.mu.Unlock()
	}
	return seq, out, dup, nil
}

// sourceSubject names a source (its workspace and id) in the journal
// without saying which file it is.
func sourceSubject(workspace, id string) string {
	sum := sha256.Sum256([]byte(workspace + "\x00" + id))
	return subjectSource + hex.EncodeToString(sum[:16])
}

// replicatedPut appends each item on its own subject (so a forget can
// purge it alone) and returns the newest sequence.
func (s *Service) replicatedPut(ctx context.Context, items []Item) (replayed []bool, seq uint64, err error) {
	replayed = make([]bool, len(items))
	for i, it := range items {
		n, out, dup, err := s.publish(ctx, subjectItem+it.ID, "put:"+it.ID, event{Op: "put", Items: []Item{it}})
		if err != nil {
			return nil, 0, err
		}
		seq = max(seq, n)
		replayed[i] = dup || (len(out.Replayed) == 1 && out.Replayed[0])
	}
	return replayed, seq, nil
}

// replicatedReplace appends a whole source's new version.
func (s *Service) replicatedReplace(ctx context.Context, src SourceRecord, items []Item) (unchanged bool, replayed []bool, seq uint64, err error) {
	key := sourceSubject(src.Workspace, src.ID)
	return s.appendVersion(ctx, key, "replace:"+key+":"+src.ContentHash, src, items)
}

// appendVersion appends a source's new version on subject as one event,
// or, when that is larger than the journal carries (a file's chunks with
// their metadata in JSON outgrow the file), as a start and parts, which
// every replica applies as it would a file sent in parts. msgID ""
// never de-duplicates.
func (s *Service) appendVersion(ctx context.Context, subject, msgID string, src SourceRecord, items []Item) (unchanged bool, replayed []bool, seq uint64, err error) {
	groups, err := s.fitEvents(src, items)
	if err != nil {
		return false, nil, 0, err
	}
	if len(groups) == 1 {
		seq, out, dup, err := s.publish(ctx, subject, msgID, event{Op: "replace", Src: &src, Items: items})
		if err != nil || dup {
			return err == nil, nil, seq, err
		}
		return out.Unchanged, out.Replayed, seq, nil
	}
	seq, out, _, err := s.publish(ctx, subject, "", event{Op: "start", Src: &src})
	if err != nil || out.Unchanged {
		return out.Unchanged, nil, seq, err
	}
	if msgID != "" {
		msgID += ":split"
	}
	replayed, n, err := s.appendParts(ctx, subject, msgID, src, groups, true)
	return false, replayed, max(seq, n), err
}

// fitEvents cuts items into runs whose event fits the journal: one run
// when the whole version does.
func (s *Service) fitEvents(src SourceRecord, items []Item) ([][]Item, error) {
	limit := s.repl.log.MaxData()
	head, err := json.Marshal(event{Op: "part", Src: &src, Last: true})
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "encoding a journal event: %v", err)
	}
	var groups [][]Item
	size, start := len(head), 0
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, contract.Errorf(contract.CodeInternal, "encoding a journal event: %v", err)
		}
		if len(head)+len(b)+1 > limit {
			return nil, contract.Errorf(contract.CodeInvalidRequest,
				"%s: one chunk of it encodes to %d bytes, more than the %d the memory write stream carries; raise max_payload of the NATS server", src.DisplayName, len(b), limit)
		}
		if size+len(b)+1 > limit {
			groups = append(groups, items[start:i])
			size, start = len(head), i
		}
		size += len(b) + 1
	}
	return append(groups, items[start:]), nil
}

// replicatedStart appends the start of a source sent in parts. It is not
// de-duplicated: starting again only drops notes of other versions.
func (s *Service) replicatedStart(ctx context.Context, src SourceRecord) (unchanged bool, seq uint64, err error) {
	seq, out, _, err := s.publish(ctx, sourceSubject(src.Workspace, src.ID), "", event{Op: "start", Src: &src})
	return out.Unchanged, seq, err
}

// replicatedPart appends one part of a source, in as many events as it
// takes to fit the journal; a part sent again is stored once.
func (s *Service) replicatedPart(ctx context.Context, src SourceRecord, items []Item, last bool, offset int64) (replayed []bool, seq uint64, err error) {
	key := sourceSubject(src.Workspace, src.ID)
	groups, err := s.fitEvents(src, items)
	if err != nil {
		return nil, 0, err
	}
	return s.appendParts(ctx, key, fmt.Sprintf("part:%s:%s:%d", key, src.ContentHash, offset), src, groups, last)
}

// appendParts appends groups as parts of src, the last one last when
// last; msgID "" never de-duplicates.
func (s *Service) appendParts(ctx context.Context, subject, msgID string, src SourceRecord, groups [][]Item, last bool) (replayed []bool, seq uint64, err error) {
	for i, group := range groups {
		end := last && i == len(groups)-1
		id := ""
		if msgID != "" {
			id = fmt.Sprintf("%s:%t", msgID, end)
			if i > 0 {
				id = fmt.Sprintf("%s:%d:%t", msgID, i, end)
			}
		}
		n, out, dup, err := s.publish(ctx, subject, id, event{Op: "part", Src: &src, Items: group, Last: end})
		if err != nil {
			return nil, seq, err
		}
		seq = max(seq, n)
		if dup || len(out.Replayed) != len(group) {
			out.Replayed = make([]bool, len(group))
			for j := range out.Replayed {
				out.Replayed[j] = dup
			}
		}
		replayed = append(replayed, out.Replayed...)
	}
	return replayed, seq, nil
}
