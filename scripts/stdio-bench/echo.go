//go:build ignore

// echo is the least an MCP server over stdio can do: one goroutine reads
// each line and writes its answer, to every tools/call a ten-hit fetch
// reply of the shape memory.fetch writes, made up once. Run through
// bench.mjs as a --core (it takes memory.learn's calls too), it shows what
// the client and the pipe take, and how far a ping moves between runs of
// one binary (docs/benchmarks.md, run J):
//
//	go build -o /tmp/echo scripts/stdio-bench/echo.go
//	node .cache/stdio-bench/bench.mjs --core a=/tmp/echo --core b=/tmp/echo --notes 300
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	var hits []map[string]any
	for i := range 10 {
		hits = append(hits, map[string]any{"id": fmt.Sprintf("%032x", i), "kind": "learning",
			"text": fmt.Sprintf("Note %d: the deploy decision for team 150 was recorded after the billing review with Ana on day 3.", i),
			"meta": map[string]any{"source": "client", "provenance": "mcp", "learning_kind": "fact",
				"observed_at": "2026-12-04T21:33:21.298Z", "created_at": "2026-12-04T21:33:21.298Z"},
			"score": 1.3, "confidence": 0.8})
	}
	res := map[string]any{"hits": hits, "mode": "hybrid"}
	text, _ := json.MarshalIndent(res, "", "  ")
	call, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}, "structuredContent": res})
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue // notifications
		}
		result := "{}"
		switch m.Method {
		case "initialize":
			result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}`, m.Params.ProtocolVersion)
		case "tools/call":
			result = string(call)
		}
		fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
	}
}
