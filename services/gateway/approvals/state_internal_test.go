package approvals

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestRequestState: a state opens on any Asker holding the same key, for
// the same caller and call (whatever the arguments' spacing), and is
// refused, saying why, to another key, caller or call, or once altered.
func TestRequestState(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a, replica := New(nil, nil, nil, Options{StateKey: key}), New(nil, nil, nil, Options{StateKey: key})
	tool := contract.AgentRunSubagent
	args := json.RawMessage(`{"agent_id":"notes","prompt":"tidy"}`)
	cc := contract.CallContext{Source: "mcp:client", Token: "alice", Workspaces: []string{"home"}}
	state, err := a.sealState(requestState{Call: "c1", Approval: "a1"}, tool, args, cc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := replica.openState(state, tool, json.RawMessage(`{ "prompt":"tidy", "agent_id":"notes" }`), cc)
	if err != nil || st.Call != "c1" || st.Approval != "a1" {
		t.Fatalf("the same call on a replica: %+v %v", st, err)
	}
	other := cc
	other.Token = "bob"
	for _, tc := range []struct {
		name  string
		asker *Asker
		state string
		args  json.RawMessage
		cc    contract.CallContext
		why   string
	}{
		{"another key", New(nil, nil, nil, Options{}), state, args, cc, "not given by this server"},
		{"altered", a, "x" + state, args, cc, "not given by this server"},
		{"another caller", a, state, args, other, "another caller"},
		{"another call", a, state, json.RawMessage(`{"agent_id":"notes","prompt":"delete"}`), cc, "another call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.asker.openState(tc.state, tool, tc.args, tc.cc)
			if e := contract.AsError(err); e == nil || e.Code != contract.CodeInvalidRequest || !strings.Contains(e.Message, tc.why) {
				t.Errorf("openState = %v; want INVALID_REQUEST saying %q", err, tc.why)
			}
		})
	}
}
