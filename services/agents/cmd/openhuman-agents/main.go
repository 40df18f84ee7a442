// Command openhuman-agents serves the sub-agent catalog, the core tool
// catalog and the prompt resources on NATS (set OPENHUMAN_NATS_URL).
package main

import (
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/agents/agentsmain"
)

const about = `openhuman-agents: serves the sub-agents (agent.*), the core tool catalog (core.*)
and the prompt resources on NATS, for running OpenHuman as separate processes
next to openhuman-core.`

const env = `  OPENHUMAN_LLM_BASE_URL, _MODEL, _API_KEY, _TIMEOUT_SECONDS
                          the model sub-agents run on (default none: NO_MODEL)
  OPENHUMAN_AGENT_TIMEOUT_SECONDS
                          bounds one run (default 300)
  OPENHUMAN_APPROVAL_MODE
                          auto, deny or ask (default auto)
  OPENHUMAN_APPROVAL_TIMEOUT_SECONDS
                          denies a parked call nobody decided (default 300)
  OPENHUMAN_REDIS_URL, _PREFIX
                          approvals shared by replicas (default none: in process)`

func main() {
	s := run.Service{Name: "openhuman-agents", MetricsAddr: "127.0.0.1:9302", About: about, Env: env,
		InboxPrefix: agentsmain.InboxPrefix, Start: agentsmain.Start}
	os.Exit(s.Main(os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}
