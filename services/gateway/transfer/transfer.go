// Package transfer moves memory in and out in bulk, for the command
// line: files and conversations ingested, export records (docs/export.md)
// imported batch by batch, the export read page by page. None of it is a
// tool call: what comes in passes no act gate (a million lines are one
// person's own memory coming home, not a million actions), and the
// memory service holds the caller to its workspaces.
package transfer

import (
	"context"
	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// gateway is the gateway as transfers use it: a write sent to a memory
// endpoint, a tool called through its gates.
type gateway interface {
	SendWrite(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error)
	Dispatch(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
}

// Ingest sends files to the memory service to store as document chunks.
func Ingest(ctx context.Context, gw gateway, files any, cc contract.CallContext) (json.RawMessage, error) {
	return gw.SendWrite(ctx, contract.IngestEndpoint, map[string]any{"files": files}, cc)
}

// IngestConversation sends conversation turns to the memory service.
func IngestConversation(ctx context.Context, gw gateway, turns any, cc contract.CallContext) (json.RawMessage, error) {
	return gw.SendWrite(ctx, contract.ConversationEndpoint, map[string]any{"turns": turns}, cc)
}

// Import sends export records (docs/export.md) to the memory service to
// store, each with its id; openhuman-core import calls it batch by batch.
func Import(ctx context.Context, gw gateway, records []json.RawMessage, cc contract.CallContext) (*contract.ImportResult, error) {
	raw, err := gw.SendWrite(ctx, contract.ImportEndpoint, map[string]any{"items": records}, cc)
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
func Export(ctx context.Context, gw gateway, args map[string]any, cc contract.CallContext) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "encoding export arguments: %v", err)
	}
	return gw.Dispatch(ctx, contract.MemoryExport, b, cc)
}
