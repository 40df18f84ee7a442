package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The agents service signs within a run for what a sub-agent may call:
// memory, search, list_subagents and run_subagent (deploy/nats/auth.conf
// lets the agents user publish those alone). Deciding approvals is the
// gateway's; a service should not take the agents key's word for it
// either, so that the signature, not only NATS permissions, holds a
// delegate to what it is for (embedded mode and an open NATS have no
// permissions).
func TestDelegateSignsOnlyWhatSubAgentsCall(t *testing.T) {
	keys := bustest.Keys()
	v, err := callauth.NewVerifier(keys.Trust(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	caller := contract.CallContext{Source: "http:laptop", Transport: contract.TransportJSONRPC, Token: "laptop",
		Scopes: []string{contract.ScopeRead, contract.ScopeAct}}
	run := contract.AgentRunSubagent.Subject()
	runBody, _ := contract.EncodeRequest([]byte(`{"agent_id":"librarian","prompt":"p"}`), caller)
	auth, _, err := keys.GatewaySigner().Sign(ctx, run, "_INBOX_gateway.x.1", runBody, caller, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	grant, err := v.Verify(ctx, run, "_INBOX_gateway.x.1", runBody, auth, "", caller)
	if err != nil {
		t.Fatal(err)
	}
	agentCC := caller
	agentCC.Source, agentCC.Agent, agentCC.Depth = caller.Source+"/agent:librarian", "librarian", 1
	for _, subject := range []string{contract.ApprovalDecide.Subject(), contract.ApprovalList.Subject()} {
		body, _ := contract.EncodeRequest([]byte(`{"id":"x","approve":true}`), agentCC)
		a, p, err := keys.AgentsSigner().Sign(callauth.NewContext(ctx, grant), subject, "_INBOX_agents.y.1", body, agentCC, time.Now().Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(ctx, subject, "_INBOX_agents.y.1", body, a, p, agentCC); err == nil {
			t.Errorf("the agents key's call to %s within a run was taken", subject)
		}
	}
}
