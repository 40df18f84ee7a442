package embedded_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

// A NATS client that reaches the bus directly, with or without a user's
// password, is held like any caller: what it says of itself in ctx counts
// only when the gateway signed it. Each case is what such a client might
// send to memory; "work" is the only workspace of the caller it poses as.

// rawCall sends one request as a raw NATS client would and returns the
// service's reply (or the error NATS gave).
func rawCall(t *testing.T, nc *nats.Conn, subject string, body []byte, hdr nats.Header, reply string) contract.Reply {
	t.Helper()
	if reply == "" {
		reply = nc.NewInbox()
	}
	sub, err := nc.SubscribeSync(reply)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if hdr == nil {
		hdr = nats.Header{}
	}
	if err := nc.PublishMsg(&nats.Msg{Subject: subject, Reply: reply, Data: body, Header: hdr}); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.NextMsg(10 * time.Second)
	for err == nil && msg.Header.Get(bus.HeartbeatHeader) != "" {
		msg, err = sub.NextMsg(10 * time.Second) // the service greeting a new caller
	}
	if err != nil {
		t.Fatalf("no reply to %s: %v", subject, err)
	}
	if from := msg.Header.Get(callauth.SealHeader); from != "" {
		key, nonce, _ := callauth.ReplyTo(hdr.Get(callauth.Header))
		k, ok := replyKeys.Load(key)
		if !ok {
			t.Fatalf("a reply sealed for %q, a key no signer of the test holds", key)
		}
		if msg.Data, err = k.(*callauth.ReplyKeys).Open(callauth.KindReply, from, nonce, reply, msg.Data); err != nil {
			t.Fatalf("a sealed reply that does not open: %v", err)
		}
	}
	r, err := contract.DecodeReply(msg.Data)
	if err != nil {
		t.Fatalf("reply %q: %v", msg.Data, err)
	}
	return r
}

// replyKeys are the reply keys of the signers of the test's requests, by
// their public key: rawCall opens the answers sealed for them.
var replyKeys sync.Map

// signed is a request the gateway's key signed for subject and reply.
func signed(t *testing.T, s *callauth.Signer, ctx context.Context, subject, reply string, params string, cc contract.CallContext) ([]byte, nats.Header) {
	t.Helper()
	body, err := contract.EncodeRequest(json.RawMessage(params), cc)
	if err != nil {
		t.Fatal(err)
	}
	auth, parent, err := s.Sign(ctx, subject, reply, body, cc, time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	replyKeys.Store(s.Replies().Public(), s.Replies())
	hdr := nats.Header{callauth.Header: {auth}}
	if parent != "" {
		hdr.Set(callauth.ParentHeader, parent)
	}
	return body, hdr
}

func wantDenied(t *testing.T, r contract.Reply, why string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("answered %.300s, want DENIED (%s)", r.Result, why)
	}
	if r.Error.Code != contract.CodeDenied || !strings.Contains(r.Error.Message, why) {
		t.Fatalf("error %s %q, want DENIED saying %q", r.Error.Code, r.Error.Message, why)
	}
}

// holds reports whether a fetch result names text.
func holds(r contract.Reply, text string) bool {
	return r.Error == nil && strings.Contains(string(r.Result), text)
}

