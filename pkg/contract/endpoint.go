package contract

import "encoding/json"

// Endpoint is one method a service serves on the bus: its subject (Service
// and Method), the schema its params must pass (Input), and for a tool's
// backing method the tool's name (Tool), which errors about arguments carry.
// A service registers its handlers against these values, never against
// method names spelled again, so a reader goes from a catalog entry to its
// handler by following one identifier.
type Endpoint struct {
	Service string
	Method  string
	Input   *Schema
	Tool    string
	// Retryable says a call may be sent once more, to another replica,
	// when the replica serving it stops answering (Tool.Retryable).
	Retryable bool
	// Scope is the scope a caller must hold (Tool.Scope); empty is act,
	// so that a method added without one is not open to read-only tokens.
	Scope string
}

// NeedsScope is the scope a caller must hold to call e.
func (e Endpoint) NeedsScope() string {
	if e.Scope == "" {
		return ScopeAct
	}
	return e.Scope
}

// Subject is the NATS subject the endpoint serves.
func (e Endpoint) Subject() string { return Subject(e.Service, e.Method) }

// Endpoint is the bus method that serves the tool.
func (t Tool) Endpoint() Endpoint {
	return Endpoint{Service: t.Service, Method: t.Method, Input: t.Input, Tool: t.Name, Retryable: t.Retryable(), Scope: t.Scope()}
}

// Methods that are not tools: what openhuman-core's ingest and resources
// calls, readiness and the registry reach. Ingesting is retryable: a
// chunk's id is a fingerprint of its source, place and text, and a file
// whose content did not change is left alone, so a replay stores nothing
// twice.
var (
	IngestEndpoint        = Endpoint{Service: ServiceMemory, Method: MethodIngest, Input: IngestInput(), Retryable: true, Scope: ScopeAct}
	ConversationEndpoint  = Endpoint{Service: ServiceMemory, Method: MethodConversation, Input: ConversationInput(), Retryable: true, Scope: ScopeAct}
	ResourcesListEndpoint = Endpoint{Service: ServiceAgents, Method: MethodResourcesList, Input: inputFor[NoParams](nil), Retryable: true, Scope: ScopeRead}
	ResourcesReadEndpoint = Endpoint{Service: ServiceAgents, Method: MethodResourcesRead,
		Input: inputFor[ResourceReadParams](rules{"uri": maxLen(1024)}), Retryable: true, Scope: ScopeRead}
	SearchHealthEndpoint = Endpoint{Service: ServiceSearch, Method: MethodSearchHealth, Input: inputFor[NoParams](nil), Retryable: true, Scope: ScopeRead}
	// RunResultEndpoint collects the outcome of an agent.run_subagent call
	// by its CallContext.Call, for the caller that ran it (same token and
	// workspaces): RunResult, done false while the run goes on. An MCP
	// 2026-07-28 client's retry after input_required waits on it.
	RunResultEndpoint = Endpoint{Service: ServiceAgents, Method: MethodRunResult,
		Input: inputFor[RunResultParams](rules{"call": maxLen(64)}), Retryable: true, Scope: ScopeAct}
)

// RunResult is what RunResultEndpoint answers: while Done is false the run
// goes on (or its outcome is gone); then Result is agent.run_subagent's
// result, or Error its failure.
type RunResult struct {
	Done   bool            `json:"done"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}
