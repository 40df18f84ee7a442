package approvals

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// MCP 2026-07-28 has no server-to-client requests: a server that needs a
// person's answer replies input_required with the question, and the client
// sends the same call again with the answer. For agent.run_subagent the run
// goes on in the agents service, waiting for its approval as it would for
// the console; the first request returns the question as soon as the run
// waits, and the retry decides the approval (approval.decide, gated and
// audited like any decision) and collects the run's outcome by its call id
// (contract.RunResultEndpoint). Nothing is kept in the gateway between the
// two: the retry may reach any replica.

// ApprovalInput is the key of the approval question in inputRequests and
// inputResponses.
const ApprovalInput = "approval"

// Question is a person's answer a call needs before it can finish: the
// message and schema of an elicitation, and the state the retry carries.
type Question struct {
	Key     string
	Message string
	Schema  map[string]any
	State   string
}

// Retry is what a client's retry of a call carries: the requestState it
// was given and its inputResponses, by key.
type Retry struct {
	State     string
	Responses map[string]json.RawMessage
}

// stateTTL is how long a requestState is good for: the longest a run
// waits for approval, with room to spare.
const stateTTL = 15 * time.Minute

// CallToolRoundTrip is CallTool for a client that answers questions by
// retrying the call: it returns a result, or a question whose answer
// the retry (r) brings. Only agent.run_subagent asks, and only a caller
// that may read the approvals; any other call is CallTool, and a retry's
// state for it is refused.
func (a *Asker) CallToolRoundTrip(ctx context.Context, name string, args json.RawMessage, cc contract.CallContext, r Retry) (json.RawMessage, *Question, error) {
	tool, ok := contract.ToolFor(a.profile, name)
	asks := ok && tool.Name == contract.AgentRunSubagent.Name && a.gate.AllowScope(contract.ApprovalList.Name, contract.ScopeRead, cc) == nil
	if r.State != "" {
		if !asks {
			return nil, nil, badState("this call never asked anything")
		}
		return a.retry(ctx, tool, args, cc, r)
	}
	if !asks {
		raw, err := a.gw.CallTool(ctx, name, args, cc)
		return raw, nil, err
	}
	cc.Call = newCallID()
	ran := make(chan outcome, 1)
	// The run outlives this request when it must wait: its result is
	// collected by the retry, from the agents service.
	go func() {
		raw, err := a.gw.Dispatch(context.WithoutCancel(ctx), tool, args, cc)
		ran <- outcome{raw, err}
	}()
	return a.await(ctx, tool, args, cc, ran, "")
}

type outcome struct {
	raw json.RawMessage
	err error
}

// retry decides the approval r answers, then waits for the run's outcome
// or its next question.
func (a *Asker) retry(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext, r Retry) (json.RawMessage, *Question, error) {
	st, err := a.openState(r.State, tool, args, cc)
	if err != nil {
		return nil, nil, err
	}
	cc.Call = st.Call
	skip := ""
	if resp, ok := r.Responses[ApprovalInput]; ok {
		if err := a.decideAnswer(ctx, st.Approval, resp, cc); err != nil {
			return nil, nil, err
		}
		skip = st.Approval
	}
	return a.await(ctx, tool, args, cc, nil, skip)
}

// decideAnswer decides approval id as the client's elicitation result
// says: accept with approve true or false, or decline (a refusal). Cancel
// decides nothing: the console still can, or the approval's timeout. A
// decision that lost the race (NOT_FOUND) leaves the other one standing.
func (a *Asker) decideAnswer(ctx context.Context, id string, resp json.RawMessage, cc contract.CallContext) error {
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(resp, &res); err != nil {
		return contract.Errorf(contract.CodeInvalidRequest, "inputResponses.%s must be an elicitation result {action, content}: %v", ApprovalInput, err).With("field", "inputResponses")
	}
	decision := decisionOf(res.Action, res.Content, cc)
	if decision == nil {
		return nil
	}
	decision["id"] = id
	params, _ := json.Marshal(decision)
	_, err := a.gw.Dispatch(ctx, contract.ApprovalDecide, params, cc)
	if e := contract.AsError(err); e != nil && e.Code != contract.CodeNotFound {
		return err
	}
	return nil
}

// decisionOf is approval.decide's params (less the id) for an answer to
// the approval question, nil when it decides nothing.
func decisionOf(action string, content map[string]any, cc contract.CallContext) map[string]any {
	switch action {
	case "accept":
		approve, _ := content["approve"].(bool)
		d := map[string]any{"approve": approve}
		if note, _ := content["note"].(string); note != "" {
			d["reason"] = clipText(note, 500)
		}
		return d
	case "decline":
		return map[string]any{"approve": false, "reason": "declined in " + cc.Source}
	}
	return nil
}

