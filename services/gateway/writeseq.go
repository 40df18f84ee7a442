package gateway

import (
	"encoding/json"
	"sync/atomic"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// writeSeq is the newest memory write sequence the gateway has forwarded a
// reply of. Every memory read it sends asks for at least that (ctx.min_seq),
// so whichever replica answers has applied every write acknowledged before
// the read: read-your-writes across /rpc, /mcp and stdio, at the cost of a
// wait only when the answering replica is behind. Without replication no
// reply carries a seq and reads ask for nothing.
type writeSeq struct{ v atomic.Uint64 }

// saw raises the mark to a write reply's seq.
func (w *writeSeq) saw(raw json.RawMessage) {
	var r struct {
		Seq uint64 `json:"seq"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Seq == 0 {
		return
	}
	for {
		cur := w.v.Load()
		if r.Seq <= cur || w.v.CompareAndSwap(cur, r.Seq) {
			return
		}
	}
}

// read sets cc's min_seq for a read of memory.
func (w *writeSeq) read(cc contract.CallContext) contract.CallContext {
	cc.MinSeq = max(cc.MinSeq, w.v.Load())
	return cc
}

// around sends one call to memory: a read waits for the mark, a write's
// reply raises it.
func (w *writeSeq) around(service string, writes bool, cc contract.CallContext, call func(contract.CallContext) (json.RawMessage, error)) (json.RawMessage, error) {
	if service != contract.ServiceMemory {
		return call(cc)
	}
	if !writes {
		cc = w.read(cc)
	}
	raw, err := call(cc)
	if err == nil && writes {
		w.saw(raw)
	}
	return raw, err
}
