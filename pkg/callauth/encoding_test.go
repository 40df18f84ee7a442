package callauth

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// What a proof signs must tell every two call contexts apart: a context
// that differs from the signed one in any field it covers is refused.

// A negative depth was written as 0, so a proof of depth 0 held for depth
// -1 too; in a grant (whose context travels as JSON beside the gateway's
// signature, not inside hashed bytes) that lowers the depth a delegate's
// call must exceed, so it passes as a client's own call (depth 0).
func TestDepthIsSignedAsIs(t *testing.T) {
	k := mustKeys(t)
	body := `{"params":{},"ctx":{}}`
	auth, _ := sign(t, k.gw, context.Background(), fetch, "r", body, caller, time.Minute)
	shallower := caller
	shallower.Depth = -1
	if _, err := k.v.Verify(context.Background(), fetch, "r", []byte(body), auth, "", shallower); contract.ErrorCode(err) != contract.CodeDenied {
		t.Errorf("a proof of depth 0 verified for depth -1: err = %v", err)
	}

	runBody := `{"params":{"agent_id":"researcher","prompt":"p"},"ctx":{}}`
	runAuth, _ := sign(t, k.gw, context.Background(), run, "_INBOX_gateway.d.1", runBody, caller, time.Minute)
	grant, err := k.v.Verify(context.Background(), run, "_INBOX_gateway.d.1", []byte(runBody), runAuth, "", caller)
	if err != nil {
		t.Fatal(err)
	}
	// The delegate rewrites the grant's context to depth -1; the gateway's
	// signature still holds for it.
	var w grantWire
	if err := json.Unmarshal([]byte(grant.header()), &w); err != nil {
		t.Fatal(err)
	}
	w.Ctx.Depth = -1
	forgedParent, _ := json.Marshal(w)
	flat := caller
	flat.Source, flat.Agent, flat.Depth = caller.Source+"/agent:researcher", "researcher", 0
	g, _ := parseGrant(string(forgedParent))
	a, _ := sign(t, k.agents, NewContext(context.Background(), g), fetch, "_INBOX_agents.d.1", "{}", flat, time.Second)
	other, err := NewVerifier(Trust{Gateway: k.gw.Key(), Delegates: []Delegate{{Key: k.agents.Key(), Within: run, May: []string{"openhuman.memory.>"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Verify(context.Background(), fetch, "_INBOX_agents.d.1", []byte("{}"), a, string(forgedParent), flat); err == nil {
		t.Errorf("a delegate's call at depth 0 was taken within a grant rewritten to depth -1")
	}
}

// Scopes nil (every scope) and [] (none) are signed apart, and the
// envelope's JSON omits an empty list: a gateway that signed [] must not
// have its call believed as nil by the service, which reads the JSON.
func TestEmptyScopesAreNotEvery(t *testing.T) {
	k := mustKeys(t)
	none := caller
	none.Scopes = []string{}
	body, err := contract.EncodeRequest(json.RawMessage(`{}`), none)
	if err != nil {
		t.Fatal(err)
	}
	var env contract.Request
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	auth, _ := sign(t, k.gw, context.Background(), fetch, "r", string(body), none, time.Minute)
	if _, err := k.v.Verify(context.Background(), fetch, "r", body, auth, "", env.Ctx); err == nil && env.Ctx.Holds(contract.ScopeAct) {
		t.Fatalf("a context signed with no scopes is believed holding act (decoded scopes %v)", env.Ctx.Scopes)
	}
}

// A request whose envelope names ctx twice: Go's decoder keeps the last,
// and the bytes are hashed whole, so nothing can be added to a signed
// request; and a request with a second ctx appended is not the one signed.
func TestDuplicateCtxInEnvelope(t *testing.T) {
	k := mustKeys(t)
	body, err := contract.EncodeRequest(json.RawMessage(`{"query":"x"}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := sign(t, k.gw, context.Background(), fetch, "r", string(body), caller, time.Minute)
	wide := caller
	wide.Workspaces = []string{"home"}
	extra, _ := json.Marshal(wide)
	forged := strings.TrimSuffix(string(body), "}") + `,"CTX":` + string(extra) + `}`
	var env contract.Request
	if err := json.Unmarshal([]byte(forged), &env); err != nil {
		t.Fatal(err)
	}
	if env.Ctx.MaySee("work") {
		t.Fatal("the test's forged envelope did not widen the decoded ctx")
	}
	for _, cc := range []contract.CallContext{env.Ctx, caller} {
		if _, err := k.v.Verify(context.Background(), fetch, "r", []byte(forged), auth, "", cc); err == nil {
			t.Fatalf("an envelope with a second ctx verified (as %+v)", cc)
		}
	}
}
