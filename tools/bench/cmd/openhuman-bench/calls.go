package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

var paths = map[string]string{
	"rpc":         "POST /rpc",
	"rpc-learn":   "POST /rpc, memory.learn",
	"mcp":         "POST /mcp",
	"rpc-nothing": "POST /rpc, matching nothing",
	"healthz":     "GET /healthz",
}

// caller returns a func making one memory.fetch call over transport; for MCP
// each client opens its own session first. rpc-nothing asks for a word no
// item holds, in keyword mode: everything but the search itself; healthz
// is the HTTP server alone.
func caller(ctx context.Context, client *http.Client, base, transport string, acks *ackLog) (func(q string) error, error) {
	switch transport {
	case "rpc-learn":
		return learner(ctx, client, base, acks), nil
	case "rpc":
		return func(q string) error {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "openhuman.memory_fetch", "params": map[string]any{"query": q, "limit": 10}})
			resp, err := post(ctx, client, base+"/rpc", body, nil)
			if err == nil && !bytes.Contains(resp, []byte(`"result"`)) {
				err = fmt.Errorf("%.200s", resp)
			}
			return err
		}, nil
	case "rpc-nothing":
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"openhuman.memory_fetch","params":{"query":"zqxjvbnothing","mode":"keyword","limit":10}}`)
		return func(string) error {
			resp, err := post(ctx, client, base+"/rpc", body, nil)
			if err == nil && !bytes.Contains(resp, []byte(`"hits":[]`)) {
				err = fmt.Errorf("expected no hits: %.200s", resp)
			}
			return err
		}, nil
	case "healthz":
		return func(string) error {
			return expect(ctx, client, http.MethodGet, base, "/healthz", nil, http.StatusOK)
		}, nil
	case "mcp":
		headers := http.Header{"Accept": {"application/json, text/event-stream"}}
		init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"openhuman-bench"}}}`)
		if _, err := post(ctx, client, base+"/mcp", init, headers); err != nil {
			return nil, err
		}
		if headers.Get("Mcp-Session-Id") == "" {
			return nil, errors.New("initialize over /mcp returned no Mcp-Session-Id")
		}
		return func(q string) error {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "memory.fetch", "arguments": map[string]any{"query": q, "limit": 10}}})
			resp, err := post(ctx, client, base+"/mcp", body, headers)
			if err == nil && (!bytes.Contains(resp, []byte(`"result"`)) || bytes.Contains(resp, []byte(`"isError":true`))) {
				err = fmt.Errorf("%.200s", resp)
			}
			return err
		}, nil
	}
	return nil, fmt.Errorf("unknown transport %q: use rpc, mcp, rpc-learn, rpc-nothing or healthz", transport)
}

// post sends body; headers carry request headers in and the session id out.
func post(ctx context.Context, client *http.Client, url string, body []byte, headers http.Header) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && headers != nil {
		headers.Set("Mcp-Session-Id", sid)
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode >= 300 {
		err = fmt.Errorf("%s: HTTP %d: %.200s", url, resp.StatusCode, b)
	}
	return b, err
}
