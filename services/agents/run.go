package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
)

// Model is a chat model that can call tools.
type Model interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Message, error)
}

// Tools is the rest of the system as a sub-agent sees it: the tools served
// right now, and a way to call one with arguments already checked against
// its schema.
type Tools interface {
	Live(ctx context.Context) []contract.Tool
	Call(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error)
}

// RunnerOptions configure sub-agent runs.
type RunnerOptions struct {
	// Model runs the agents; nil means none is configured (NO_MODEL).
	Model Model
	// ModelName is the default model; Models names one per agent id.
	ModelName string
	Models    map[string]string
	// Timeout bounds one run (default 5 minutes).
	Timeout time.Duration
	// MaxToolResult caps, in bytes, a tool result fed back to the model
	// (default 16 KiB).
	MaxToolResult int
	// Approval gates the agents' writes (default: auto).
	Approval *Gate
	// Audit records the agents' writes, approved or not (nil: none).
	Audit *audit.Recorder
	// Results keeps the outcome of each run a client called, by its call
	// id, for collection (default: in the process).
	Results Results
	Logger  *slog.Logger
}

// Runner runs sub-agents.
type Runner struct {
	opts  RunnerOptions
	tools Tools
}

// NewRunner returns a runner calling tools.
func NewRunner(tools Tools, opts RunnerOptions) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.MaxToolResult <= 0 {
		opts.MaxToolResult = 16 << 10
	}
	if opts.Approval == nil {
		opts.Approval = NewGate(ApprovalAuto, nil, 0)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Results == nil {
		opts.Results = NewMemoryResults()
	}
	return &Runner{opts: opts, tools: tools}
}

// RunParams are declared in pkg/contract, which generates their schema.
type RunParams = contract.RunParams

// A run's result and its tool calls are declared in pkg/contract, where
// agent.run_subagent's output schema is generated from them.
type (
	ToolCallRecord = contract.ToolCallRecord
	RunResult      = contract.AgentRun
)

// Run runs one sub-agent on a task: its prompt, its tools and nothing
// else, for at most its max_iterations model turns and the run timeout.
// The outcome of a run a client called under a call id (cc.Call, not a
// sub-agent's delegation) is kept for Collect too: the client may have
// stopped waiting for this answer and ask for it later.
func (r *Runner) Run(ctx context.Context, p RunParams, cc contract.CallContext) (*RunResult, error) {
	res, err := r.run(ctx, p, cc)
	if cc.Call != "" && cc.Depth == 0 {
		if perr := r.opts.Results.Put(context.WithoutCancel(ctx), cc.Call, NewOutcome(res, err, cc)); perr != nil {
			r.opts.Logger.Warn("a run's outcome could not be kept for collection", "call", cc.Call, "err", perr)
		}
	}
	return res, err
}

// Collect is the outcome of the run cc.Call named call, for the caller
// that ran it (RunResultEndpoint).
func (r *Runner) Collect(ctx context.Context, call string, cc contract.CallContext) (contract.RunResult, error) {
	return Collect(ctx, r.opts.Results, call, cc)
}

