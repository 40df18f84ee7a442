package embedded_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	busembedded "github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/agents/agentsmain"
	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

// deployConf is the self-hosted deployment's NATS server configuration.
var deployConf = filepath.Join("..", "..", "..", "deploy", "nats", "nats.conf")

var users = []string{"gateway", "memory", "search", "agents"}

// mustStartDeployNATS starts nats-server from deploy/nats/nats.conf, on a
// free port, with a fresh password for each user in its environment as
// the deployment would set them, and returns its URL and the passwords.
func mustStartDeployNATS(t *testing.T) (string, map[string]string) {
	t.Helper()
	passwords := map[string]string{}
	for _, u := range users {
		passwords[u] = rand.Text()
		t.Setenv("NATS_"+strings.ToUpper(u)+"_PASSWORD", passwords[u])
	}
	opts, err := server.ProcessConfigFile(deployConf)
	if err != nil {
		t.Fatal(err)
	}
	if opts.MaxPayload != 8<<20 {
		t.Errorf("max_payload %d, want 8 MiB as the embedded server has", opts.MaxPayload)
	}
	opts.Host, opts.Port, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, true, true
	if !opts.JetStream {
		t.Error("deploy/nats/nats.conf does not enable JetStream, which memory replication needs")
	}
	opts.StoreDir = t.TempDir()
	srv, err := busembedded.StartServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv.ClientURL(), passwords
}

// busConfig is the bus keys' configuration of user's binary.
func busConfig(user string) config.Bus {
	switch user {
	case "gateway":
		return bustest.Keys().Gateway()
	case "agents":
		return bustest.Keys().Agents()
	}
	return bustest.Keys().Service()
}

func natsConfig(url, user, password string) config.NATS {
	return config.NATS{URL: url, User: user, Password: password}
}

// inboxPrefix is the reply prefix each user's binary takes, the only one
// deploy/nats/auth.conf lets it read.
var inboxPrefix = map[string]string{"gateway": embedded.InboxPrefix, "agents": agentsmain.InboxPrefix, "memory": jetstream.InboxPrefix}