// trustCases runs the forged, missing, replayed, cross-subject, altered and
// widened contexts against the memory service nc reaches. gw signs as the
// gateway, agents as the agents service.
func trustCases(t *testing.T, nc *nats.Conn, gw, agents *callauth.Signer) {
	fetch := contract.MemoryFetch.Subject()
	work := contract.CallContext{Source: "http:laptop", Transport: contract.TransportJSONRPC, Token: "laptop",
		Scopes: []string{contract.ScopeRead}, Workspaces: []string{"work"}}
	const query = `{"query":"badge number"}`
	ctx := context.Background()

	t.Run("genuine: sees its workspace only", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, gw, ctx, fetch, reply, query, work)
		r := rawCall(t, nc, fetch, body, hdr, reply)
		if !holds(r, "4471") || holds(r, "9313") {
			t.Fatalf("fetch as work: %v %.300s", r.Error, r.Result)
		}
	})
	t.Run("missing: a context written by hand", func(t *testing.T) {
		body, _ := contract.EncodeRequest(json.RawMessage(query), contract.CallContext{Source: "mcp:claude"})
		wantDenied(t, rawCall(t, nc, fetch, body, nil, ""), "no Openhuman-Auth header")
	})
	t.Run("forged: signed by a key nobody trusts", func(t *testing.T) {
		seed, _, err := callauth.NewSeed()
		if err != nil {
			t.Fatal(err)
		}
		mine, err := callauth.NewSigner(seed)
		if err != nil {
			t.Fatal(err)
		}
		reply := nc.NewInbox()
		body, hdr := signed(t, mine, ctx, fetch, reply, query, contract.CallContext{Source: "mcp:claude"})
		wantDenied(t, rawCall(t, nc, fetch, body, hdr, reply), "does not trust")
	})
	t.Run("replayed", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, gw, ctx, fetch, reply, query, work)
		if r := rawCall(t, nc, fetch, body, hdr, reply); r.Error != nil {
			t.Fatal(r.Error)
		}
		wantDenied(t, rawCall(t, nc, fetch, body, hdr, reply), "replay")
	})
	t.Run("sent to another subject", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, gw, ctx, fetch, reply, `{"ids":["x"]}`, work)
		wantDenied(t, rawCall(t, nc, contract.MemoryForget.Subject(), body, hdr, reply), "does not match")
	})
	t.Run("answer sent elsewhere", func(t *testing.T) {
		body, hdr := signed(t, gw, ctx, fetch, nc.NewInbox(), query, work)
		wantDenied(t, rawCall(t, nc, fetch, body, hdr, ""), "does not match")
	})
	t.Run("altered: its workspaces left out", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, gw, ctx, fetch, reply, query, work)
		wide := work
		wide.Workspaces = nil
		altered, _ := contract.EncodeRequest(json.RawMessage(query), wide)
		wantDenied(t, rawCall(t, nc, fetch, altered, hdr, reply), "does not match")
		if strings.Contains(string(body), "home") {
			t.Fatal("the genuine request named home")
		}
	})

	// The agents service acts within a run the gateway signed.
	run := contract.AgentRunSubagent.Subject()
	runBody, runHdr := signed(t, gw, ctx, run, "_INBOX_gateway.x.1", `{"agent_id":"researcher","prompt":"p"}`, work)
	trust := bustest.Keys().Trust()
	v, err := callauth.NewVerifier(trust, nil)
	if err != nil {
		t.Fatal(err)
	}
	grant, err := v.Verify(ctx, run, "_INBOX_gateway.x.1", runBody, runHdr.Get(callauth.Header), "", work)
	if err != nil {
		t.Fatal(err)
	}
	within := callauth.NewContext(ctx, grant)
	agentCC := work
	agentCC.Source, agentCC.Agent, agentCC.Depth = work.Source+"/agent:researcher", "researcher", 1

	t.Run("delegated: within the run", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, agents, within, fetch, reply, query, agentCC)
		if r := rawCall(t, nc, fetch, body, hdr, reply); !holds(r, "4471") || holds(r, "9313") {
			t.Fatalf("a sub-agent's fetch: %v %.300s", r.Error, r.Result)
		}
	})
	t.Run("delegated: widened to every workspace", func(t *testing.T) {
		cc := agentCC
		cc.Workspaces = nil
		reply := nc.NewInbox()
		body, hdr := signed(t, agents, within, fetch, reply, query, cc)
		wantDenied(t, rawCall(t, nc, fetch, body, hdr, reply), "beyond the call it acts within")
	})
	t.Run("delegated: widened to act", func(t *testing.T) {
		cc := agentCC
		cc.Scopes = []string{contract.ScopeRead, contract.ScopeAct}
		reply := nc.NewInbox()
		learn := contract.MemoryLearn.Subject()
		body, hdr := signed(t, agents, within, learn, reply, `{"text":"planted","workspace":"work"}`, cc)
		wantDenied(t, rawCall(t, nc, learn, body, hdr, reply), "beyond the call it acts within")
	})
	t.Run("delegated: on no run", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, agents, within, fetch, reply, query, agentCC)
		hdr.Del(callauth.ParentHeader)
		wantDenied(t, rawCall(t, nc, fetch, body, hdr, reply), callauth.ParentHeader)
	})
	t.Run("a read-only caller may not learn", func(t *testing.T) {
		reply := nc.NewInbox()
		learn := contract.MemoryLearn.Subject()
		body, hdr := signed(t, gw, ctx, learn, reply, `{"text":"planted","workspace":"work"}`, work)
		wantDenied(t, rawCall(t, nc, learn, body, hdr, reply), `needs scope "act"`)
	})
}

