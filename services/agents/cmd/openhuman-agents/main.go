// Command openhuman-agents serves the sub-agent catalog, the core tool
// catalog and the prompt resources on NATS (set OPENHUMAN_NATS_URL).
package main

import (
	"fmt"
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/agents/agentsmain"
)

func main() {
	if err := run.Service("openhuman-agents", "127.0.0.1:9302", os.Args[1:], os.Stderr, os.Getenv, agentsmain.Start); err != nil {
		fmt.Fprintln(os.Stderr, "openhuman-agents:", err)
		os.Exit(1)
	}
}
