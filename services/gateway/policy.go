package gateway

import "github.com/openhuman-go/openhuman-go/services/gateway/policy"

// The gates live in package policy; these names keep them where the
// gateway's callers have always found them.
type (
	Policy = policy.Policy
	Denial = policy.Denial
	Token  = policy.Token
)

// Autonomy levels of the act gate.
const (
	AutonomyFull     = policy.AutonomyFull
	AutonomyReadOnly = policy.AutonomyReadOnly
)

// NewPolicy returns an act gate (policy.New).
func NewPolicy(autonomy string, actionsPerHour int) *Policy {
	return policy.New(autonomy, actionsPerHour)
}
