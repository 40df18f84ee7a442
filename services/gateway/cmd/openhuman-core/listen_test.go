package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
)

// TestListenOverHTTP: a 2026-07-28 client's subscriptions/listen on
// `serve` is an event stream: acknowledged, then told
// notifications/tools/list_changed when the agents service stops and again
// when it is back, and ended with the request's completed result when
// serve shuts down.
func TestListenOverHTTP(t *testing.T) {
	sys := startListening(t)
	url, serve := sys.url, sys.serve

	events := listen(t, url)
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			return ev
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s", what)
		}
		return nil
	}
	if ev := next("acknowledgment"); ev["method"] != "notifications/subscriptions/acknowledged" || !strings.Contains(jsonText(ev), `"io.modelcontextprotocol/subscriptionId":"tools"`) {
		t.Fatalf("first event %v", ev)
	}
	sys.stopAgents(t)
	if ev := next("change when agents stopped"); ev["method"] != "notifications/tools/list_changed" {
		t.Fatalf("after agents stopped: %v", ev)
	}
	waitOffered(t, url, "agent.run_subagent", false)
	sys.startAgents(t)
	if ev := next("change when agents came back"); ev["method"] != "notifications/tools/list_changed" {
		t.Fatalf("after agents came back: %v", ev)
	}
	_ = serve.Process.Signal(os.Interrupt)
	end := next("the subscription's end")
	if end["id"] != "tools" || !strings.Contains(jsonText(end), `"resultType":"complete"`) || !strings.Contains(jsonText(end), `"io.modelcontextprotocol/subscriptionId":"tools"`) {
		t.Fatalf("at shutdown: %v", end)
	}
	if _, exited := waitExit(serve, 15*time.Second); !exited {
		t.Fatal("serve did not stop with a subscription open")
	}
}

// listening is serve on a bus with memory and agents in processes of
// their own, agents to be stopped and started again.
type listening struct {
	nats          string
	url           string
	agents, serve *exec.Cmd
}

func startListening(t *testing.T) *listening {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	l := &listening{nats: ns.ClientURL()}
	startService(t, "openhuman-memory", t.TempDir(), l.nats, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	l.startAgents(t)
	l.serve = exec.Command(filepath.Join(binDir, "openhuman-core"), "serve", "--addr", "127.0.0.1:0")
	l.serve.Env = testEnv(t.TempDir(), "OPENHUMAN_NATS_URL="+l.nats)
	base, _ := serveURL(t, l.serve)
	l.url = base + "/mcp"
	waitOffered(t, l.url, "agent.run_subagent", true)
	return l
}

func (l *listening) startAgents(t *testing.T) {
	l.agents = startService(t, "openhuman-agents", t.TempDir(), l.nats, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
}

func (l *listening) stopAgents(t *testing.T) {
	_ = l.agents.Process.Signal(os.Interrupt)
	if _, exited := waitExit(l.agents, 15*time.Second); !exited {
		t.Fatal("the agents service did not stop")
	}
}

// TestOfficialSDKClientListen: the official Go SDK's client, given a
// ToolListChangedHandler, opens subscriptions/listen itself on
// 2026-07-28, and its handler is called when the agents service stops.
func TestOfficialSDKClientListen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sys := startListening(t)
	changed := make(chan struct{}, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK Listener", Version: "1.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: sys.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" || !cs.InitializeResult().Capabilities.Tools.ListChanged {
		t.Fatalf("negotiated %s, capabilities %+v", v, cs.InitializeResult().Capabilities.Tools)
	}
	sys.stopAgents(t)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("the handler was not called when the agents service stopped")
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if strings.HasPrefix(tl.Name, "agent.") {
			t.Errorf("%s is still listed", tl.Name)
		}
	}
}

// listen opens subscriptions/listen for toolsListChanged and returns its
// events' messages; the channel closes with the stream.
func listen(t *testing.T, url string) <-chan map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"tools","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"Listener","version":"1"}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					out <- m
				}
			}
		}
	}()
	return out
}

// waitOffered waits until tools/list offers tool, or no longer does.
func waitOffered(t *testing.T, url, tool string, offered bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Contains(statelessPost(t, url, 0, "tools/list", "", nil, "Wait"), `"`+tool+`"`) != offered {
		if time.Now().After(deadline) {
			t.Fatalf("%s offered is not %v", tool, offered)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