func (r *Runner) run(ctx context.Context, p RunParams, cc contract.CallContext) (*RunResult, error) {
	def, ok := definition(p.AgentID)
	if !ok {
		return nil, contract.Errorf(contract.CodeNotFound, "no sub-agent %q; agent.list_subagents names them (%s)", p.AgentID, strings.Join(ids(), ", ")).With("field", "agent_id")
	}
	if cc.Depth > contract.MaxDelegationDepth {
		return nil, contract.Errorf(contract.CodeDenied, "%s cannot run: sub-agents may delegate at most %d levels deep", def.ID, contract.MaxDelegationDepth)
	}
	if r.opts.Model == nil {
		return nil, contract.Errorf(contract.CodeNoModel, "agent.run_subagent needs a language model: set [llm] model (and base_url, api_key) in config.toml, "+
			"or OPENHUMAN_LLM_MODEL with OPENHUMAN_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) and OPENHUMAN_LLM_API_KEY")
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	run := &run{r: r, def: def, cc: cc, task: p.Prompt, result: &RunResult{AgentID: def.ID, ToolCalls: []ToolCallRecord{}, Model: r.modelFor(def.ID)}}
	run.scope(ctx)
	return run.loop(ctx)
}

func (r *Runner) modelFor(id string) string {
	if m := r.opts.Models[id]; m != "" {
		return m
	}
	return r.opts.ModelName
}

// run is one sub-agent run in progress.
type run struct {
	r        *Runner
	def      Definition
	cc       contract.CallContext
	task     string
	result   *RunResult
	tools    map[string]contract.Tool // by function name
	offered  []llm.Tool
	messages []llm.Message
}

// scope offers the agent the tools of its definition that are served now.
func (x *run) scope(ctx context.Context) {
	allowed := map[string]bool{}
	for _, t := range x.def.Tools {
		allowed[t] = true
	}
	x.tools = map[string]contract.Tool{}
	var live []contract.Tool
	for _, t := range x.r.tools.Live(ctx) {
		if allowed[t.Name] {
			live = append(live, t)
			x.tools[FunctionName(t.Name)] = t
			x.offered = append(x.offered, llm.Tool{Type: "function", Function: llm.ToolFunction{Name: FunctionName(t.Name), Description: t.Description, Parameters: t.Input}})
		}
	}
	x.messages = []llm.Message{
		{Role: "system", Content: SystemPrompt(x.def, CoreTools(live))},
		{Role: "user", Content: x.task},
	}
}

// FunctionName is a tool's name as a model sees it: function names may
// not hold dots.
func FunctionName(tool string) string { return strings.ReplaceAll(tool, ".", "_") }

// loop asks the model, runs the tools it calls, and feeds the results
// back, until it answers or its turns run out.
func (x *run) loop(ctx context.Context) (*RunResult, error) {
	for step := 1; step <= x.def.MaxIterations; step++ {
		req := llm.Request{Model: x.result.Model, Messages: x.messages, Temperature: &x.def.Temperature}
		last := step == x.def.MaxIterations
		if last && len(x.offered) > 0 {
			// The last turn must answer: no tools, and the model is told.
			req.Messages = append(req.Messages, llm.Message{Role: "user", Content: "That was your last tool call. Answer now from what you have; say what is missing."})
		} else {
			req.Tools = x.offered
		}
		msg, err := x.r.opts.Model.Chat(ctx, req)
		x.result.Steps = step
		if err != nil {
			return nil, x.failed(ctx, err)
		}
		calls := msg.ToolCalls
		if len(calls) == 0 {
			calls = promptGuidedCall(msg.Content)
		}
		if len(calls) == 0 {
			answer := strings.TrimSpace(msg.Content)
			if answer == "" {
				return nil, contract.Errorf(contract.CodeEngine, "%s: the language model answered nothing at step %d", x.def.ID, step)
			}
			x.result.Response = answer
			return x.result, nil
		}
		if last {
			return nil, contract.Errorf(contract.CodeEngine, "%s did not finish within its %d steps: the model still called tools when told to answer", x.def.ID, x.def.MaxIterations)
		}
		assistant := llm.Message{Role: "assistant", Content: msg.Content, ToolCalls: msg.ToolCalls}
		x.messages = append(x.messages, assistant)
		for i, call := range calls {
			out := x.callTool(ctx, call)
			if len(msg.ToolCalls) > 0 {
				x.messages = append(x.messages, llm.Message{Role: "tool", ToolCallID: call.ID, Content: out})
			} else {
				x.messages = append(x.messages, llm.Message{Role: "user", Content: fmt.Sprintf("Result of %s:\n%s", calls[i].Function.Name, out)})
			}
		}
	}
	return nil, contract.Errorf(contract.CodeEngine, "%s did not finish within its %d steps", x.def.ID, x.def.MaxIterations)
}

// failed explains a model failure, naming the step.
func (x *run) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return contract.Errorf(contract.CodeUnavailable, "%s ran out of time after %d steps (runs are limited to %s; [agents] timeout_seconds)",
			x.def.ID, x.result.Steps-1, x.r.opts.Timeout).With("tool_calls", x.result.ToolCalls)
	}
	e := contract.AsError(err)
	return contract.Errorf(e.Code, "%s: the language model failed at step %d: %s", x.def.ID, x.result.Steps, e.Message)
}

// callTool runs one tool call and returns what the model is told.
func (x *run) callTool(ctx context.Context, call llm.ToolCall) string {
	start := time.Now()
	rec := ToolCallRecord{Tool: call.Function.Name}
	out, err := x.execute(ctx, call, &rec)
	rec.MS = time.Since(start).Milliseconds()
	if err != nil {
		rec.Error = contract.ErrorMessage(err)
		out = "error: " + rec.Error
	} else {
		rec.OK = true
	}
	x.result.ToolCalls = append(x.result.ToolCalls, rec)
	return x.capped(out)
}

