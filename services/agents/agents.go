// Package agents is the agents service's domain: the built-in sub-agent
// definitions and their prompts, the prompt resources, the core agent's
// tool catalog, and running a sub-agent: a language-model tool loop over
// its own tools, with its writes passing an approval gate and audited.
// Besides the standard library it uses only pkg (the contract, the model
// client's message types, the audit trail).
package agents

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Sandbox modes say what a sub-agent may change.
const (
	// SandboxReadOnly agents only read: memory, the web, their input.
	SandboxReadOnly = "read_only"
	// SandboxMemoryWrite agents may also learn and forget; those calls pass
	// the approval gate and are audited.
	SandboxMemoryWrite = "memory_write"
)

// Definition describes one sub-agent (declared in pkg/contract, where
// agent.list_subagents's output schema is generated from it).
type Definition = contract.AgentDefinition

var (
	readTools   = []string{"memory.recall", "memory.fetch", "memory.list"}
	memoryTools = []string{"memory.recall", "memory.fetch", "memory.list", "memory.learn", "memory.forget"}
)

// builtins are the sub-agents every installation has, each with a prompt at
// prompts/agents/<id>/prompt.md.
var builtins = []Definition{
	{ID: "orchestrator", DisplayName: "Orchestrator", WhenToUse: "The front door: understands a request, answers it or delegates it to the right specialist.",
		Tools: append(append([]string{}, readTools...), "web_search", "web_answer", "agent.list_subagents", "agent.run_subagent"), Temperature: 0.3, MaxIterations: 12, SandboxMode: SandboxReadOnly},
	{ID: "researcher", DisplayName: "Researcher", WhenToUse: "Web research that must come back with sources.",
		Tools: []string{"web_search", "web_answer", "memory.fetch"}, Temperature: 0.2, MaxIterations: 10, SandboxMode: SandboxReadOnly},
	{ID: "planner", DisplayName: "Planner", WhenToUse: "Breaking a goal into concrete, ordered steps.",
		Tools: []string{"memory.fetch", "web_search"}, Temperature: 0.4, MaxIterations: 8, SandboxMode: SandboxReadOnly},
	{ID: "critic", DisplayName: "Critic", WhenToUse: "Checking a draft, plan or decision for errors and gaps.",
		Tools: []string{"memory.fetch", "web_search"}, Temperature: 0.1, MaxIterations: 6, SandboxMode: SandboxReadOnly},
	{ID: "fact_checker", DisplayName: "Fact checker", WhenToUse: "Verifying individual claims against sources.",
		Tools: []string{"web_search", "web_answer"}, Temperature: 0, MaxIterations: 8, SandboxMode: SandboxReadOnly},
	{ID: "summarizer", DisplayName: "Summarizer", WhenToUse: "Condensing a text the user provides.",
		Tools: []string{}, Temperature: 0.2, MaxIterations: 1, SandboxMode: SandboxReadOnly},
	{ID: "librarian", DisplayName: "Librarian", WhenToUse: "Answering only from the user's memory, with citations.",
		Tools: readTools, Temperature: 0, MaxIterations: 6, SandboxMode: SandboxReadOnly},
	{ID: "memory_curator", DisplayName: "Memory curator", WhenToUse: "Finding duplicate, stale or contradictory learnings and fixing them.",
		Tools: memoryTools, Temperature: 0.1, MaxIterations: 12, SandboxMode: SandboxMemoryWrite},
	{ID: "note_taker", DisplayName: "Note taker", WhenToUse: "Turning a transcript or rough notes into stored learnings.",
		Tools: []string{"memory.learn"}, Temperature: 0.2, MaxIterations: 6, SandboxMode: SandboxMemoryWrite},
	{ID: "morning_briefing", DisplayName: "Morning briefing", WhenToUse: "A short start-of-day briefing from recent memory and news.",
		Tools: []string{"memory.list", "web_search"}, Temperature: 0.5, MaxIterations: 8, SandboxMode: SandboxReadOnly},
	{ID: "code_explainer", DisplayName: "Code explainer", WhenToUse: "Explaining code from repositories ingested into memory.",
		Tools: []string{"memory.fetch"}, Temperature: 0.2, MaxIterations: 6, SandboxMode: SandboxReadOnly},
	{ID: "writer", DisplayName: "Writer", WhenToUse: "Drafting text in the user's own style.",
		Tools: []string{"memory.fetch"}, Temperature: 0.7, MaxIterations: 4, SandboxMode: SandboxReadOnly},
	{ID: "translator", DisplayName: "Translator", WhenToUse: "Translating text between languages.",
		Tools: []string{}, Temperature: 0.2, MaxIterations: 1, SandboxMode: SandboxReadOnly},
	{ID: "task_manager", DisplayName: "Task manager", WhenToUse: "Extracting open tasks from memory and recording new ones.",
		Tools: []string{"memory.fetch", "memory.list", "memory.learn"}, Temperature: 0.1, MaxIterations: 8, SandboxMode: SandboxMemoryWrite},
	{ID: "trigger_triage", DisplayName: "Trigger triage", WhenToUse: "Classifying an incoming event as ignore, notify or act.",
		Tools: []string{}, Temperature: 0, MaxIterations: 1, SandboxMode: SandboxReadOnly},
}

// Builtins returns the built-in definitions, in catalog order.
func Builtins() []Definition {
	out := make([]Definition, len(builtins))
	for i, d := range builtins {
		d.Tools = append([]string{}, d.Tools...)
		out[i] = d
	}
	return out
}

//go:embed prompts
var promptFS embed.FS

// Prompt returns a built-in sub-agent's prompt.md.
func Prompt(id string) (string, bool) {
	if strings.ContainsAny(id, "/.\\") {
		return "", false
	}
	b, err := fs.ReadFile(promptFS, "prompts/agents/"+id+"/prompt.md")
	return string(b), err == nil
}
