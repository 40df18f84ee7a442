package contract

// Scopes of an HTTP bearer token. A caller with no token (stdio, the
// command line, an HTTP edge with no tokens configured) has both.
const (
	// ScopeRead lets a token call the tools and methods that only read.
	ScopeRead = "read"
	// ScopeAct lets a token change state: the tools that act (memory.learn,
	// memory.forget, agent.run_subagent) and every method not marked
	// read-only, such as approval.decide.
	ScopeAct = "act"
)

// Scopes are the scopes a token may be given.
var Scopes = []string{ScopeRead, ScopeAct}

// Scope is the scope a token needs to call t: act for a tool that acts or
// is not marked read-only, so that a tool added without annotations is
// refused to read-only tokens rather than let through.
func (t Tool) Scope() string {
	if t.Acts || t.Annotations.ReadOnlyHint == nil || !*t.Annotations.ReadOnlyHint {
		return ScopeAct
	}
	return ScopeRead
}