func (x *run) execute(ctx context.Context, call llm.ToolCall, rec *ToolCallRecord) (string, error) {
	tool, ok := x.tools[call.Function.Name]
	if !ok {
		names := make([]string, 0, len(x.tools))
		for n := range x.tools {
			names = append(names, n)
		}
		return "", contract.Errorf(contract.CodeInvalidRequest, "there is no tool %q for you; you can call: %s", clip(call.Function.Name, 64), strings.Join(sortedCopy(names), ", "))
	}
	rec.Tool = tool.Name
	args := json.RawMessage(call.Function.Arguments)
	if strings.TrimSpace(call.Function.Arguments) == "" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return "", contract.Errorf(contract.CodeInvalidRequest, "the arguments of %s are not valid JSON (%s): send one JSON object", tool.Name, clip(call.Function.Arguments, 80))
	}
	// The agent acts for its caller: its calls carry the caller's token
	// and scopes and are held to the caller's workspaces, never wider
	// (the services check it against the run the gateway signed).
	cc := contract.CallContext{Source: x.source(), Transport: x.cc.Transport, Agent: x.def.ID, Depth: x.cc.Depth + 1,
		Token: x.cc.Token, Scopes: x.cc.Scopes, Workspaces: x.cc.Workspaces, Call: x.cc.Call}
	if tool.Writes {
		// Checked here as well as by the service: a bad call must not
		// wait for an approval it could never use.
		obj, err := tool.CheckArguments(args)
		if err != nil {
			return "", err
		}
		return x.write(ctx, tool, obj, args, cc)
	}
	raw, err := x.r.tools.Call(ctx, tool, args, cc)
	return string(raw), err
}

// write passes a side-effecting call through the approval gate, makes it,
// and audits it either way.
func (x *run) write(ctx context.Context, tool contract.Tool, obj map[string]any, params json.RawMessage, cc contract.CallContext) (string, error) {
	row := audit.Row{Client: cc.Source, Token: cc.Token, ToolName: tool.Name, ArgsSummary: tool.Summarize(obj)}
	defer func() {
		if x.r.opts.Audit != nil {
			x.r.opts.Audit.Record(ctx, row)
		}
	}()
	if err := x.r.opts.Approval.Check(ctx, Pending{AgentID: x.def.ID, Tool: tool.Name, Arguments: scrubbed(obj).(map[string]any), Client: cc.Source,
		Token: cc.Token, Workspaces: cc.Workspaces, Call: cc.Call}); err != nil {
		row.ErrorMessage = contract.ErrorMessage(err)
		return "", err
	}
	raw, err := x.r.tools.Call(ctx, tool, params, cc)
	if err != nil {
		row.ErrorMessage = contract.ErrorMessage(err)
		return "", err
	}
	row.Success = true
	var res struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &res) == nil {
		row.ResultingID = res.ID
	}
	return string(raw), nil
}

// source is the provenance of the agent's own calls: who asked, then the
// agent, so a learned item says both.
func (x *run) source() string {
	if x.cc.Source == "" {
		return "agent:" + x.def.ID
	}
	return x.cc.Source + "/agent:" + x.def.ID
}

// capped cuts a tool result to the configured size, on a character
// boundary, saying so.
func (x *run) capped(s string) string {
	limit := x.r.opts.MaxToolResult
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[truncated: the result was %d bytes, over the %d-byte limit; ask for less, e.g. a smaller limit]", len(s), limit)
}

// promptGuidedCall reads a tool call written as the tool-use block asks
// (one JSON object {"tool": ..., "arguments": {...}}), for models that do
// not call tools natively.
func promptGuidedCall(content string) []llm.ToolCall {
	s := strings.TrimSpace(content)
	if m := fenced.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if !strings.HasPrefix(s, "{") {
		return nil
	}
	var c struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal([]byte(s), &c) != nil || c.Tool == "" {
		return nil
	}
	call := llm.ToolCall{ID: "prompt-guided", Type: "function"}
	call.Function.Name = FunctionName(c.Tool)
	call.Function.Arguments = string(c.Arguments)
	return []llm.ToolCall{call}
}

var fenced = regexp.MustCompile("(?s)^```(?:json)?\\s*(.*?)\\s*```$")

// SystemPrompt is a sub-agent's system prompt: who OpenHuman is, its
// values, how it treats the user, the agent's own prompt, and the tools it
// may call.
func SystemPrompt(def Definition, tools []CoreTool) string {
	var b strings.Builder
	for _, name := range []string{"identity", "soul", "user"} {
		text, _ := fs.ReadFile(promptFS, "prompts/"+name+".md")
		b.Write(text)
		b.WriteString("\n\n")
	}
	p, _ := Prompt(def.ID)
	b.WriteString(p)
	b.WriteString("\n\n")
	b.WriteString(ToolInstructions(tools))
	return b.String()
}

func definition(id string) (Definition, bool) {
	for _, d := range builtins {
		if d.ID == id {
			return d, true
		}
	}
	return Definition{}, false
}

func ids() []string {
	out := make([]string, len(builtins))
	for i, d := range builtins {
		out[i] = d.ID
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