// seedWorkspaces learns one note into work and one into home.
func seedWorkspaces(t *testing.T, gw *bus.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, note := range []string{`{"text":"Ravi's badge number is 4471.","workspace":"work"}`, `{"text":"The alarm code, also a badge number, is 9313.","workspace":"home"}`} {
		if _, err := gw.CallTool(ctx, contract.MemoryLearn, json.RawMessage(note), contract.CallContext{Source: "mcp:test"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBusTrustDeployed runs the table against memory started as the
// deployment starts it (deploy/nats/auth.conf, keys configured), from a
// client holding the gateway user's password but not the gateway's seed.
func TestBusTrustDeployed(t *testing.T) {
	url, pw := mustStartDeployNATS(t)
	cfgFor := func(user string) config.Config {
		cfg, err := config.Load(t.TempDir(), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		cfg.NATS, cfg.Bus = natsConfig(url, user, pw[user]), busConfig(user)
		return cfg
	}
	mustStartService(t, memorymain.Start, cfgFor("memory"))
	mustStartService(t, searchmain.Start, cfgFor("search"))
	gwNC := mustDialAs(t, natsConfig(url, "gateway", pw["gateway"]))
	seedWorkspaces(t, bus.NewClient(gwNC, bustest.Keys().GatewaySigner()))
	trustCases(t, gwNC, bustest.Keys().GatewaySigner(), bustest.Keys().AgentsSigner())

	t.Run("the agents user writes its own context", func(t *testing.T) {
		nc := mustDialAs(t, natsConfig(url, "agents", pw["agents"]))
		body, _ := contract.EncodeRequest(json.RawMessage(`{"query":"badge number"}`), contract.CallContext{Source: "agent:x", Agent: "x", Depth: 1})
		wantDenied(t, rawCall(t, nc, contract.MemoryFetch.Subject(), body, nil, ""), "no Openhuman-Auth header")
	})
	for _, user := range []string{"gateway", "agents", "search"} {
		t.Run(user+" may not pose as memory", func(t *testing.T) {
			nc := mustDialAs(t, natsConfig(url, user, pw[user]))
			if _, err := nc.QueueSubscribe("openhuman.memory.>", contract.QueueGroup, func(*nats.Msg) {}); err != nil {
				t.Fatal(err)
			}
			if err := bus.Refused(nc); err == nil || !strings.Contains(err.Error(), `"openhuman.memory.>"`) {
				t.Errorf("%s serving memory's subjects: %v, want a refusal", user, err)
			}
		})
		t.Run(user+" may not write memory's stream", func(t *testing.T) {
			nc := mustDialAs(t, natsConfig(url, user, pw[user]))
			if err := nc.Publish("openhuman_memory.item.forged", []byte(`{"op":"put"}`)); err != nil {
				t.Fatal(err)
			}
			if err := bus.Refused(nc); err == nil || !strings.Contains(err.Error(), "openhuman_memory.item.forged") {
				t.Errorf("%s publishing into memory's stream: %v, want a refusal", user, err)
			}
		})
	}
	for _, c := range []struct{ user, inbox string }{{"agents", "_INBOX_gateway.>"}, {"agents", "_INBOX.>"}, {"search", "_INBOX_agents.>"}, {"gateway", "_INBOX_agents.>"}} {
		t.Run(c.user+" may not read "+c.inbox, func(t *testing.T) {
			nc := mustDialAs(t, natsConfig(url, c.user, pw[c.user]))
			if _, err := nc.Subscribe(c.inbox, func(*nats.Msg) {}); err != nil {
				t.Fatal(err)
			}
			if err := bus.Refused(nc); err == nil || !strings.Contains(err.Error(), c.inbox) {
				t.Errorf("%s subscribing to %s: %v, want a refusal", c.user, c.inbox, err)
			}
		})
	}
}

// TestBusTrustEmbedded runs the table against the embedded system, from an
// in-process client (nothing else can reach its server): its keys are made
// at start and held in the process, so a client has only what it captures.
func TestBusTrustEmbedded(t *testing.T) {
	cfg, err := config.Load(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	sys, err := embedded.Start(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	if url := embedded.ListenURL(sys); url != "" {
		t.Fatalf("the embedded NATS server listens at %s", url)
	}
	gw := bus.NewClient(sys.NC, sys.Signer)
	seedWorkspaces(t, gw)
	nc, err := embedded.Dial(sys, "intruder")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)

	// What the intruder can capture: the gateway's own requests.
	captured := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe(contract.MemoryFetch.Subject(), captured)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	work := contract.CallContext{Source: "http:laptop", Token: "laptop", Scopes: []string{"read"}, Workspaces: []string{"work"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := gw.CallTool(ctx, contract.MemoryFetch, json.RawMessage(`{"query":"badge number"}`), work); err != nil {
		t.Fatal(err)
	}
	var msg *nats.Msg
	select {
	case msg = <-captured:
	case <-time.After(5 * time.Second):
		t.Fatal("the gateway's fetch was not seen on the embedded bus")
	}
	_ = sub.Unsubscribe()
	t.Run("a captured request replayed", func(t *testing.T) {
		wantDenied(t, rawCall(t, nc, msg.Subject, msg.Data, msg.Header, msg.Reply), "replay")
	})
	t.Run("a captured request with its answer sent to the intruder", func(t *testing.T) {
		wantDenied(t, rawCall(t, nc, msg.Subject, msg.Data, msg.Header, ""), "does not match")
	})
	t.Run("a captured request widened", func(t *testing.T) {
		wide := strings.Replace(string(msg.Data), `,"workspaces":["work"]`, "", 1)
		if wide == string(msg.Data) {
			t.Fatalf("no workspaces in %s", msg.Data)
		}
		wantDenied(t, rawCall(t, nc, msg.Subject, []byte(wide), msg.Header, ""), "does not match")
	})
	t.Run("a captured request moved to forget", func(t *testing.T) {
		wantDenied(t, rawCall(t, nc, contract.MemoryForget.Subject(), msg.Data, msg.Header, msg.Reply), "does not match")
	})
	t.Run("a context written by hand", func(t *testing.T) {
		body, _ := contract.EncodeRequest(json.RawMessage(`{"query":"badge number"}`), contract.CallContext{})
		wantDenied(t, rawCall(t, nc, contract.MemoryFetch.Subject(), body, nil, ""), "no Openhuman-Auth header")
	})
	t.Run("signed by the test's own keys", func(t *testing.T) {
		reply := nc.NewInbox()
		body, hdr := signed(t, bustest.Keys().GatewaySigner(), context.Background(), contract.MemoryFetch.Subject(), reply, `{"query":"x"}`, contract.CallContext{})
		wantDenied(t, rawCall(t, nc, contract.MemoryFetch.Subject(), body, hdr, reply), "does not trust")
	})
}
