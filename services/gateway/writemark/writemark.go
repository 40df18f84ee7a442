// Package writemark gives the gateway read-your-writes over replicated
// memory: it keeps the newest write sequence a reply was forwarded of, and
// every memory read asks the replica that answers to have applied it.
package writemark

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// Mark is the newest memory write sequence the gateway has forwarded a
// reply of. Every memory read it sends asks for at least that (ctx.min_seq),
// so whichever replica answers has applied every write acknowledged before
// the read: read-your-writes across /rpc, /mcp and stdio, at the cost of a
// wait only when the answering replica is behind. Without replication no
// reply carries a seq and reads ask for nothing.
type Mark struct{ v atomic.Uint64 }

// raise raises the mark to a write reply's seq.
func (w *Mark) raise(seq uint64) {
	for {
		cur := w.v.Load()
		if seq <= cur || w.v.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// Reply is what the gateway reads of a write's reply: the id of what
// was written (for the audit) and the stream sequence (for the mark), in
// one pass over the reply. Each member is read as json.Unmarshal into
// {ID string; Seq uint64} reads it (key case ignored, the last one
// winning), but a member of the wrong type leaves only its own field empty.
type Reply struct {
	ID  string
	Seq uint64
	// Forgotten is how many items a forget removed, -1 when the reply
	// does not say: the audit row of a forget counts them.
	Forgotten int
}

// ReadReply reads a write's reply.
func ReadReply(raw json.RawMessage) *Reply {
	wr := &Reply{Forgotten: -1}
	contract.EachMember(raw, func(key, value []byte) {
		switch k := jsonrpc.MemberName(key); {
		case k == "forgotten":
			if n, err := strconv.Atoi(string(value)); err == nil {
				wr.Forgotten = n
			}
		case strings.EqualFold(k, "id"):
			wr.ID = ""
			if id := jsonrpc.PlainString(value); id != "" {
				wr.ID = id
			} else {
				_ = json.Unmarshal(value, &wr.ID)
			}
		case strings.EqualFold(k, "seq"):
			wr.Seq, _ = strconv.ParseUint(string(value), 10, 64)
		}
	})
	return wr
}

// read sets cc's min_seq for a read of memory.
func (w *Mark) read(cc contract.CallContext) contract.CallContext {
	cc.MinSeq = max(cc.MinSeq, w.v.Load())
	return cc
}

// Around sends one call to service. To memory, a read waits for the mark
// and a write's reply raises it. It returns the write's reply as read, nil
// for any other call.
func (w *Mark) Around(service string, writes bool, cc contract.CallContext, call func(contract.CallContext) (json.RawMessage, error)) (json.RawMessage, *Reply, error) {
	if service != contract.ServiceMemory {
		raw, err := call(cc)
		return raw, nil, err
	}
	if !writes {
		cc = w.read(cc)
	}
	raw, err := call(cc)
	if err != nil || !writes {
		return raw, nil, err
	}
	wr := ReadReply(raw)
	w.raise(wr.Seq)
	return raw, wr, nil
}
