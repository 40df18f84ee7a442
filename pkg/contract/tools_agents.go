package contract

// CoreListTools lists the core agent's live tools.
var CoreListTools = Tool{
	Name:        "core.list_tools",
	Title:       "List core agent tools",
	Description: "The live catalog of tools the core agent can use: name, description and JSON Schema parameters.",
	Input:       inputFor[NoParams](nil),
	Output: outObject("", []string{"tools"}, map[string]*Schema{
		"tools": {Type: "array", Items: outObject("", []string{"name", "description", "parameters"}, map[string]*Schema{
			"name": out("string", ""), "description": out("string", ""), "parameters": out("object", "JSON Schema of the arguments."),
		})},
	}),
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
	Output: outObject("", []string{"instructions"}, map[string]*Schema{
		"instructions": out("string", "Markdown."),
	}),
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
	Output: outObject("", []string{"definitions"}, map[string]*Schema{
		"definitions": {Type: "array", Items: outObject("", []string{"id", "display_name", "when_to_use", "tools", "temperature", "max_iterations", "sandbox_mode"}, map[string]*Schema{
			"id": out("string", ""), "display_name": out("string", ""), "when_to_use": out("string", ""),
			"tools":       {Type: "array", Items: out("string", "")},
			"temperature": out("number", ""), "max_iterations": out("integer", ""),
			"sandbox_mode": out("string", "read_only or memory_write."),
		})},
	}),
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
	Output: outObject("", []string{"agent_id", "response", "steps", "tool_calls"}, map[string]*Schema{
		"agent_id": out("string", ""),
		"response": out("string", "The sub-agent's final answer."),
		"steps":    out("integer", "Language-model turns taken."),
		"tool_calls": {Type: "array", Description: "Every tool the sub-agent called, in order.", Items: outObject("", []string{"tool", "ok", "ms"}, map[string]*Schema{
			"tool": out("string", ""), "ok": out("boolean", ""), "ms": out("integer", "How long it took."),
			"error": out("string", "Why it failed, when it did."),
		})},
		"model": out("string", "The language model that ran it."),
	}),
	Annotations: Annotations{Title: "Run a sub-agent", ReadOnlyHint: no, DestructiveHint: yes, OpenWorldHint: yes},
	Service:     ServiceAgents, Method: "run_subagent", Acts: true,
	Use:     "agent.run_subagent to hand a task to a specialist sub-agent",
	Summary: []SummaryField{ValueOf("agent_id"), LengthOf("prompt")},
}

// approvalItem is a call waiting for a decision.
func approvalItem() *Schema {
	return outObject("", []string{"id", "agent_id", "tool", "arguments", "client", "requested_ms", "expires_ms"}, map[string]*Schema{
		"id": out("string", "Pass to openhuman.approval_decide."), "agent_id": out("string", "The sub-agent asking."),
		"tool": out("string", "The tool it wants to call."), "arguments": out("object", "What it would call it with."),
		"client": out("string", "Who started the run."), "requested_ms": out("integer", ""),
		"expires_ms": out("integer", "When the call is denied if nobody decides."),
	})
}

// decidedItem is a call that waited and was decided, or timed out.
func decidedItem() *Schema {
	s := approvalItem()
	s.Required = append(s.Required, "outcome", "decided_ms")
	s.Properties["outcome"] = out("string", "approved, denied or timed_out.")
	s.Properties["reason"] = out("string", "The approver's note.")
	s.Properties["decided_by"] = out("string", "Who decided: the provenance of the deciding call (console:<token>, mcp:<client>, http:<token>).")
	s.Properties["decided_token"] = out("string", "The bearer token name of whoever decided.")
	s.Properties["decided_ms"] = out("integer", "")
	return s
}

// ApprovalList lists calls waiting for approval (JSON-RPC only).
var ApprovalList = Tool{
	Name: "approval.list", Title: "List pending approvals",
	Description: "Sub-agents' side-effecting calls waiting for a decision ([approval] mode = ask), oldest first, and the last ones decided, newest first.",
	Input:       inputFor[NoParams](nil),
	Output: outObject("", []string{"mode", "pending"}, map[string]*Schema{
		"mode":    out("string", "The approval mode: auto, deny or ask."),
		"pending": {Type: "array", Items: approvalItem()},
		"decided": {Type: "array", Description: "The last 50 decided (or timed out), newest first, with who decided.", Items: decidedItem()},
	}),
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
	Output: outObject("", []string{"id", "approved"}, map[string]*Schema{
		"id": out("string", ""), "approved": out("boolean", ""),
	}),
	Annotations: Annotations{Title: "Decide a pending approval", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
	Service:     ServiceAgents, Method: "approval_decide", RPC: "openhuman.approval_decide", Profiles: []string{ProfileRPC},
	Use:     "approval.decide to approve or deny a sub-agent's waiting call",
	Summary: []SummaryField{ValueOf("id"), ValueOf("approve"), LengthOf("reason")},
}
