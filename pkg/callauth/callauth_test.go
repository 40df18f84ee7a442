package callauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

const (
	fetch = "openhuman.memory.fetch"
	run   = "openhuman.agents.run_subagent"
)

type keys struct {
	gw, agents, stranger *Signer
	v                    *Verifier
}

func mustKeys(t *testing.T) keys {
	t.Helper()
	mk := func(delegate bool) *Signer {
		seed, _, err := NewSeed()
		if err != nil {
			t.Fatal(err)
		}
		s, err := newSigner(seed, delegate)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	k := keys{gw: mk(false), agents: mk(true), stranger: mk(false)}
	v, err := NewVerifier(Trust{Gateway: k.gw.Key(), Delegates: []Delegate{{Key: k.agents.Key(), Within: run, May: []string{"openhuman.memory.>"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k.v = v
	return k
}

func sign(t *testing.T, s *Signer, ctx context.Context, subject, reply, body string, cc contract.CallContext, d time.Duration) (string, string) {
	t.Helper()
	a, p, err := s.Sign(ctx, subject, reply, []byte(body), cc, time.Now().Add(d))
	if err != nil {
		t.Fatal(err)
	}
	return a, p
}

var caller = contract.CallContext{Source: "http:laptop", Transport: contract.TransportJSONRPC, Token: "laptop",
	Scopes: []string{"read", "act"}, Workspaces: []string{"work"}}

func TestRootProofs(t *testing.T) {
	k := mustKeys(t)
	body := `{"params":{"query":"x"},"ctx":{"source":"http:laptop"}}`
	auth, _ := sign(t, k.gw, context.Background(), fetch, "_INBOX_gateway.a.1", body, caller, time.Second)
	stranger, _ := sign(t, k.stranger, context.Background(), fetch, "_INBOX_gateway.a.1", body, caller, time.Second)
	expired, _ := sign(t, k.gw, context.Background(), fetch, "_INBOX_gateway.a.1", body, caller, -time.Minute)
	// Only the key's holder can sign for a day: one whose clock is a day ahead.
	ahead := *k.gw
	ahead.now = func() time.Time { return time.Now().Add(24 * time.Hour) }
	forever, _ := sign(t, &ahead, context.Background(), fetch, "_INBOX_gateway.a.1", body, caller, 24*time.Hour)
	wider := caller
	wider.Workspaces = nil
	widenedAuth, _ := sign(t, k.gw, context.Background(), fetch, "_INBOX_gateway.a.1", body, caller, time.Second)
	cases := []struct {
		name, subject, reply, body, auth string
		cc                               contract.CallContext
		want                             string
	}{
		{"missing", fetch, "_INBOX_gateway.a.1", body, "", caller, "no Openhuman-Auth header"},
		{"malformed", fetch, "_INBOX_gateway.a.1", body, "v1 x y", caller, "malformed"},
		{"another subject", "openhuman.memory.forget", "_INBOX_gateway.a.1", body, auth, caller, "does not match"},
		{"another reply subject", fetch, "_INBOX.evil.1", body, auth, caller, "does not match"},
		{"altered body", fetch, "_INBOX_gateway.a.1", strings.Replace(body, "x", "y", 1), auth, caller, "does not match"},
		{"widened workspaces", fetch, "_INBOX_gateway.a.1", body, widenedAuth, wider, "not the one its signature names"},
		{"untrusted key", fetch, "_INBOX_gateway.a.1", body, stranger, caller, "does not trust"},
		{"expired", fetch, "_INBOX_gateway.a.1", body, expired, caller, "expired"},
		{"valid too long", fetch, "_INBOX_gateway.a.1", body, forever, caller, "longer than any call"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := k.v.Verify(context.Background(), c.subject, c.reply, []byte(c.body), c.auth, "", c.cc)
			if err == nil || !strings.Contains(err.Error(), c.want) || contract.ErrorCode(err) != contract.CodeDenied {
				t.Fatalf("err = %v, want DENIED saying %q", err, c.want)
			}
		})
	}
	t.Run("genuine, then its replay", func(t *testing.T) {
		g, err := k.v.Verify(context.Background(), fetch, "_INBOX_gateway.a.1", []byte(body), auth, "", caller)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Context(); got.Token != "laptop" || got.Workspaces[0] != "work" {
			t.Fatalf("grant context = %+v", got)
		}
		if _, err := k.v.Verify(context.Background(), fetch, "_INBOX_gateway.a.1", []byte(body), auth, "", caller); err == nil || !strings.Contains(err.Error(), "replay") {
			t.Fatalf("replay: err = %v", err)
		}
	})
	t.Run("a deadline past MaxLife is signed for MaxLife", func(t *testing.T) {
		a, _ := sign(t, k.gw, context.Background(), fetch, "r", body, caller, 24*time.Hour)
		p, _ := parseProof(a)
		if left := time.Until(time.UnixMilli(p.exp)); left > MaxLife+ClockSkew || left < MaxLife {
			t.Fatalf("valid for %s", left)
		}
		if _, err := k.v.Verify(context.Background(), fetch, "r", []byte(body), a, "", caller); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("per-request fields are not identity", func(t *testing.T) {
		a, _ := sign(t, k.gw, context.Background(), fetch, "r", body, caller, time.Second)
		cc := caller
		cc.MinSeq, cc.TimeoutMS = 7, 900 // in the body, which the hash covers
		if _, err := k.v.Verify(context.Background(), fetch, "r", []byte(body), a, "", cc); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDelegates(t *testing.T) {
	k := mustKeys(t)
	runBody := `{"params":{"agent_id":"researcher","prompt":"p"},"ctx":{}}`
	runAuth, _ := sign(t, k.gw, context.Background(), run, "_INBOX_gateway.b.1", runBody, caller, time.Minute)
	grant, err := k.v.Verify(context.Background(), run, "_INBOX_gateway.b.1", []byte(runBody), runAuth, "", caller)
	if err != nil {
		t.Fatal(err)
	}
	ctx := NewContext(context.Background(), grant)
	agentCC := caller
	agentCC.Source, agentCC.Agent, agentCC.Depth = "http:laptop/agent:researcher", "researcher", 1

	// A second service, which sees the grant for the first time, as JSON.
	other, err := NewVerifier(Trust{Gateway: k.gw.Key(), Delegates: []Delegate{{Key: k.agents.Key(), Within: run, May: []string{"openhuman.memory.>"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(cc contract.CallContext, auth, parent string) error {
		_, err := other.Verify(context.Background(), fetch, "_INBOX_agents.c.1", []byte("{}"), auth, parent, cc)
		return err
	}
	t.Run("within", func(t *testing.T) {
		a, p := sign(t, k.agents, ctx, fetch, "_INBOX_agents.c.1", "{}", agentCC, time.Second)
		if err := verify(agentCC, a, p); err != nil {
			t.Fatal(err)
		}
		g, err := other.Verify(context.Background(), fetch, "_INBOX_agents.c.1", []byte("{}"), a, p, agentCC)
		if err == nil || g != nil {
			t.Fatal("a delegate's request was taken twice")
		}
	})
	t.Run("no grant: acts for nobody", func(t *testing.T) {
		if _, _, err := k.agents.Sign(context.Background(), fetch, "r", nil, agentCC, time.Now().Add(time.Second)); contract.ErrorCode(err) != contract.CodeDenied {
			t.Fatalf("err = %v", err)
		}
	})
	widen := []struct {
		name string
		edit func(*contract.CallContext)
		want string
	}{
		{"every workspace", func(c *contract.CallContext) { c.Workspaces = nil }, "workspaces"},
		{"another workspace", func(c *contract.CallContext) { c.Workspaces = []string{"home"} }, "workspaces"},
		{"every scope", func(c *contract.CallContext) { c.Scopes = nil }, "scopes"},
		{"another token", func(c *contract.CallContext) { c.Token = "admin" }, "token"},
		{"another source", func(c *contract.CallContext) { c.Source = "mcp:claude" }, "source"},
		{"not deeper", func(c *contract.CallContext) { c.Depth = 0 }, "deeper"},
	}
	for _, w := range widen {
		t.Run("widened: "+w.name, func(t *testing.T) {
			cc := agentCC
			w.edit(&cc)
			a, p := sign(t, k.agents, ctx, fetch, "_INBOX_agents.c.1", "{}", cc, time.Second)
			if err := verify(cc, a, p); err == nil || !strings.Contains(err.Error(), w.want) {
				t.Fatalf("err = %v, want one about %s", err, w.want)
			}
		})
	}
	t.Run("narrowed", func(t *testing.T) {
		cc := agentCC
		cc.Scopes = []string{"read"}
		a, p := sign(t, k.agents, ctx, fetch, "_INBOX_agents.c.1", "{}", cc, time.Second)
		if err := verify(cc, a, p); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("without the parent", func(t *testing.T) {
		a, _ := sign(t, k.agents, ctx, fetch, "_INBOX_agents.c.1", "{}", agentCC, time.Second)
		if err := verify(agentCC, a, ""); err == nil || !strings.Contains(err.Error(), ParentHeader) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a parent for another subject", func(t *testing.T) {
		fa, _ := sign(t, k.gw, context.Background(), fetch, "r2", "{}", caller, time.Minute)
		g, err := k.v.Verify(context.Background(), fetch, "r2", []byte("{}"), fa, "", caller)
		if err != nil {
			t.Fatal(err)
		}
		a, p := sign(t, k.agents, NewContext(context.Background(), g), fetch, "_INBOX_agents.c.1", "{}", agentCC, time.Second)
		if err := verify(agentCC, a, p); err == nil || !strings.Contains(err.Error(), "was for "+fetch) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a parent not the gateway's", func(t *testing.T) {
		sa, _ := sign(t, k.stranger, context.Background(), run, "r3", runBody, caller, time.Minute)
		p, _ := parseProof(sa)
		g := &Grant{p: p, subject: run, reply: "r3", bodySum: sum([]byte(runBody)), cc: caller}
		a, ph := sign(t, k.agents, NewContext(context.Background(), g), fetch, "_INBOX_agents.c.1", "{}", agentCC, time.Second)
		if err := verify(agentCC, a, ph); err == nil || !strings.Contains(err.Error(), "not signed by the gateway") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a parent whose claims were widened", func(t *testing.T) {
		wide := &Grant{p: grant.p, subject: grant.subject, reply: grant.reply, bodySum: grant.bodySum,
			cc: contract.CallContext{Source: caller.Source, Transport: caller.Transport, Token: caller.Token}}
		cc := agentCC
		cc.Workspaces, cc.Scopes = nil, nil
		a, p := sign(t, k.agents, NewContext(context.Background(), wide), fetch, "_INBOX_agents.c.1", "{}", cc, time.Second)
		if err := verify(cc, a, p); err == nil || !strings.Contains(err.Error(), "does not match the gateway's signature") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the gateway's key signing with a parent", func(t *testing.T) {
		a, _ := sign(t, k.gw, context.Background(), fetch, "_INBOX_agents.c.1", "{}", agentCC, time.Second)
		_, p := sign(t, k.agents, ctx, fetch, "x", "{}", agentCC, time.Second)
		if err := verify(agentCC, a, p); err == nil || !strings.Contains(err.Error(), "has no parent") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestNoncesForgetExpired(t *testing.T) {
	n := newNonces()
	now := time.Unix(1_000_000, 0)
	n.now = func() time.Time { return now }
	add := func(nonce string, exp time.Time) bool {
		fresh, _ := n.Add(context.Background(), nonce, exp.UnixMilli())
		return fresh
	}
	if !add("a", now.Add(time.Second)) || add("a", now.Add(time.Second)) {
		t.Fatal("a nonce was taken twice")
	}
	add("b", now.Add(time.Hour))
	now = now.Add(2*ClockSkew + 3*time.Second)
	add("c", now.Add(time.Second))
	if _, kept := n.seen["a"]; kept || len(n.seen) != 2 {
		t.Fatalf("seen = %v, want b and c only", n.seen)
	}
}

// What a call pays for its proof: the gateway signs, the service verifies.
func BenchmarkSignVerify(b *testing.B) {
	seed, _, _ := NewSeed()
	s, _ := NewSigner(seed)
	v, _ := NewVerifier(Trust{Gateway: s.Key()}, nil)
	body := []byte(`{"params":{"query":"how do I take my coffee","limit":5},"ctx":{"source":"mcp:claude-desktop","transport":"mcp_stdio","timeout_ms":29999}}`)
	cc := contract.CallContext{Source: "mcp:claude-desktop", Transport: contract.TransportMCPStdio}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		auth, _, err := s.Sign(ctx, fetch, "_INBOX_gateway.x.1", body, cc, time.Now().Add(30*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Verify(ctx, fetch, "_INBOX_gateway.x.1", body, auth, "", cc); err != nil {
			b.Fatal(err)
		}
	}
}

// Embedded mode's HMAC keys are checked exactly as Ed25519 ones: a shared
// key's proof stands, an altered one, another key's and a replay do not,
// and a delegate's shared key acts only within a grant.
func TestSharedKeys(t *testing.T) {
	gwSecret, gwID := NewSecret()
	agSecret, agID := NewSecret()
	otherSecret, _ := NewSecret()
	if gwID == agID || strings.Contains(gwID, string(gwSecret)) {
		t.Fatalf("ids %s %s", gwID, agID)
	}
	v, err := NewVerifier(Trust{Gateway: gwID, Delegates: []Delegate{{Key: agID, Within: run, May: []string{"openhuman.memory.>"}}},
		Secrets: map[string][]byte{gwID: gwSecret, agID: agSecret}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, agents := NewSharedSigner(gwSecret, false), NewSharedSigner(agSecret, true)
	ctx := context.Background()
	body := `{"params":{},"ctx":{}}`
	a, _ := sign(t, gw, ctx, fetch, "r", body, caller, time.Second)
	if _, err := v.Verify(ctx, fetch, "r", []byte(body), a, "", caller); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(ctx, fetch, "r", []byte(body), a, "", caller); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("replay: %v", err)
	}
	b, _ := sign(t, gw, ctx, fetch, "r", body, caller, time.Second)
	if _, err := v.Verify(ctx, fetch, "r", []byte(body+" "), b, "", caller); err == nil {
		t.Fatal("an altered body was taken")
	}
	// Another secret claiming the gateway's id.
	forged := NewSharedSigner(otherSecret, false)
	forged.key = gwID
	c, _ := sign(t, forged, ctx, fetch, "r", body, caller, time.Second)
	if _, err := v.Verify(ctx, fetch, "r", []byte(body), c, "", caller); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("another secret under the gateway's id: %v", err)
	}
	runAuth, _ := sign(t, gw, ctx, run, "r2", body, caller, time.Minute)
	grant, err := v.Verify(ctx, run, "r2", []byte(body), runAuth, "", caller)
	if err != nil {
		t.Fatal(err)
	}
	agentCC := caller
	agentCC.Source, agentCC.Agent, agentCC.Depth = caller.Source+"/agent:x", "x", 1
	d, p := sign(t, agents, NewContext(ctx, grant), fetch, "r3", body, agentCC, time.Second)
	if _, err := v.Verify(ctx, fetch, "r3", []byte(body), d, p, agentCC); err != nil {
		t.Fatal(err)
	}
	wide := agentCC
	wide.Workspaces = nil
	d, p = sign(t, agents, NewContext(ctx, grant), fetch, "r4", body, wide, time.Second)
	if _, err := v.Verify(ctx, fetch, "r4", []byte(body), d, p, wide); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Fatalf("a widened delegate call: %v", err)
	}
}

// What a call pays in embedded mode.
func BenchmarkSignVerifyShared(b *testing.B) {
	secret, id := NewSecret()
	s := NewSharedSigner(secret, false)
	v, _ := NewVerifier(Trust{Gateway: id, Secrets: map[string][]byte{id: secret}}, nil)
	body := []byte(`{"params":{"query":"how do I take my coffee","limit":5},"ctx":{"source":"mcp:claude-desktop","transport":"mcp_stdio","timeout_ms":29999}}`)
	cc := contract.CallContext{Source: "mcp:claude-desktop", Transport: contract.TransportMCPStdio}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		auth, _, err := s.Sign(ctx, fetch, "_INBOX.x.1", body, cc, time.Now().Add(30*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Verify(ctx, fetch, "_INBOX.x.1", body, auth, "", cc); err != nil {
			b.Fatal(err)
		}
	}
}

// A delegate signs only for the subjects it may.
func TestDelegateMay(t *testing.T) {
	d := delegateKey{subjects: []string{"openhuman.memory.>", "openhuman.agents.run_subagent"}}
	for subject, want := range map[string]bool{"openhuman.memory.fetch": true, "openhuman.agents.run_subagent": true,
		"openhuman.agents.approval_decide": false, "openhuman.memoryx.fetch": false, "openhuman.agents.run_subagentx": false} {
		if d.may(subject) != want {
			t.Errorf("%s: %v", subject, !want)
		}
	}
}
