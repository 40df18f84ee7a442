package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
)

// Bus says how calls on the bus are signed and checked (pkg/callauth).
// Embedded mode makes its own keys at start and needs none of it; in
// distributed mode the gateway signs with its seed, the agents service
// with its own, and every service trusts the public keys named here.
// `openhuman-core buskeys` makes a set.
type Bus struct {
	// SigningSeed is the nkey seed (SU...) this binary signs its requests
	// with: the gateway's for openhuman-core, the agents service's for
	// openhuman-agents. The seed itself, or the path of a file holding it.
	SigningSeed string `toml:"signing_seed" env:"OPENHUMAN_BUS_SIGNING_SEED"`
	// GatewayKey is the gateway's public key (U...): a service believes
	// only calls it signed.
	GatewayKey string `toml:"gateway_key" env:"OPENHUMAN_BUS_GATEWAY_KEY"`
	// AgentsKey is the agents service's public key: memory and search take
	// its calls within a sub-agent's run, for that run's caller and no
	// wider.
	AgentsKey string `toml:"agents_key" env:"OPENHUMAN_BUS_AGENTS_KEY"`
	// GatewaySecret and AgentsSecret are set by embedded mode alone, never
	// read from a file or the environment: the HMAC keys the gateway and
	// the agents service sign with when every binary is this one process
	// (GatewayKey and AgentsKey then name them by id).
	GatewaySecret, AgentsSecret []byte `toml:"-"`
}

// Seed is the signing seed, read from its file when SigningSeed names one.
func (b Bus) Seed() (string, error) {
	s := strings.TrimSpace(b.SigningSeed)
	if s == "" || strings.HasPrefix(s, "SU") {
		return s, nil
	}
	if strings.HasPrefix(s, "U") && len(s) == 56 {
		return "", fmt.Errorf("bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED) holds a public key (U…): give the seed (SU…) it was made from, which only the binary that signs may hold")
	}
	raw, err := os.ReadFile(s)
	if err != nil {
		return "", fmt.Errorf("bus.signing_seed: %w (give the seed, SU…, or the path of a file holding it)", unwrapPath(err))
	}
	return strings.TrimSpace(string(raw)), nil
}

func (b Bus) validate() error {
	seed, err := b.Seed()
	if err != nil {
		return err
	}
	if seed != "" {
		if _, _, err := callauth.ParseSeed(seed); err != nil {
			return fmt.Errorf("bus.signing_seed (OPENHUMAN_BUS_SIGNING_SEED): %v", err)
		}
	}
	for _, k := range []struct{ key, env, v string }{
		{"bus.gateway_key", "OPENHUMAN_BUS_GATEWAY_KEY", b.GatewayKey},
		{"bus.agents_key", "OPENHUMAN_BUS_AGENTS_KEY", b.AgentsKey},
	} {
		if k.v == "" {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(k.v), "S") {
			return fmt.Errorf("%s (%s) holds a seed: give the public key (U…) there, and keep the seed only where it signs", k.key, k.env)
		}
		if _, err := callauth.ParseKey(k.v); err != nil {
			return fmt.Errorf("%s (%s): %v", k.key, k.env, err)
		}
	}
	return nil
}
