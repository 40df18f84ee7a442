// Command openhuman-core is the OpenHuman gateway: an MCP server on stdio
// (`mcp`), a one-shot tool caller (`call`), and, with no NATS configured, the
// whole system in one process.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ()}
	code := m.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
