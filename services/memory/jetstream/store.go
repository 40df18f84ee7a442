package jetstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// Store is memory's store when replicated. Reads go to the replica's own
// store. A write does not touch it: the write, prepared by the domain
// (scrubbed, chunked, fingerprinted, timestamped), is appended to the
// stream as an event, and every replica's follower applies it to its own
// store in the stream's order, this replica's included. The write returns
// once its own replica has applied it, with what it did and the stream's
// sequence, which a later read passes back as min_seq to wait for
// (Await) on whichever replica answers.
type Store struct {
	memory.Store // the replica's own, for reads and vectors
	in           inner
	j            *Journal
	applied      atomic.Uint64
	mu           sync.Mutex
	moved        chan struct{} // closed and replaced each time applied grows
	results      map[uint64]memory.Written
}

// inner is the replica's own store (services/memory/sqlite), which the
// follower applies the stream to.
type inner interface {
	memory.Store
	// At is the store whose writes record seq as the last event applied,
	// in their own transaction.
	At(seq uint64) memory.Writer
	// MarkApplied records seq as applied without any other change.
	MarkApplied(ctx context.Context, seq uint64) error
	// Snapshot writes a copy of the store to path and returns the last
	// event it holds.
	Snapshot(ctx context.Context, path string) (uint64, error)
	// ItemIDs lists the ids of the items of workspaces (all when nil).
	ItemIDs(ctx context.Context, workspaces []string) ([]string, error)
}

var _ memory.Store = (*Store)(nil)

// Stream subjects, below Prefix: a learning or conversation turn on its
// own subject, an ingested source's versions and parts on its source's,
// and deletions on one subject that holds no text.
const (
	subjectForget = "forget"
	subjectItem   = "item."
	subjectSource = "source."
)

// readWait bounds how long a read waits for its replica to apply min_seq.
const readWait = 5 * time.Second

// resultsKept bounds the outcomes kept for writes: those nobody collects
// (other replicas' writes) are dropped once this far behind.
const resultsKept = 4096

// NewStore replicates in through j's stream; applied is the last event in
// holds (sqlite.Store.Replica). A Follower applies the stream to it.
func NewStore(j *Journal, in inner, applied uint64) *Store {
	s := &Store{Store: in, in: in, j: j, moved: make(chan struct{}), results: map[uint64]memory.Written{}}
	s.applied.Store(applied)
	return s
}

// Applied is the last stream sequence this replica applied.
func (s *Store) Applied() uint64 { return s.applied.Load() }

// Await waits, up to 5 s, until this replica has applied seq: a read that
// must see a write answered elsewhere. UNAVAILABLE when it has not.
func (s *Store) Await(ctx context.Context, seq uint64) error {
	if seq == 0 || s.applied.Load() >= seq {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readWait)
	defer cancel()
	if err := s.await(ctx, seq); err != nil {
		return contract.Errorf(contract.CodeUnavailable,
			"this memory replica is behind: it has applied the write stream up to %d, the read asks for %d; retry (another replica may answer)",
			s.applied.Load(), seq).With("min_seq", seq)
	}
	return nil
}

