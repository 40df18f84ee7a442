package jetstream

import (
	"context"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// putWindow bounds the events of one write in flight at once, well under
// the client's limit of pending asynchronous publishes.
const putWindow = 256

// AppendAsync publishes data without waiting for the stream's
// acknowledgement, which the future brings.
func (j *Journal) AppendAsync(subject, msgID string, data []byte) (jetstream.PubAckFuture, error) {
	f, err := j.js.PublishMsgAsync(&nats.Msg{Subject: Prefix + "." + subject, Data: data}, jetstream.WithMsgID(msgID))
	if err != nil {
		return nil, notAcknowledged(err)
	}
	return f, nil
}

func notAcknowledged(err error) error {
	// A lost acknowledgement may hide a stored write: sending the same
	// write again is stored once (its message id).
	return contract.Errorf(contract.CodeUnavailable,
		"the memory write stream (JetStream) did not acknowledge the write: %v; it may or may not be stored, and sending it again is safe", err)
}

// putMany appends items, each on its own subject (so a forget can purge
// it alone), sending a window of events before waiting for their
// acknowledgements, and waits once for this replica to apply the newest:
// a write of many items (an import, a conversation's turns) costs a round
// trip and a wait per window, not per item.
func (s *Store) putMany(ctx context.Context, items []memory.Item) (memory.Written, error) {
	w := memory.Written{Replayed: make([]bool, len(items))}
	seqs := make([]uint64, len(items))
	before := s.applied.Load()
	for start := 0; start < len(items); start += putWindow {
		if err := s.sendWindow(ctx, items, start, min(start+putWindow, len(items)), seqs, w.Replayed); err != nil {
			return memory.Written{}, err
		}
	}
	for i, seq := range seqs {
		if !w.Replayed[i] && seq <= before {
			return memory.Written{}, contract.Errorf(contract.CodeUnavailable,
				"the memory write stream went back: it numbered a write %d, but this replica had applied up to %d before sending it, so the stream was deleted or lost its storage in JetStream; restart the memory replicas (each continues the numbering after its store), then send the write again",
				seq, before)
		}
		w.Seq = max(w.Seq, seq)
	}
	if err := s.await(ctx, w.Seq); err != nil {
		return memory.Written{}, contract.Errorf(contract.CodeUnavailable,
			"the write is stored in the journal (seq %d) but this replica has not applied it yet; read with min_seq %d to see it", w.Seq, w.Seq)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, seq := range seqs {
		if w.Replayed[i] {
			continue
		}
		out, ok := s.results[seq]
		delete(s.results, seq)
		w.Replayed[i] = ok && len(out.Replayed) == 1 && out.Replayed[0]
	}
	return w, nil
}

// sendWindow appends items[from:to] and waits for their acknowledgements,
// setting seqs and, for those stored before, replayed. One stored before
// whose message a forget purged since is new, and goes through publish,
// which sends it again under another message id.
func (s *Store) sendWindow(ctx context.Context, items []memory.Item, from, to int, seqs []uint64, replayed []bool) error {
	futures := make([]jetstream.PubAckFuture, 0, to-from)
	for _, it := range items[from:to] {
		data, err := encode(event{Op: opPut, Items: []wireItem{toWire(it)}})
		if err != nil {
			return err
		}
		f, err := s.j.AppendAsync(subjectItem+it.ID, "put:"+it.ID, data)
		if err != nil {
			return err
		}
		futures = append(futures, f)
	}
	for k, f := range futures {
		i := from + k
		select {
		case ack := <-f.Ok():
			seqs[i], replayed[i] = ack.Sequence, ack.Duplicate
		case err := <-f.Err():
			return notAcknowledged(err)
		case <-ctx.Done():
			return notAcknowledged(ctx.Err())
		}
		if !replayed[i] {
			continue
		}
		held, err := s.j.Holds(ctx, seqs[i])
		if err != nil || held {
			if err != nil {
				return err
			}
			continue
		}
		it := items[i]
		n, out, dup, err := s.publish(ctx, subjectItem+it.ID, "put:"+it.ID, event{Op: opPut, Items: []wireItem{toWire(it)}})
		if err != nil {
			return err
		}
		seqs[i], replayed[i] = n, dup || (len(out.Replayed) == 1 && out.Replayed[0])
	}
	return nil
}
