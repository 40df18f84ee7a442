// Command openhuman-memory serves the memory tools on NATS, for running the
// system as separate processes (set OPENHUMAN_NATS_URL).
package main

import (
	"fmt"
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

func main() {
	if err := run.Service("openhuman-memory", "127.0.0.1:9301", os.Args[1:], os.Stderr, os.Getenv, memorymain.Start); err != nil {
		fmt.Fprintln(os.Stderr, "openhuman-memory:", err)
		os.Exit(1)
	}
}
