// Command openhuman-bench is a load generator for `openhuman-core serve`: it
// drives memory.fetch over /rpc and /mcp with 1, 8 and 64 concurrent clients
// and reports throughput, latency percentiles and the CPU time each call
// cost the server and the generator itself, next to the same query made
// directly on the memory domain in process. The rpc-nothing and healthz
// transports measure the floor: everything but the search, and HTTP alone.
// rpc-learn drives memory.learn, and with --replicas measures how long
// each write takes to be applied on every memory replica.
// With --soak it instead drives mixed traffic for a long time and fails when
// errors, resident memory, goroutines or tail latency grow past their bounds.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "openhuman-bench:", err)
		os.Exit(1)
	}
}
