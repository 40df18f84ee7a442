// Package policy holds the gateway's gates: the act gate (autonomy and the
// action budget) every call of a tool that acts passes, and the scope gate
// for calls that came with a bearer token. Both record what they refuse,
// for diagnostics.
package policy

import (
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Autonomy levels of the act gate.
const (
	AutonomyFull     = "full"     // write-capable tools run (within the action budget)
	AutonomyReadOnly = "readonly" // write-capable tools are refused
)

// Policy is the act gate: every call of a tool that acts (memory.learn,
// memory.forget, agent.run_subagent) passes it, whatever the transport.
type Policy struct {
	Autonomy string
	// ActionsPerHour is the action budget over any hour (0: none).
	ActionsPerHour int
	// ApprovalMode is how the agents service gates sub-agents' writes
	// (auto, deny, ask), reported by diagnostics.
	ApprovalMode string
	// Tokens are the HTTP edge's bearer tokens, for the scope gate
	// (AllowScope).
	Tokens []Token

	mu      sync.Mutex
	now     func() time.Time
	acts    []time.Time // allowed acts of the last hour, oldest first
	denials []Denial    // newest last, at most maxDenials
}

// Denial is one refused call, for diagnostics.
type Denial struct {
	TimestampMS int64  `json:"timestamp_ms"`
	Tool        string `json:"tool"`
	Client      string `json:"client"`
	// Token names the bearer token the call came with, if any.
	Token  string `json:"token,omitempty"`
	Reason string `json:"reason"`
}

const maxDenials = 20

// New returns an act gate; autonomy "" is AutonomyFull.
func New(autonomy string, actionsPerHour int) *Policy {
	if autonomy == "" {
		autonomy = AutonomyFull
	}
	return &Policy{Autonomy: autonomy, ActionsPerHour: actionsPerHour, now: time.Now}
}

// Allow admits one call of tool by client, or refuses it with DENIED and
// the message the original server uses.
func (p *Policy) Allow(tool, client string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var reason string
	switch {
	case p.Autonomy == AutonomyReadOnly:
		reason = "Security policy: read-only mode, cannot perform '" + tool + "'"
	case p.ActionsPerHour > 0:
		cut := 0
		for cut < len(p.acts) && now.Sub(p.acts[cut]) >= time.Hour {
			cut++
		}
		p.acts = p.acts[cut:]
		if len(p.acts) >= p.ActionsPerHour {
			reason = "Rate limit exceeded: action budget exhausted"
		}
	}
	if reason != "" {
		p.deny(Denial{TimestampMS: now.UnixMilli(), Tool: tool, Client: client, Reason: reason})
		return contract.Errorf(contract.CodeDenied, "%s", reason).With("tool", tool)
	}
	if p.ActionsPerHour > 0 {
		p.acts = append(p.acts, now)
	}
	return nil
}

// deny keeps d among the recent denials; p.mu is held.
func (p *Policy) deny(d Denial) {
	p.denials = append(p.denials, d)
	if len(p.denials) > maxDenials {
		p.denials = p.denials[len(p.denials)-maxDenials:]
	}
}

// Posture describes the gate for diagnostics, and its denials newest first.
func (p *Policy) Posture() (map[string]any, []Denial) {
	p.mu.Lock()
	defer p.mu.Unlock()
	budget := any("none")
	used := 0
	if p.ActionsPerHour > 0 {
		budget = p.ActionsPerHour
		for _, t := range p.acts {
			if p.now().Sub(t) < time.Hour {
				used++
			}
		}
	}
	var gated []string
	for _, t := range contract.Tools() {
		if t.Acts {
			gated = append(gated, t.Name)
		}
	}
	denials := make([]Denial, len(p.denials))
	for i, d := range p.denials {
		denials[len(p.denials)-1-i] = d // newest first
	}
	return map[string]any{
		"read_gate":            "open: read tools run for every client",
		"act_gate":             gated,
		"autonomy":             p.Autonomy,
		"max_actions_per_hour": budget,
		"actions_last_hour":    used,
		"sub_agent_writes":     "pass the agents service's approval gate",
		"http_auth":            p.authPosture(),
	}, denials
}