func (s *Store) await(ctx context.Context, seq uint64) error {
	for {
		s.mu.Lock()
		if s.applied.Load() >= seq {
			s.mu.Unlock()
			return nil
		}
		moved := s.moved
		s.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// apply applies the event at seq to the replica's own store; one at or
// below the applied sequence is a redelivery and changes nothing. fresh
// reports that it stored new items (which want vectors).
func (s *Store) apply(ctx context.Context, seq uint64, data []byte) (fresh bool, err error) {
	if seq <= s.applied.Load() {
		return false, nil
	}
	ev, err := decode(seq, data)
	if err != nil {
		return false, err
	}
	w := s.in.At(seq)
	var out memory.Written
	switch ev.Op {
	case opPut:
		out, err = w.Put(ctx, ev.items())
	case opReplace, opStart, opPart:
		if ev.Src == nil {
			return false, contract.Errorf(contract.CodeInvalidRequest, "journal event %d (%s) names no source", seq, ev.Op)
		}
		src := ev.Src.record()
		switch ev.Op {
		case opReplace:
			out, err = w.ReplaceSource(ctx, src, ev.items())
		case opStart:
			out, err = w.StartSource(ctx, src)
		default:
			out, err = w.PutSourcePart(ctx, src, ev.items(), ev.Last)
		}
	case opDelete:
		out, err = w.Delete(ctx, ev.IDs, ev.Workspaces)
	case opForget:
		out, err = s.applyForget(ctx, w, seq, ev)
	default:
		return false, contract.Errorf(contract.CodeInvalidRequest, "journal event %d has unknown op %q", seq, ev.Op)
	}
	if err != nil {
		return false, err
	}
	s.advance(seq, &out)
	for _, r := range out.Replayed {
		fresh = fresh || !r
	}
	return fresh, nil
}

// skipped records that the event at seq was given up on (the store has
// marked it applied), so that reads waiting for it are not held.
func (s *Store) skipped(seq uint64) { s.advance(seq, nil) }

// advance moves the applied mark to seq and keeps out for the write
// waiting for it.
func (s *Store) advance(seq uint64, out *memory.Written) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out != nil {
		s.results[seq] = *out
	}
	if len(s.results) > resultsKept {
		for k := range s.results {
			if k+resultsKept < seq {
				delete(s.results, k)
			}
		}
	}
	if seq > s.applied.Load() {
		s.applied.Store(seq)
	}
	close(s.moved)
	s.moved = make(chan struct{})
}

// publish appends ev and waits until this replica has applied it; dup
// reports that msgID was stored before (nothing new was applied).
func (s *Store) publish(ctx context.Context, subject, msgID string, ev event) (seq uint64, out memory.Written, dup bool, err error) {
	data, err := encode(ev)
	if err != nil {
		return 0, out, false, err
	}
	id := msgID
	// A new message is numbered after every one applied before it was sent.
	before := s.applied.Load()
	for range 3 {
		seq, dup, err = s.j.Append(ctx, subject, id, data)
		if err != nil || !dup || id == "" {
			break
		}
		// The same write was appended before: it stands unless a forget
		// purged it since, and then this one is new.
		held, herr := s.j.Holds(ctx, seq)
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
	if err := s.await(ctx, seq); err != nil {
		return seq, out, dup, contract.Errorf(contract.CodeUnavailable,
			"the write is stored in the journal (seq %d) but this replica has not applied it yet; read with min_seq %d to see it", seq, seq)
	}
	if !dup {
		s.mu.Lock()
		out = s.results[seq]
		delete(s.results, seq)
		s.mu.Unlock()
	}
	return seq, out, dup, nil
}

// sourceSubject names a source (its workspace and id) in the stream
// without saying which file it is.
func sourceSubject(workspace, id string) string {
	sum := sha256.Sum256([]byte(workspace + "\x00" + id))
	return subjectSource + hex.EncodeToString(sum[:16])
}

// Put appends each item on its own subject (so a forget can purge it
// alone); Seq is the newest sequence. A write of several items sends them
// together (putMany).
func (s *Store) Put(ctx context.Context, items []memory.Item) (memory.Written, error) {
	if len(items) > 1 {
		return s.putMany(ctx, items)
	}
	w := memory.Written{Replayed: make([]bool, len(items))}
	for i, it := range items {
		n, out, dup, err := s.publish(ctx, subjectItem+it.ID, "put:"+it.ID, event{Op: opPut, Items: []wireItem{toWire(it)}})
		if err != nil {
			return memory.Written{}, err
		}
		w.Seq = max(w.Seq, n)
		w.Replayed[i] = dup || (len(out.Replayed) == 1 && out.Replayed[0])
	}
	return w, nil
}

// ReplaceSource appends a whole source's new version.
func (s *Store) ReplaceSource(ctx context.Context, src memory.SourceRecord, items []memory.Item) (memory.Written, error) {
	key := sourceSubject(src.Workspace, src.ID)
	return s.appendVersion(ctx, key, "replace:"+key+":"+src.ContentHash, src, items)
}

// StartSource appends the start of a source sent in parts. It is not
// de-duplicated: starting again only drops notes of other versions.
func (s *Store) StartSource(ctx context.Context, src memory.SourceRecord) (memory.Written, error) {
	seq, out, _, err := s.publish(ctx, sourceSubject(src.Workspace, src.ID), "", event{Op: opStart, Src: toWireSource(src)})
	return memory.Written{Unchanged: out.Unchanged, Seq: seq}, err
}

// PutSourcePart appends one part of a source, in as many events as it
// takes to fit the stream; a part sent again (the same items of the same
// version) is stored once.
func (s *Store) PutSourcePart(ctx context.Context, src memory.SourceRecord, items []memory.Item, last bool) (memory.Written, error) {
	key := sourceSubject(src.Workspace, src.ID)
	groups, err := s.fitEvents(src, items)
	if err != nil {
		return memory.Written{}, err
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	part := sha256.Sum256([]byte(strings.Join(ids, "\x00")))
	msgID := fmt.Sprintf("part:%s:%s:%x", key, src.ContentHash, part[:8])
	return s.appendParts(ctx, key, msgID, src, groups, last)
}

// appendVersion appends a source's new version on subject as one event,
// or, when that is larger than the stream carries (a file's chunks with
// their metadata in JSON outgrow the file), as a start and parts, which
// every replica applies as it would a file sent in parts. msgID ""
// never de-duplicates.
func (s *Store) appendVersion(ctx context.Context, subject, msgID string, src memory.SourceRecord, items []memory.Item) (memory.Written, error) {
	groups, err := s.fitEvents(src, items)
	if err != nil {
		return memory.Written{}, err
	}
	if len(groups) == 1 {
		seq, out, dup, err := s.publish(ctx, subject, msgID, event{Op: opReplace, Src: toWireSource(src), Items: toWireItems(items)})
		if err != nil || dup {
			return memory.Written{Unchanged: err == nil, Seq: seq}, err
		}
		out.Seq = seq
		return out, nil
	}
	seq, out, _, err := s.publish(ctx, subject, "", event{Op: opStart, Src: toWireSource(src)})
	if err != nil || out.Unchanged {
		return memory.Written{Unchanged: out.Unchanged, Seq: seq}, err
	}
	if msgID != "" {
		msgID += ":split"
	}
	w, err := s.appendParts(ctx, subject, msgID, src, groups, true)
	w.Seq = max(w.Seq, seq)
	return w, err
}

// fitEvents cuts items into runs whose event fits the stream: one run
// when the whole version does.
func (s *Store) fitEvents(src memory.SourceRecord, items []memory.Item) ([][]memory.Item, error) {
	limit := s.j.MaxData()
	head, err := encode(event{Op: opPart, Src: toWireSource(src), Last: true})
	if err != nil {
		return nil, err
	}
	var groups [][]memory.Item
	size, start := len(head), 0
	for i, it := range items {
		b, err := json.Marshal(toWire(it))
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

// appendParts appends groups as parts of src, the last one last when
// last; msgID "" never de-duplicates.
func (s *Store) appendParts(ctx context.Context, subject, msgID string, src memory.SourceRecord, groups [][]memory.Item, last bool) (memory.Written, error) {
	var w memory.Written
	for i, group := range groups {
		end := last && i == len(groups)-1
		id := ""
		if msgID != "" {
			id = fmt.Sprintf("%s:%t", msgID, end)
			if i > 0 {
				id = fmt.Sprintf("%s:%d:%t", msgID, i, end)
			}
		}
		n, out, dup, err := s.publish(ctx, subject, id, event{Op: opPart, Src: toWireSource(src), Items: toWireItems(group), Last: end})
		if err != nil {
			return memory.Written{Seq: w.Seq}, err
		}
		w.Seq = max(w.Seq, n)
		if dup || len(out.Replayed) != len(group) {
			out.Replayed = make([]bool, len(group))
			for j := range out.Replayed {
				out.Replayed[j] = dup
			}
		}
		w.Replayed = append(w.Replayed, out.Replayed...)
	}
	return w, nil
}