func mustDialAs(t *testing.T, cfg config.NATS) *nats.Conn {
	t.Helper()
	var opts []nats.Option
	if p := inboxPrefix[cfg.User]; p != "" {
		opts = append(opts, nats.CustomInboxPrefix(p))
	}
	nc, err := bus.Connect(cfg, "test-"+cfg.User, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// mustStartService runs a service as its binary would: on a connection of
// its own user, checked for refused subscriptions.
func mustStartService(t *testing.T, start func(*nats.Conn, config.Config, *slog.Logger) (io.Closer, error), cfg config.Config) *nats.Conn {
	t.Helper()
	nc := mustDialAs(t, cfg.NATS)
	closer, err := start(nc, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	if err := bus.Refused(nc); err != nil {
		t.Fatalf("the deployment refuses the %s service: %v", cfg.NATS.User, err)
	}
	return nc
}

// librarian recalls the question from memory, then answers with the
// first snippet memory returned.
func librarian(_ int, req llm.Request) llmtest.Reply {
	result := llmtest.LastToolResult(req)
	if result == "" {
		args, _ := json.Marshal(map[string]string{"question": req.Messages[1].Content})
		return llmtest.Call("memory_recall", string(args))
	}
	var recalled struct {
		Citations []struct {
			Snippet string `json:"snippet"`
		} `json:"citations"`
	}
	if json.Unmarshal([]byte(result), &recalled) != nil || len(recalled.Citations) == 0 {
		return llmtest.Text("nothing recalled: " + result)
	}
	return llmtest.Text(recalled.Citations[0].Snippet)
}

// TestDeployNATSPermissions runs the real services and the gateway, each
// as its own user of deploy/nats/auth.conf, and checks that the tools
// work through it and that what it forbids is refused.
func TestDeployNATSPermissions(t *testing.T) {
	url, pw := mustStartDeployNATS(t)
	model := llmtest.New(t, librarian)
	cfgFor := func(user string) config.Config {
		cfg, err := config.Load(t.TempDir(), func(k string) string {
			return map[string]string{"OPENHUMAN_LLM_BASE_URL": model.URL, "OPENHUMAN_LLM_MODEL": "toy"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.NATS = natsConfig(url, user, pw[user])
		cfg.Bus = busConfig(user)
		return cfg
	}
	memCfg := cfgFor("memory")
	memCfg.LLM = config.LLM{} // recall answers extractively: the model plays only the librarian
	memNC := mustStartService(t, memorymain.Start, memCfg)
	mustStartService(t, searchmain.Start, cfgFor("search"))
	agentsNC := mustStartService(t, agentsmain.Start, cfgFor("agents"))

	sys, err := embedded.Start(cfgFor("gateway"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	gw := bus.NewClient(sys.NC, sys.Signer)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("the gateway calls every service", func(t *testing.T) {
		served := gw.Served(ctx, contract.Services()...)
		// Search runs without providers here, so it serves its health only.
		for _, subject := range []string{contract.MemoryLearn.Subject(), contract.Subject(contract.ServiceSearch, contract.MethodSearchHealth),
			contract.AgentRunSubagent.Subject(), contract.ApprovalDecide.Subject()} {
			if !served[subject] {
				t.Errorf("the gateway does not see %s served (discovery over $SRV.INFO)", subject)
			}
		}
		for _, s := range contract.Services() {
			if err := gw.Ping(ctx, s); err != nil {
				t.Errorf("ping %s: %v", s, err)
			}
		}
		raw, err := gw.CallTool(ctx, contract.MemoryLearn, json.RawMessage(`{"text":"Maya drinks her coffee black, no sugar."}`), contract.CallContext{Source: "mcp:test"})
		if err != nil {
			t.Fatalf("memory.learn: %v", err)
		}
		var learned struct{ ID string }
		if json.Unmarshal(raw, &learned) != nil || learned.ID == "" {
			t.Fatalf("memory.learn answered %s", raw)
		}
		raw, err = gw.CallTool(ctx, contract.MemoryFetch, json.RawMessage(`{"query":"coffee"}`), contract.CallContext{})
		if err != nil || !strings.Contains(string(raw), learned.ID) {
			t.Fatalf("memory.fetch: %v %.300s", err, raw)
		}
		if _, err := gw.Call(ctx, contract.ServiceAgents, contract.ApprovalDecide.Method, map[string]any{"id": "none", "approve": true}, contract.CallContext{}); contract.ErrorCode(err) != contract.CodeNotFound {
			t.Errorf("approval_decide from the gateway: %v, want NOT_FOUND from the agents service", err)
		}
	})

	t.Run("a sub-agent calls memory as the agents user", func(t *testing.T) {
		raw, err := gw.CallTool(ctx, contract.AgentRunSubagent, json.RawMessage(`{"agent_id":"librarian","prompt":"How does Maya take her coffee?"}`), contract.CallContext{})
		if err != nil {
			t.Fatalf("agent.run_subagent: %v", err)
		}
		var run struct {
			Response  string
			ToolCalls []struct {
				Tool string
				OK   bool
			} `json:"tool_calls"`
		}
		if json.Unmarshal(raw, &run) != nil || !strings.Contains(run.Response, "coffee black") ||
			len(run.ToolCalls) != 1 || run.ToolCalls[0].Tool != "memory.recall" || !run.ToolCalls[0].OK {
			t.Fatalf("run: %.500s", raw)
		}
	})

	t.Run("agents may not decide approvals", func(t *testing.T) {
		// Even with the gateway's key: NATS itself refuses the publish.
		_, err := bus.NewClient(agentsNC, bustest.Keys().GatewaySigner()).Call(ctx, contract.ServiceAgents, contract.ApprovalDecide.Method, map[string]any{"id": "x", "approve": true}, contract.CallContext{})
		if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "openhuman.agents.approval_decide") {
			t.Errorf("approval_decide from agents: %v, want DENIED", err)
		}
	})

	t.Run("memory may not call search", func(t *testing.T) {
		_, err := bus.NewClient(memNC, bustest.Keys().GatewaySigner()).CallTool(ctx, contract.WebSearch, json.RawMessage(`{"query":"x"}`), contract.CallContext{})
		if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "openhuman.search.web_search") {
			t.Errorf("web_search from memory: %v, want DENIED", err)
		}
	})

	t.Run("memory may not subscribe to agents", func(t *testing.T) {
		nc := mustDialAs(t, natsConfig(url, "memory", pw["memory"]))
		if _, err := nc.Subscribe("openhuman.agents.>", func(*nats.Msg) {}); err != nil {
			t.Fatal(err)
		}
		err := bus.Refused(nc)
		if err == nil || !strings.Contains(err.Error(), `subscription to "openhuman.agents.>"`) {
			t.Errorf("subscribing to openhuman.agents.> as memory: %v, want a refusal", err)
		}
	})

	t.Run("search may not take memory's requests", func(t *testing.T) {
		nc := mustDialAs(t, natsConfig(url, "search", pw["search"]))
		stolen := make(chan *nats.Msg, 10)
		if _, err := nc.ChanQueueSubscribe("openhuman.memory.>", contract.QueueGroup, stolen); err != nil {
			t.Fatal(err)
		}
		if err := bus.Refused(nc); err == nil || !strings.Contains(err.Error(), `subscription to "openhuman.memory.>"`) {
			t.Errorf("subscribing to openhuman.memory.> as search: %v, want a refusal", err)
		}
		// A stolen request is never answered: each call has its own
		// deadline so that a theft fails the test without stalling it.
		for i := range 5 {
			callCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
			_, err := gw.CallTool(callCtx, contract.MemoryFetch, json.RawMessage(`{"query":"coffee"}`), contract.CallContext{})
			cancel()
			if err != nil {
				t.Fatalf("fetch %d: %v", i, err)
			}
		}
		if len(stolen) > 0 {
			t.Errorf("search received %d of memory's requests", len(stolen))
		}
	})

	t.Run("search may not publish requests", func(t *testing.T) {
		nc := mustDialAs(t, natsConfig(url, "search", pw["search"]))
		_, err := bus.NewClient(nc, bustest.Keys().GatewaySigner()).CallTool(ctx, contract.MemoryFetch, json.RawMessage(`{"query":"coffee"}`), contract.CallContext{})
		if contract.ErrorCode(err) != contract.CodeDenied {
			t.Errorf("memory.fetch from search: %v, want DENIED", err)
		}
	})

	t.Run("no anonymous connection", func(t *testing.T) {
		_, err := bus.Connect(config.NATS{URL: url}, "anonymous", nil)
		if err == nil || !strings.Contains(err.Error(), "requires credentials") {
			t.Errorf("anonymous: %v, want a refusal", err)
		}
	})

	t.Run("a wrong password is refused, clearly", func(t *testing.T) {
		cfg := cfgFor("gateway")
		cfg.NATS.Password = "not-" + pw["gateway"]
		_, err := embedded.Start(cfg, slog.New(slog.DiscardHandler))
		want := "NATS at " + url + " refused the credentials: authorization violation; check nats.user/nats.password"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("wrong password: %v, want %q", err, want)
		}
		if err != nil && strings.Contains(err.Error(), cfg.NATS.Password) {
			t.Errorf("the error shows the password: %v", err)
		}
		// One user's password is not another's.
		if _, err := bus.Connect(natsConfig(url, "gateway", pw["memory"]), "t", nil); err == nil {
			t.Error("the gateway user connected with memory's password")
		}
	})
}

// Without its password variables, the deployment's server does not start:
// it would otherwise run with users nobody can log in as, or worse.
func TestDeployNATSNeedsPasswords(t *testing.T) {
	for _, u := range users[1:] {
		t.Setenv("NATS_"+strings.ToUpper(u)+"_PASSWORD", "x")
	}
	t.Setenv("NATS_GATEWAY_PASSWORD", "")
	os.Unsetenv("NATS_GATEWAY_PASSWORD")
	_, err := server.ProcessConfigFile(deployConf)
	if err == nil || !strings.Contains(err.Error(), "NATS_GATEWAY_PASSWORD") {
		t.Errorf("config without NATS_GATEWAY_PASSWORD: %v, want an error naming it", err)
	}
}

// TestDeployNATSPermissionsReplicated runs two memory replicas with
// replication on, as the memory user of deploy/nats/auth.conf, on the
// deployment's JetStream: writes, reads with min_seq and forget work
// within its permissions, and the gateway may not write into memory's
// stream.
func TestDeployNATSPermissionsReplicated(t *testing.T) {
	url, pw := mustStartDeployNATS(t)
	memCfg := func() config.Config {
		cfg, err := config.Load(t.TempDir(), func(k string) string {
			return map[string]string{"OPENHUMAN_NATS_URL": url, "OPENHUMAN_MEMORY_REPLICATED": "true",
				"OPENHUMAN_MEMORY_STREAM_REPLICAS": "1", "OPENHUMAN_MEMORY_ID_KEY": "00112233445566778899aabbccddeeff"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.NATS = natsConfig(url, "memory", pw["memory"])
		cfg.Bus = busConfig("memory")
		return cfg
	}
	mustStartService(t, memorymain.Start, memCfg())
	mustStartService(t, memorymain.Start, memCfg())
	gwNC := mustDialAs(t, natsConfig(url, "gateway", pw["gateway"]))
	gw := bus.NewClient(gwNC, bustest.Keys().GatewaySigner())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, err := gw.CallTool(ctx, contract.MemoryLearn, json.RawMessage(`{"text":"Ravi's badge number is 4471."}`), contract.CallContext{Source: "mcp:test"})
	if err != nil {
		t.Fatalf("memory.learn: %v", err)
	}
	var learned struct {
		ID  string
		Seq uint64
	}
	if json.Unmarshal(raw, &learned) != nil || learned.Seq == 0 {
		t.Fatalf("memory.learn answered %s, want a seq", raw)
	}
	for i := range 10 { // either replica may answer
		raw, err = gw.CallTool(ctx, contract.MemoryFetch, json.RawMessage(`{"query":"badge"}`), contract.CallContext{MinSeq: learned.Seq})
		if err != nil || !strings.Contains(string(raw), learned.ID) {
			t.Fatalf("memory.fetch %d at min_seq %d: %v %.300s", i, learned.Seq, err, raw)
		}
	}
	args, _ := json.Marshal(map[string]any{"ids": []string{learned.ID}})
	if raw, err = gw.CallTool(ctx, contract.MemoryForget, args, contract.CallContext{Source: "mcp:test"}); err != nil || !strings.Contains(string(raw), `"forgotten":1`) {
		t.Fatalf("memory.forget: %v %s", err, raw)
	}
	// A snapshot goes up and comes down within memory's permissions.
	jnc, err := bus.Connect(natsConfig(url, "memory", pw["memory"]), "test-journal", nil, nats.CustomInboxPrefix(jetstream.InboxPrefix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jnc.Close)
	journal, err := jetstream.Open(ctx, jnc, jetstream.Options{Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := sqlite.New(filepath.Join(t.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rs := jetstream.NewStore(journal, st, 0)
	if err := journal.NewFollower("permissions-test", rs, jetstream.FollowOptions{}).Snapshot(ctx); err != nil {
		t.Fatalf("uploading a snapshot as memory: %v", err)
	}
	if _, ok, err := journal.Restore(ctx, filepath.Join(t.TempDir(), "restored.db")); err != nil || !ok {
		t.Fatalf("restoring a snapshot as memory: %v %v", ok, err)
	}
	if err := bus.Refused(jnc); err != nil {
		t.Fatalf("memory's JetStream connection was refused: %v", err)
	}
	// allow_responses lets memory publish to whatever reply subject a
	// request names, and memory may purge its own stream: a caller naming
	// the purge API as its reply must not get memory to call it. A read
	// ahead of the stream is held (up to 5 s), and a held call is
	// heartbeated with empty messages, an empty purge request each.
	js, err := jnc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	before, err := js.StreamInfo("OPENHUMAN_MEMORY")
	if err != nil || before.State.Msgs == 0 {
		t.Fatalf("stream: %v %+v", err, before)
	}
	for range 4 { // both replicas, whichever the queue group picks
		err := gwNC.PublishMsg(&nats.Msg{Subject: contract.MemoryFetch.Subject(), Reply: "$JS.API.STREAM.PURGE.OPENHUMAN_MEMORY",
			Header: nats.Header{bus.HeartbeatHeader: {"ask"}}, Data: []byte(`{"params":{"query":"badge"},"ctx":{"min_seq":999999999}}`)})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := gwNC.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // heartbeats go every 500 ms
	after, err := js.StreamInfo("OPENHUMAN_MEMORY")
	if err != nil {
		t.Fatal(err)
	}
	if after.State.Msgs != before.State.Msgs {
		t.Errorf("stream after requests replying to its purge API: %d messages, want %d", after.State.Msgs, before.State.Msgs)
	}
	if err := gwNC.Publish("openhuman_memory.item.forged", []byte(`{"op":"put"}`)); err != nil {
		t.Fatal(err)
	}
	if err := bus.Refused(gwNC); err == nil || !strings.Contains(err.Error(), "openhuman_memory.item.forged") {
		t.Errorf("publishing into memory's stream as the gateway: %v, want a refusal", err)
	}
}
