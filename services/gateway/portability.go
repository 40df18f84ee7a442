package gateway

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Import sends export records (docs/export.md) to the memory service to
// store, each with its id; openhuman-core import calls it batch by batch.
// Like Ingest it is the command line's path, not a tool: it passes no act
// gate (a million lines are one person's own memory coming home, not a
// million actions) and the memory service holds the caller to its
// workspaces.
func (g *Gateway) Import(ctx context.Context, records []json.RawMessage, cc contract.CallContext) (*contract.ImportResult, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	raw, _, err := g.seq.Around(contract.ServiceMemory, true, cc, func(cc contract.CallContext) (json.RawMessage, error) {
		return g.bus.CallEndpoint(ctx, contract.ImportEndpoint, map[string]any{"items": records}, cc)
	})
	if err != nil {
		return nil, err
	}
	var res contract.ImportResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Results) != len(records) {
		return nil, contract.Errorf(contract.CodeInternal, "the memory service sent a malformed import reply")
	}
	return &res, nil
}

// Export reads one page of memory.export (the same call /rpc's
// openhuman.memory_export makes: scope gate, metrics, scoping).
func (g *Gateway) Export(ctx context.Context, args map[string]any, cc contract.CallContext) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "encoding export arguments: %v", err)
	}
	return g.Dispatch(ctx, contract.MemoryExport, b, cc)
}