// await waits, until ctx ends, for the run cc.Call: its outcome (from ran
// when this request started it, else collected from the agents service)
// or an approval it waits for other than skip, which becomes a question.
func (a *Asker) await(ctx context.Context, tool contract.Tool, args json.RawMessage, cc contract.CallContext, ran <-chan outcome, skip string) (json.RawMessage, *Question, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout(tool))
	defer cancel()
	t := time.NewTicker(askEvery)
	defer t.Stop()
	for {
		if ran == nil {
			if res, err := a.bus.CallEndpoint(ctx, contract.RunResultEndpoint, map[string]string{"call": cc.Call}, cc); err == nil {
				var rr contract.RunResult
				if json.Unmarshal(res, &rr) == nil && rr.Done {
					if rr.Error != nil {
						return nil, nil, rr.Error
					}
					return rr.Result, nil, nil
				}
			}
		}
		if p, ok := a.waitingFor(ctx, cc, skip); ok {
			q, err := a.question(p, tool, args, cc)
			return nil, q, err
		}
		select {
		case o := <-ran:
			return o.raw, nil, o.err
		case <-ctx.Done():
			return nil, nil, contract.Errorf(contract.CodeUnavailable, "%s did not finish in time; it may still be running (its outcome is kept for %s: send the call again with the same requestState)", tool.Name, stateTTL)
		case <-t.C:
		}
	}
}

// waitingFor is the first approval the run cc.Call waits for, other than
// skip.
func (a *Asker) waitingFor(ctx context.Context, cc contract.CallContext, skip string) (waiting, bool) {
	raw, err := a.bus.CallTool(ctx, contract.ApprovalList, nil, cc)
	var list contract.ApprovalQueue
	if err != nil || json.Unmarshal(raw, &list) != nil {
		return waiting{}, false
	}
	for _, p := range list.Pending {
		if p.Call == cc.Call && p.ID != skip {
			return p, true
		}
	}
	return waiting{}, false
}

// question asks about p, with the state that lets any replica take the
// answer.
func (a *Asker) question(p waiting, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (*Question, error) {
	state, err := a.sealState(requestState{Call: cc.Call, Approval: p.ID}, tool, args, cc)
	if err != nil {
		return nil, err
	}
	return &Question{Key: ApprovalInput, Message: approvalMessage(p), Schema: approveSchema, State: state}, nil
}

// requestState is what a question's state holds, sealed with the
// gateway's state key: the run and the approval, whose call it was
// (token and workspaces), for which tool and arguments, and until when.
type requestState struct {
	Call     string `json:"c"`
	Approval string `json:"a"`
	Caller   string `json:"p"`
	Digest   string `json:"d"`
	Expires  int64  `json:"e"`
}

func (a *Asker) sealState(st requestState, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (string, error) {
	st.Caller, st.Digest = principal(cc), callDigest(tool, args)
	st.Expires = time.Now().Add(stateTTL).UnixMilli()
	payload, err := json.Marshal(st)
	if err != nil {
		return "", contract.Errorf(contract.CodeInternal, "encoding a request state: %v", err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(a.stateMAC(payload)), nil
}

// openState checks a retry's state: sealed by a gateway holding the same
// key, not expired, and given to this caller for this call.
func (a *Asker) openState(s string, tool contract.Tool, args json.RawMessage, cc contract.CallContext) (requestState, error) {
	enc := base64.RawURLEncoding
	body, sig, _ := strings.Cut(s, ".")
	payload, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, a.stateMAC(payload)) {
		return requestState{}, badState("it was not given by this server, or was altered")
	}
	var st requestState
	switch {
	case json.Unmarshal(payload, &st) != nil:
		return requestState{}, badState("it cannot be read")
	case time.Now().UnixMilli() > st.Expires:
		return requestState{}, badState("it has expired; call the tool again without it")
	case st.Caller != principal(cc):
		return requestState{}, badState("it was given to another caller")
	case st.Digest != callDigest(tool, args):
		return requestState{}, badState("it was given for another call; send the same name and arguments again")
	}
	return st, nil
}

func badState(why string) error {
	return contract.Errorf(contract.CodeInvalidRequest, "requestState refused: %s", why).With("field", "requestState")
}

func (a *Asker) stateMAC(payload []byte) []byte {
	m := hmac.New(sha256.New, a.stateKey)
	m.Write(payload)
	return m.Sum(nil)
}

// principal names the caller a state is given to: its token and
// workspaces (the label comes from clientInfo, which anyone can write).
func principal(cc contract.CallContext) string {
	return cc.Token + "\x00" + strings.Join(cc.Workspaces, "\x00")
}

// callDigest names a call by its tool and arguments, whatever their
// order of members or spacing.
func callDigest(tool contract.Tool, args json.RawMessage) string {
	var v any
	canon := []byte(args)
	if json.Unmarshal(args, &v) == nil {
		canon, _ = json.Marshal(v)
	}
	h := sha256.Sum256(append([]byte(tool.Name+"\x00"), canon...))
	return base64.RawURLEncoding.EncodeToString(h[:16])
}

// newStateKey is a key for a gateway alone, when none is configured.
func newStateKey() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}
