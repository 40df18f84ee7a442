package contract

import "encoding/json"

// Annotations are MCP tool hints. Pointers, because "false" is a statement
// and absence means "unknown" (and openWorldHint defaults to true in MCP).
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool describes one tool of the surface: how it is listed, checked and routed.
type Tool struct {
	Name        string
	Title       string
	Description string
	Input       *Schema
	// Output describes the result, always an object. It is published in
	// the tool registry and as the tool's MCP outputSchema: every
	// successful call returns a result that conforms to it.
	Output      *Schema
	Annotations Annotations
	// Service and Method name the bus endpoint that serves the tool.
	Service string
	Method  string
	// RPC is the backing HTTP JSON-RPC method, "" when served in-layer.
	RPC string
	// Writes marks tools that change memory: each call is audited.
	Writes bool
	// Acts marks tools that pass the act gate (autonomy, the hourly action
	// budget): the writes, and running a sub-agent, which may write.
	Acts bool
	// Idempotent marks a write whose replay changes nothing (an item's id
	// is a fingerprint of its content; forgetting twice forgets once), so
	// the bus may send it again to another replica when the one serving
	// it stops answering. See Retryable.
	Idempotent bool
	// Summary is what the audit keeps of a call's arguments (see
	// Summarize); only tools that act are audited.
	Summary []SummaryField
	// Use completes "use <name> to ..." in the server instructions.
	Use string
	// Profiles are the MCP surfaces that list the tool (default: v2).
	Profiles []string
	// Needs says what configuration makes the tool available, for tools
	// a service offers only when configured ("" for the others).
	Needs string
}

// MCP surfaces. v2 is the current one; v1 is the older read-only memory
// tree. Tools of ProfileRPC are JSON-RPC methods only, never MCP tools.
const (
	ProfileV2  = "v2"
	ProfileV1  = "v1"
	ProfileRPC = "rpc"
)

// In reports whether the tool is listed in profile.
func (t Tool) In(profile string) bool {
	if len(t.Profiles) == 0 {
		return profile == ProfileV2
	}
	for _, p := range t.Profiles {
		if p == profile {
			return true
		}
	}
	return false
}

// CheckArguments decodes args (an object, or a JSON string holding one)
// and checks them against the tool's input schema: what the service serving
// the tool does on every request, for callers that must refuse a bad call
// before it spends anything (the act gate's budget, an approval). Failures
// are INVALID_REQUEST naming the field.
func (t Tool) CheckArguments(args json.RawMessage) (map[string]any, error) {
	obj, err := DecodeArguments(args)
	if err == nil {
		err = t.Input.Validate(obj)
	}
	if err != nil {
		return nil, AsError(err).With("tool", t.Name)
	}
	return obj, nil
}

// Subject is the NATS subject the tool's calls are sent to.
func (t Tool) Subject() string { return Subject(t.Service, t.Method) }

// Retryable reports whether a call may be sent once more, to another
// replica, when the replica serving it stops answering: reads, and writes
// that are idempotent by construction. Anything else (running a sub-agent,
// deciding an approval) may have been partly done and fails instead.
func (t Tool) Retryable() bool {
	readOnly := t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	return t.Idempotent || (readOnly && !t.Writes && !t.Acts)
}

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

func readOnly(title string) Annotations {
	return Annotations{Title: title, ReadOnlyHint: yes, OpenWorldHint: no}
}

// Limits shared by tools, the validator and the services.
const (
	DefaultLimit        = 10
	MaxLimit            = 100
	MaxLearnText        = 65536
	MaxQueryText        = 2000
	MaxForgetIDs        = 100
	DefaultLearningKind = "fact"
	DefaultConfidence   = 0.8
)

// LearningKinds are the values of memory.learn's kind.
var LearningKinds = []string{"preference", "fact", "procedure", "correction", "other"}

// ItemKinds are the kinds of stored items (filter.kinds).
var ItemKinds = []string{"document", "conversation", "learning"}

// ItemSources are where items came from (filter.sources). A learning is of
// source "client" when a client (over MCP, /rpc or the CLI) stored it
// itself, and "agent" when a sub-agent did; meta.provenance says which one.
var ItemSources = []string{"folder", "file", "link", "github", "rss", "composio", "conversation", "agent", "import", "client"}

// FetchModes are the retrieval modes memory.fetch can name; an engine may
// support only some of them and answers UNSUPPORTED for the rest.
var FetchModes = []string{"keyword", "vector", "hybrid"}

// catalog is every tool of every profile, in listing order.
var catalog = []Tool{
	WebSearch,
	WebAnswer,
	SearXNGSearch,
	MemoryRecall,
	MemoryFetch,
	MemoryList,
	MemoryLearn,
	MemoryForget,
	TreeSearch,
	TreeRecall,
	TreeReadChunk,
	TreeBrowse,
	TreeTopEntities,
	TreeListSources,
	CoreListTools,
	CoreToolInstructions,
	AgentListSubagents,
	AgentRunSubagent,
	ApprovalList,
	ApprovalDecide,
	MemoryExport,
}

// MaxDelegationDepth bounds sub-agents running sub-agents: a run started
// by a client is depth 0, one it starts depth 1, and so on.
const MaxDelegationDepth = 2

// Tools returns every tool definition of every profile, in listing order.
// The values are shared: callers must not modify them.
func Tools() []Tool { return catalog }

// ToolsFor returns the tools of one profile, in listing order.
func ToolsFor(profile string) []Tool {
	var out []Tool
	for _, t := range catalog {
		if t.In(profile) {
			out = append(out, t)
		}
	}
	return out
}

// ToolFor finds a tool of a profile by name.
func ToolFor(profile, name string) (Tool, bool) {
	for _, t := range catalog {
		if t.Name == name && t.In(profile) {
			return t, true
		}
	}
	return Tool{}, false
}

// ToolByName finds a tool by name in the default profile, then in v1, then
// among the JSON-RPC-only methods.
func ToolByName(name string) (Tool, bool) {
	for _, p := range []string{ProfileV2, ProfileV1, ProfileRPC} {
		if t, ok := ToolFor(p, name); ok {
			return t, true
		}
	}
	return Tool{}, false
}

// LiveTools returns the tools of profile whose endpoint subject is in
// served, in listing order: a tool is offered only while something can
// answer it.
func LiveTools(profile string, served map[string]bool) []Tool {
	var out []Tool
	for _, t := range ToolsFor(profile) {
		if served[t.Subject()] {
			out = append(out, t)
		}
	}
	return out
}
