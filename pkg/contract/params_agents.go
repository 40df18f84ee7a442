package contract

// The agents service's arguments.

// NoParams are the arguments of a method that takes none.
type NoParams struct{}

// RunParams are agent.run_subagent's arguments.
type RunParams struct {
	AgentID string `json:"agent_id" jsonschema:"Id of a registered sub-agent, as agent.list_subagents returns it (e.g. librarian, researcher)."`
	Prompt  string `json:"prompt" jsonschema:"The task, in full: the sub-agent sees nothing else of this conversation."`
}

// DecideParams are approval.decide's arguments.
type DecideParams struct {
	ID      string `json:"id" jsonschema:"The id from openhuman.approval_list."`
	Approve bool   `json:"approve" jsonschema:"true to let the call run, false to refuse it."`
	Reason  string `json:"reason,omitempty" jsonschema:"Why, told to the sub-agent when denied."`
}

// RunResultParams name the call whose sub-agent run to collect.
type RunResultParams struct {
	Call string `json:"call" jsonschema:"The call that ran the sub-agent."`
}
