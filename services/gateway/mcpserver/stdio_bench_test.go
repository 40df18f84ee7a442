package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// benchNotes is how many notes the stdio benchmarks' memory holds
// (scripts/stdio-bench.sh measures 3,000 through the TypeScript client;
// -stdio-notes 3000 profiles that here).
var benchNotes = flag.Int("stdio-notes", 300, "notes in memory for BenchmarkStdio")

// canned is the real gateway with one more tool, test.canned, that answers
// with a reply recorded from the real memory.fetch: the stdio session's own
// work on a large reply, without the retrieval behind it.
type canned struct {
	*gateway.Gateway
	reply json.RawMessage
}

func (c *canned) CallTool(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	if name == "test.canned" {
		return c.reply, nil
	}
	return c.Gateway.CallTool(ctx, name, args, cc)
}

// stdioClient is one stdio session driven the way a client drives it: a
// line written, its answer read.
type stdioClient struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func startStdioBench(b *testing.B) *stdioClient {
	b.Helper()
	gw := gatewaytest.Start(b, nil, gateway.Options{Timeout: 10 * time.Second})
	cc := contract.CallContext{Source: "bench"}
	for i := range *benchNotes {
		args, _ := json.Marshal(map[string]string{"text": benchNote(i, *benchNotes), "kind": "fact"})
		if _, err := gw.CallTool(context.Background(), "memory.learn", args, cc); err != nil {
			b.Fatal(err)
		}
	}
	reply, err := gw.CallTool(context.Background(), "memory.fetch", json.RawMessage(benchFetchArgs(*benchNotes)), cc)
	if err != nil {
		b.Fatal(err)
	}
	s := New(&canned{Gateway: gw, reply: reply}, &Options{Version: "bench", Instructions: gateway.Instructions})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.ServeStdio(ctx, inR, outW) }()
	b.Cleanup(func() { inW.Close(); cancel(); outR.Close(); <-done })
	c := &stdioClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	c.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	c.in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return c
}

// benchNote is the i-th of n notes scripts/stdio-bench/bench.mjs learns (change both together),
// so that a profile here is of the fetch that script times.
func benchNote(i, n int) string {
	teams := max(1, n/10)
	return fmt.Sprintf("Note %d: the %s decision for team %d was recorded after the %s review with %s on day %d.",
		i, benchTopics[i%len(benchTopics)], i%teams, benchTopics[i/10%len(benchTopics)], benchPeople[i%len(benchPeople)], i%28+1)
}

var (
	benchTopics = []string{"deploy", "billing", "postgres", "editor", "release", "standup", "kubernetes", "invoice", "holiday", "design"}
	benchPeople = []string{"Ana", "Bo", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kemal", "Lea"}
)

// benchFetchArgs are bench.mjs's fetch arguments for n notes.
func benchFetchArgs(n int) string {
	team := max(1, n/10) / 2
	return fmt.Sprintf(`{"query":"%s decision for team %d","limit":10}`, benchTopics[team%len(benchTopics)], team)
}

// benchFiveArgs is benchFetchArgs with five hits asked for.
func benchFiveArgs(n int) string {
	team := max(1, n/10) / 2
	return fmt.Sprintf(`{"query":"%s decision for team %d","limit":5}`, benchTopics[team%len(benchTopics)], team)
}

func (c *stdioClient) roundTrip(b *testing.B, line string) []byte {
	if _, err := c.in.Write([]byte(line + "\n")); err != nil {
		b.Fatal(err)
	}
	resp, err := c.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// benchNothingArgs is a fetch that matches no note: the floor of a tool
// call through the bus and the memory service, retrieval finding nothing.
const benchNothingArgs = `{"query":"zyzzyva quokka","limit":5}`

// BenchmarkStdio is one request line in and its answer out, over a real
// stdio session: ping (the protocol alone), a tools/call answered with a
// recorded fetch reply (the session's own work on a large reply),
// a memory.fetch that finds nothing (the floor under every tool call:
// the bus, the call's signature and its checks), one of five hits, and
// bench.mjs's real memory.fetch (bus and memory service included).
func BenchmarkStdio(b *testing.B) {
	c := startStdioBench(b)
	for _, bc := range []struct{ name, line string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"canned-fetch-reply", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test.canned","arguments":` + benchFetchArgs(*benchNotes) + `}}`},
		{"memory.fetch-nothing", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory.fetch","arguments":` + benchNothingArgs + `}}`},
		{"memory.fetch-5", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory.fetch","arguments":` + benchFiveArgs(*benchNotes) + `}}`},
		{"memory.fetch", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.fetch","arguments":` + benchFetchArgs(*benchNotes) + `}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.roundTrip(b, bc.line)
			}
		})
	}
}
