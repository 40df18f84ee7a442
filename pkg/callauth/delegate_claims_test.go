package callauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The claims of docs/operations.md on a delegate's calls that
// TestDelegates leaves out: the same transport, ending no later than the
// run, and only while the run's signature holds.
func TestDelegateWithinTheRun(t *testing.T) {
	k := mustKeys(t)
	runBody := `{"params":{"agent_id":"researcher","prompt":"p"},"ctx":{}}`
	runAuth, _ := sign(t, k.gw, context.Background(), run, "_INBOX_gateway.e.1", runBody, caller, time.Minute)
	grant, err := k.v.Verify(context.Background(), run, "_INBOX_gateway.e.1", []byte(runBody), runAuth, "", caller)
	if err != nil {
		t.Fatal(err)
	}
	ctx := NewContext(context.Background(), grant)
	agentCC := caller
	agentCC.Source, agentCC.Agent, agentCC.Depth = caller.Source+"/agent:researcher", "researcher", 1
	fresh := func() *Verifier {
		v, err := NewVerifier(Trust{Gateway: k.gw.Key(), Delegates: []Delegate{{Key: k.agents.Key(), Within: run, May: []string{"openhuman.memory.>"}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := func(t *testing.T, err error, why string) {
		t.Helper()
		if err == nil || contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), why) {
			t.Fatalf("err = %v, want DENIED saying %q", err, why)
		}
	}
	t.Run("another transport", func(t *testing.T) {
		cc := agentCC
		cc.Transport = contract.TransportMCPStdio
		a, p := sign(t, k.agents, ctx, fetch, "r", "{}", cc, time.Second)
		_, err := fresh().Verify(context.Background(), fetch, "r", []byte("{}"), a, p, cc)
		want(t, err, "transport")
	})
	t.Run("outliving the run", func(t *testing.T) {
		// Sign refuses to; a delegate's key held elsewhere need not.
		pr := proof{key: k.agents.Key(), exp: grant.p.exp + 1000, nonce: newNonce(), idHash: identityHash(agentCC), replyKey: k.agents.Replies().Public()}
		pr.sig = k.agents.sign(base(fetch, "r", pr.exp, pr.nonce, pr.replyKey, pr.idHash, sum([]byte("{}"))))
		_, err := fresh().Verify(context.Background(), fetch, "r", []byte("{}"), pr.String(), grant.header(), agentCC)
		want(t, err, "outlive")
	})
	t.Run("after the run's signature expired", func(t *testing.T) {
		// A proof of the delegate's own that is still fresh: only the
		// grant it names has run out.
		exp := time.UnixMilli(grant.p.exp)
		pr := proof{key: k.agents.Key(), exp: exp.Add(10 * time.Minute).UnixMilli(), nonce: newNonce(), idHash: identityHash(agentCC), replyKey: k.agents.Replies().Public()}
		pr.sig = k.agents.sign(base(fetch, "r", pr.exp, pr.nonce, pr.replyKey, pr.idHash, sum([]byte("{}"))))
		v := fresh()
		v.now = func() time.Time { return exp.Add(ClockSkew + time.Millisecond) }
		_, err := v.Verify(context.Background(), fetch, "r", []byte("{}"), pr.String(), grant.header(), agentCC)
		want(t, err, "the call it acts within has expired")
	})
}

// A delegate's request refused for its grant is refused so once: the
// refusal is sealed for its caller, and a replay of the same request (a
// broken parent header put back in) gets only the unsealed word that it
// is a replay.
func TestSignedRefusalIsOncePerNonce(t *testing.T) {
	k := mustKeys(t)
	v, err := NewVerifier(Trust{Gateway: k.gw.Key(), Delegates: []Delegate{{Key: k.agents.Key(), Within: run, May: []string{"openhuman.memory.>"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cc := caller
	cc.Source, cc.Agent, cc.Depth = caller.Source+"/agent:researcher", "researcher", 1
	pr := proof{key: k.agents.Key(), exp: time.Now().Add(time.Minute).UnixMilli(), nonce: newNonce(), idHash: identityHash(cc), replyKey: k.agents.Replies().Public()}
	pr.sig = k.agents.sign(base(fetch, "r", pr.exp, pr.nonce, pr.replyKey, pr.idHash, sum([]byte("{}"))))
	_, err = v.Check(context.Background(), fetch, "r", []byte("{}"), pr.String(), "no-such-grant")
	if err == nil || !Sealable(err) {
		t.Fatalf("the first refusal for its grant: %v (sealable %v)", err, Sealable(err))
	}
	_, err = v.Check(context.Background(), fetch, "r", []byte("{}"), pr.String(), "another-broken-grant")
	if err == nil || Sealable(err) || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("the same request again: %v (sealable %v), want an unsealed replay refusal", err, Sealable(err))
	}
}
