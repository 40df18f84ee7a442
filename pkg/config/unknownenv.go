package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
)

// testEnvPrefixes name OPENHUMAN_* variables read by tests, benchmarks
// and evaluations, not by a binary: OPENHUMAN_TEST_REDIS_URL
// (pkg/redisconn/redistest), OPENHUMAN_TEST_PROMETHEUS,
// OPENHUMAN_BENCH_1M (services/memory), OPENHUMAN_EVAL_LOCOMO_HALF. A
// process started by a test may inherit them, so they are not typos.
var testEnvPrefixes = []string{"OPENHUMAN_TEST_", "OPENHUMAN_BENCH_", "OPENHUMAN_EVAL_"}

// readElsewhere are OPENHUMAN_* variables of what runs beside the
// binaries: the token an MCP client sends (OPENHUMAN_TOKEN, docs/clients.md's
// bearer_token_env_var for Codex), and the compose stack's published
// port, image version and start-up wait and the gateway its tests call
// (docker-compose.yml, scripts/compose-local.sh). A shell that exports
// them runs openhuman-core too; they are no misspellings.
var readElsewhere = []string{"OPENHUMAN_TOKEN", "OPENHUMAN_PORT", "OPENHUMAN_VERSION", "OPENHUMAN_UP_TIMEOUT", "OPENHUMAN_GATEWAY_URL"}

// A Warning is an OPENHUMAN_* variable no binary reads, with the known one
// closest to it, which it is most likely a misspelling of.
type Warning struct {
	Name    string
	Closest string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s is not a variable openhuman reads and is ignored; did you mean %s?", w.Name, w.Closest)
}

// UnknownEnv returns a Warning for each OPENHUMAN_* variable in environ
// (NAME=value entries, as os.Environ returns them) that is not in EnvVars,
// sorted by name. Variables of tests (OPENHUMAN_TEST_*, OPENHUMAN_BENCH_*)
// are not reported.
func UnknownEnv(environ []string) []Warning {
	known := EnvVars()
	var out []Warning
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "OPENHUMAN_") || slices.Contains(known, name) || slices.Contains(readElsewhere, name) ||
			slices.ContainsFunc(testEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		if slices.ContainsFunc(out, func(w Warning) bool { return w.Name == name }) {
			continue
		}
		out = append(out, Warning{Name: name, Closest: editdistance.Nearest(name, known, 1)[0]})
	}
	slices.SortFunc(out, func(a, b Warning) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// nearestKey is the configuration key an unknown dotted key is most
// likely a misspelling of (http.adress: http.addr), "" when none is
// near: fewer edits away than half the length of the key's last part,
// plus two. An entry of a map of tables is matched by its place
// (search.providers.brave.api_ky: search.providers.brave.api_key).
func nearestKey(unknown string) string {
	parts := strings.Split(unknown, ".")
	var c Config
	last := parts[len(parts)-1]
	best, bestD := "", len(last)/2+2
	_ = eachField(&c, keyScope, func(f field) error {
		known := strings.Split(f.key, ".")
		if len(known) != len(parts) {
			return nil
		}
		for i, k := range known {
			if k == "*" {
				known[i] = parts[i]
			}
		}
		k := strings.Join(known, ".")
		if d := editdistance.OSA(unknown, k); d < bestD {
			best, bestD = k, d
		}
		return nil
	})
	return best
}
