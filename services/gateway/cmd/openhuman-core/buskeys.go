package main

import (
	"fmt"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
)

// runBusKeys prints a new set of bus keys as .env lines, in the names
// docker-compose.yml reads: the gateway's and the agents service's
// seeds, each for that binary alone, and the public keys every binary
// trusts.
func (m *Main) runBusKeys() int {
	k, err := bus.NewKeys()
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: making keys:", err)
		return exitFailure
	}
	fmt.Fprintf(m.Stdout, `# Bus keys (docs/operations.md, "Trust on the bus"). The seeds are secrets, each
# for one binary only, as its OPENHUMAN_BUS_SIGNING_SEED: BUS_GATEWAY_SEED for
# openhuman-core, BUS_AGENTS_SEED for openhuman-agents. The keys are public:
# every binary gets both (docker-compose.yml passes them on from .env).
BUS_GATEWAY_SEED=%s
BUS_AGENTS_SEED=%s
OPENHUMAN_BUS_GATEWAY_KEY=%s
OPENHUMAN_BUS_AGENTS_KEY=%s
`, k.GatewaySeed, k.AgentsSeed, k.GatewayKey, k.AgentsKey)
	return exitOK
}
