package contract

// The agents service's results, as it writes them and the gateway and its
// console read them.

// AgentDefinition describes one sub-agent.
type AgentDefinition struct {
	ID            string   `json:"id" jsonschema:"Pass as agent_id to agent.run_subagent."`
	DisplayName   string   `json:"display_name" jsonschema:"A name to show."`
	WhenToUse     string   `json:"when_to_use" jsonschema:"What the sub-agent is for."`
	Tools         []string `json:"tools" jsonschema:"The tools it may call."`
	Temperature   float64  `json:"temperature" jsonschema:"The language model's sampling temperature."`
	MaxIterations int      `json:"max_iterations" jsonschema:"The most language-model turns a run takes."`
	SandboxMode   string   `json:"sandbox_mode" jsonschema:"read_only or memory_write."`
}

// AgentList is agent.list_subagents's result.
type AgentList struct {
	Definitions []AgentDefinition `json:"definitions"`
}

// ToolCallRecord is one tool call of a sub-agent's run.
type ToolCallRecord struct {
	Tool  string `json:"tool" jsonschema:"The tool called."`
	OK    bool   `json:"ok" jsonschema:"Whether it succeeded."`
	MS    int64  `json:"ms" jsonschema:"How long it took."`
	Error string `json:"error,omitempty" jsonschema:"Why it failed, when it did."`
}

// AgentRun is agent.run_subagent's result: what a run returns.
type AgentRun struct {
	AgentID   string           `json:"agent_id" jsonschema:"The sub-agent that ran."`
	Response  string           `json:"response" jsonschema:"The sub-agent's final answer."`
	Steps     int              `json:"steps" jsonschema:"Language-model turns taken."`
	ToolCalls []ToolCallRecord `json:"tool_calls" jsonschema:"Every tool the sub-agent called, in order."`
	Model     string           `json:"model" jsonschema:"The language model that ran it."`
}

// CoreTool is a tool as the core agent's catalog presents it.
type CoreTool struct {
	Name        string  `json:"name" jsonschema:"The tool's name."`
	Description string  `json:"description" jsonschema:"What it does."`
	Parameters  *Schema `json:"parameters" jsonschema:"JSON Schema of the arguments."`
}

// CoreToolList is core.list_tools's result.
type CoreToolList struct {
	Tools []CoreTool `json:"tools"`
}

// CoreInstructions is core.tool_instructions's result.
type CoreInstructions struct {
	Instructions string `json:"instructions" jsonschema:"Markdown."`
}

// PendingApproval is a sub-agent's call waiting for a decision. Arguments
// are shown in full so the approver knows what would be written; they are
// kept only while the call waits.
type PendingApproval struct {
	ID        string         `json:"id" jsonschema:"Pass to openhuman.approval_decide."`
	AgentID   string         `json:"agent_id" jsonschema:"The sub-agent asking."`
	Tool      string         `json:"tool" jsonschema:"The tool it wants to call."`
	Arguments map[string]any `json:"arguments" jsonschema:"What it would call it with (secrets removed)."`
	Client    string         `json:"client" jsonschema:"Who started the run."`
	// Token and Workspaces are those of the call that ran the sub-agent:
	// who asked, and the only workspaces its write can reach.
	Token       string   `json:"token,omitempty" jsonschema:"The bearer token name of whoever started the run."`
	Workspaces  []string `json:"workspaces,omitempty" jsonschema:"The only workspaces the call can write to, when the run was limited to some."`
	RequestedMS int64    `json:"requested_ms" jsonschema:"When the sub-agent asked, in Unix milliseconds."`
	ExpiresMS   int64    `json:"expires_ms" jsonschema:"When the call is denied if nobody decides, in Unix milliseconds."`
	// Call is the client call that ran the sub-agent (CallContext.Call).
	Call string `json:"call,omitempty" jsonschema:"The client call that ran the sub-agent, when it has an id."`
}

// DecidedApproval is a call that waited, and how it ended: who decided
// and why, or that nobody did in time. The arguments stay as they were
// shown.
type DecidedApproval struct {
	PendingApproval
	Outcome   string `json:"outcome" jsonschema:"approved, denied or timed_out."`
	Reason    string `json:"reason,omitempty" jsonschema:"The approver's note."`
	DecidedBy string `json:"decided_by,omitempty" jsonschema:"Who decided: the provenance of the deciding call (console:<token>, mcp:<client>, http:<token>)."`
	// DecidedToken names the bearer token of whoever decided, if any.
	DecidedToken string `json:"decided_token,omitempty" jsonschema:"The bearer token name of whoever decided."`
	DecidedMS    int64  `json:"decided_ms" jsonschema:"When it was decided, in Unix milliseconds."`
}

// ApprovalQueue is approval.list's result. Its fields are in the order of
// their names, as the listing has always written them.
type ApprovalQueue struct {
	Decided []DecidedApproval `json:"decided" jsonschema:"The last 50 decided (or timed out), newest first, with who decided."`
	Mode    string            `json:"mode" jsonschema:"The approval mode: auto, deny or ask."`
	Pending []PendingApproval `json:"pending" jsonschema:"The calls waiting, oldest first."`
}

// ApprovalDecided is approval.decide's result, its fields in the order of
// their names.
type ApprovalDecided struct {
	Approved bool   `json:"approved" jsonschema:"Whether the call was let run."`
	ID       string `json:"id" jsonschema:"The call decided."`
}
