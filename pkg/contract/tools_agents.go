package contract

// CoreListTools lists the core agent's live tools.
var CoreListTools = Tool{
	Name:        "core.list_tools",
	Title:       "List core agent tools",
	Description: "The live catalog of tools the core agent can use: name, description and JSON Schema parameters.",
	Input:       inputFor[NoParams](nil),
	Output:      outputFor[CoreToolList](nil),
	Annotations: readOnly("List core agent tools"),
	Service:     ServiceAgents, Method: "list_tools",
	Use: "core.list_tools to see every tool the core agent can call",
}

// CoreToolInstructions is the tool-use block prompt-guided agents get.
var CoreToolInstructions = Tool{
	Name:        "core.tool_instructions",
	Title:       "Core tool instructions",
	Description: "The Markdown tool-use instruction block given to prompt-guided agents, built from the live tool catalog.",
	Input:       inputFor[NoParams](nil),
	Output:      outputFor[CoreInstructions](nil),
	Annotations: readOnly("Core tool instructions"),
	Service:     ServiceAgents, Method: "tool_instructions",
	Use: "core.tool_instructions for the tool-use block agents are prompted with",
}

// AgentListSubagents lists the sub-agent definitions.
var AgentListSubagents = Tool{
	Name:        "agent.list_subagents",
	Title:       "List sub-agents",
	Description: "The registered sub-agent definitions: id, name, when to use each, its tools, temperature, iteration cap and sandbox mode.",
	Input:       inputFor[NoParams](nil),
	Output:      outputFor[AgentList](nil),
	Annotations: readOnly("List sub-agents"),
	Service:     ServiceAgents, Method: "list_subagents",
	Use: "agent.list_subagents to see the specialist sub-agents",
}

// AgentRunSubagent runs a sub-agent on a task.
var AgentRunSubagent = Tool{
	Name:  "agent.run_subagent",
	Title: "Run a sub-agent",
	Description: "Hand a task to one of the registered sub-agents (see agent.list_subagents) and get its final response. " +
		"The sub-agent works with a language model and only the tools of its definition; its memory writes pass the " +
		"approval gate and are audited.",
	Input: inputFor[RunParams](rules{
		"agent_id": maxLen(64),
		"prompt":   maxLen(MaxLearnText),
	}),
	Output:      outputFor[AgentRun](nil),
	Annotations: Annotations{Title: "Run a sub-agent", ReadOnlyHint: no, DestructiveHint: yes, OpenWorldHint: yes},
	Service:     ServiceAgents, Method: "run_subagent", Acts: true,
	Use:     "agent.run_subagent to hand a task to a specialist sub-agent",
	Summary: []SummaryField{ValueOf("agent_id"), LengthOf("prompt")},
}

// ApprovalList lists calls waiting for approval (JSON-RPC only).
var ApprovalList = Tool{
	Name: "approval.list", Title: "List pending approvals",
	Description: "Sub-agents' side-effecting calls waiting for a decision ([approval] mode = ask), oldest first, and the last ones decided, newest first.",
	Input:       inputFor[NoParams](nil),
	Output:      outputFor[ApprovalQueue](nil),
	Annotations: readOnly("List pending approvals"),
	Service:     ServiceAgents, Method: "approval_list", RPC: "openhuman.approval_list", Profiles: []string{ProfileRPC},
	Use: "approval.list to see sub-agents' calls waiting for approval",
}

// ApprovalDecide approves or denies one waiting call (JSON-RPC only).
var ApprovalDecide = Tool{
	Name: "approval.decide", Title: "Decide a pending approval",
	Description: "Approve or deny one waiting call by id; the sub-agent goes on either way, told the outcome.",
	Input: inputFor[DecideParams](rules{
		"id":     maxLen(64),
		"reason": maxLen(500),
	}),
	Output:      outputFor[ApprovalDecided](nil),
	Annotations: Annotations{Title: "Decide a pending approval", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
	Service:     ServiceAgents, Method: "approval_decide", RPC: "openhuman.approval_decide", Profiles: []string{ProfileRPC},
	Use:     "approval.decide to approve or deny a sub-agent's waiting call",
	Summary: []SummaryField{ValueOf("id"), ValueOf("approve"), LengthOf("reason")},
}
