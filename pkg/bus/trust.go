package bus

import (
	"errors"
	"fmt"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// ErrNoGatewayKey means a service was given no gateway key to believe
// calls by.
var ErrNoGatewayKey = errors.New("bus.gateway_key (OPENHUMAN_BUS_GATEWAY_KEY) is not set: a service believes only calls the gateway signed, so give it the gateway's public key (`openhuman-core buskeys` makes a set; docs/operations.md, \"Trust on the bus\")")

// Checks are how a service checks the signed call context of each request.
type Checks struct {
	// Trust names the keys whose signatures it believes.
	Trust callauth.Trust
	// Nonces, when set, are shared with the service's other replicas, so
	// that a request captured and sent again is refused by every one
	// (nil: each replica remembers its own).
	Nonces callauth.Nonces
}

// ChecksOf are the checks of a service configured with b, remembering
// nonces on its own.
func ChecksOf(b config.Bus) Checks { return Checks{Trust: TrustOf(b)} }

// TrustOf is the trust of a service configured with b: the gateway's key,
// and the agents service's within a sub-agent's run.
func TrustOf(b config.Bus) callauth.Trust {
	t := callauth.Trust{Gateway: b.GatewayKey}
	if b.GatewaySecret != nil {
		t.Secrets = map[string][]byte{b.GatewayKey: b.GatewaySecret, b.AgentsKey: b.AgentsSecret}
	}
	if b.AgentsKey != "" {
		t.Delegates = []callauth.Delegate{{Key: b.AgentsKey, Within: contract.AgentRunSubagent.Endpoint().Subject(), May: subAgentCalls}}
	}
	return t
}

// SignerOf is the signer of a binary configured with b: the gateway's
// root signer, or with delegate the agents service's.
func SignerOf(b config.Bus, delegate bool) (*callauth.Signer, error) {
	switch {
	case delegate && b.AgentsSecret != nil:
		return callauth.NewSharedSigner(b.AgentsSecret, true), nil
	case !delegate && b.GatewaySecret != nil:
		return callauth.NewSharedSigner(b.GatewaySecret, false), nil
	}
	seed, err := b.Seed()
	if err != nil {
		return nil, err
	}
	if seed == "" {
		who := "the gateway's"
		if delegate {
			who = "the agents service's"
		}
		return nil, fmt.Errorf("bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED) is not set: give it %s seed, which signs its calls (`openhuman-core buskeys` makes a set)", who)
	}
	if delegate {
		return callauth.NewDelegate(seed)
	}
	return callauth.NewSigner(seed)
}

// subAgentCalls are what a sub-agent may call, and so what the agents
// service may sign for within a run: memory, search, and listing and
// running other sub-agents (as deploy/nats/auth.conf lets the agents user
// publish), never deciding approvals.
var subAgentCalls = []string{
	contract.SubjectPrefix + "." + contract.ServiceMemory + ".>",
	contract.SubjectPrefix + "." + contract.ServiceSearch + ".>",
	contract.AgentListSubagents.Subject(), contract.AgentRunSubagent.Subject(),
}

// Keys are one bus's keys: the gateway's and the agents service's seeds
// and public keys (`openhuman-core buskeys` prints a set for a
// deployment), or for the embedded system, made at each start, their HMAC
// secrets and ids.
type Keys struct {
	GatewaySeed, GatewayKey string
	AgentsSeed, AgentsKey   string
	// GatewaySecret and AgentsSecret replace the seeds in one process.
	GatewaySecret, AgentsSecret []byte
}

// NewEmbeddedKeys makes a set for the embedded system: HMAC secrets that
// never leave the process.
func NewEmbeddedKeys() Keys {
	var k Keys
	k.GatewaySecret, k.GatewayKey = callauth.NewSecret()
	k.AgentsSecret, k.AgentsKey = callauth.NewSecret()
	return k
}

// NewKeys makes a new set.
func NewKeys() (Keys, error) {
	var k Keys
	var err error
	if k.GatewaySeed, k.GatewayKey, err = callauth.NewSeed(); err != nil {
		return k, err
	}
	k.AgentsSeed, k.AgentsKey, err = callauth.NewSeed()
	return k, err
}

// Service is the bus configuration of memory and search: the keys to trust.
func (k Keys) Service() config.Bus {
	return config.Bus{GatewayKey: k.GatewayKey, AgentsKey: k.AgentsKey, GatewaySecret: k.GatewaySecret, AgentsSecret: k.AgentsSecret}
}

// Gateway is the gateway's: its seed besides.
func (k Keys) Gateway() config.Bus {
	b := k.Service()
	b.SigningSeed = k.GatewaySeed
	return b
}

// Agents is the agents service's: its own seed besides.
func (k Keys) Agents() config.Bus {
	b := k.Service()
	b.SigningSeed = k.AgentsSeed
	return b
}

// Trust is what a service configured with k believes.
func (k Keys) Trust() callauth.Trust { return TrustOf(k.Service()) }

// Checks are the checks of a service configured with k.
func (k Keys) Checks() Checks { return ChecksOf(k.Service()) }

// GatewaySigner and AgentsSigner sign as the gateway and as the agents
// service. k came from NewKeys or NewEmbeddedKeys, so its keys are good.
func (k Keys) GatewaySigner() *callauth.Signer {
	s, err := SignerOf(k.Gateway(), false)
	if err != nil {
		panic(err)
	}
	return s
}

func (k Keys) AgentsSigner() *callauth.Signer {
	s, err := SignerOf(k.Agents(), true)
	if err != nil {
		panic(err)
	}
	return s
}
