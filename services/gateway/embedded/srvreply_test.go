package embedded_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/jetstream"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

// deploy/nats/auth.conf gives each service allow_responses, which lets it
// publish to the reply subject of any request it receives, whatever that
// subject is. The services' endpoints answer only inboxes; the $SRV
// subjects micro serves for them must too. Otherwise a client holding
// the gateway's or the agents' NATS password, and no seed, has memory or
// search write into memory's stream ("only memory writes its stream"),
// here on its forget subject, the newest message of which makes every
// older snapshot unusable (Journal.Restore).
func TestDeploySRVRepliesStayInInboxes(t *testing.T) {
	url, pw := mustStartDeployNATS(t)
	cfgFor := func(user string, env map[string]string) config.Config {
		cfg, err := config.Load(t.TempDir(), func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		cfg.NATS, cfg.Bus = natsConfig(url, user, pw[user]), busConfig(user)
		return cfg
	}
	mustStartService(t, memorymain.Start, cfgFor("memory", map[string]string{"OPENHUMAN_NATS_URL": url,
		"OPENHUMAN_MEMORY_REPLICATED": "true", "OPENHUMAN_MEMORY_STREAM_REPLICAS": "1",
		"OPENHUMAN_MEMORY_ID_KEY": "00112233445566778899aabbccddeeff"}))
	mustStartService(t, searchmain.Start, cfgFor("search", nil))
	gwNC := mustDialAs(t, natsConfig(url, "gateway", pw["gateway"]))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gw := bus.NewClient(gwNC, bustest.Keys().GatewaySigner())
	if _, err := gw.CallTool(ctx, contract.MemoryLearn, json.RawMessage(`{"text":"Ravi's badge number is 4471."}`), contract.CallContext{Source: "mcp:test"}); err != nil {
		t.Fatal(err)
	}

	jnc, err := bus.Connect(natsConfig(url, "memory", pw["memory"]), "test-journal", nil, nats.CustomInboxPrefix(jetstream.InboxPrefix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jnc.Close)
	js, err := jnc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	// A snapshot, as a replica leaves one, for a new replica to start from.
	{
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
		f := journal.NewFollower("srv-test", rs, jetstream.FollowOptions{})
		fctx, stop := context.WithCancel(ctx)
		t.Cleanup(stop)
		ran := make(chan struct{})
		go func() { defer close(ran); _ = f.Run(fctx) }()
		select {
		case <-f.CaughtUp():
		case <-ctx.Done():
			t.Fatal("the follower did not catch up")
		}
		stop() // a follower snapshots what it applied, not while applying
		<-ran
		if err := f.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := journal.Restore(ctx, filepath.Join(t.TempDir(), "restored.db")); err != nil || !ok {
			t.Fatalf("restoring the snapshot before: %v %v", ok, err)
		}
	}
	before, err := js.StreamInfo(jetstream.Stream)
	if err != nil {
		t.Fatal(err)
	}

	forget := jetstream.Prefix + ".forget"
	for _, c := range []struct{ user, subject string }{
		{"gateway", "$SRV.PING.memory"}, {"gateway", "$SRV.STATS.search"}, {"agents", "$SRV.INFO.memory"}, {"agents", "$SRV.PING.search"},
	} {
		nc := mustDialAs(t, natsConfig(url, c.user, pw[c.user]))
		if err := nc.PublishRequest(c.subject, forget, nil); err != nil {
			t.Fatal(err)
		}
		// Answered properly afterwards: micro answers a subject's requests
		// in order, so by then the first was answered too.
		if _, err := nc.Request(c.subject, nil, 10*time.Second); err != nil {
			t.Fatalf("%s as %s: %v", c.subject, c.user, err)
		}
	}
	time.Sleep(300 * time.Millisecond) // the stream stores asynchronously to the publisher
	after, err := js.StreamInfo(jetstream.Stream)
	if err != nil {
		t.Fatal(err)
	}
	if after.State.Msgs != before.State.Msgs {
		last, _ := js.GetLastMsg(jetstream.Stream, forget)
		var planted []byte
		if last != nil {
			planted = last.Data
		}
		t.Errorf("memory's stream went from %d to %d messages after $SRV requests from the gateway and agents users replying into it; on %s: %.200s",
			before.State.Msgs, after.State.Msgs, forget, planted)
	}
	// A snapshot taken before is of no use any more.
	journal, err := jetstream.Open(ctx, jnc, jetstream.Options{Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := journal.Restore(ctx, filepath.Join(t.TempDir(), "restored.db")); err != nil || !ok {
		t.Errorf("restoring memory's snapshot after the $SRV replies: usable %v, %v", ok, err)
	}
}
