package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// shifting is the real gateway whose agents service can be taken away,
// as when its process stops.
type shifting struct {
	*gateway.Gateway
	noAgents atomic.Bool
}

func (s *shifting) Tools(ctx context.Context) []contract.Tool {
	var out []contract.Tool
	for _, t := range s.Gateway.Tools(ctx) {
		if !s.noAgents.Load() || t.Service != contract.ServiceAgents {
			out = append(out, t)
		}
	}
	return out
}

const listenLine = `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

func decode(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return m
}

// subscription checks a message belongs to subscription sub-1.
func subscription(t *testing.T, m map[string]any, method string) map[string]any {
	t.Helper()
	params, _ := m["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if m["method"] != method || meta[MetaSubscriptionID] != "sub-1" {
		t.Fatalf("want %s of sub-1: %v", method, m)
	}
	return params
}

// TestListenOverStdio: subscriptions/listen is acknowledged with what is
// honoured (tools only), a service going and coming is told as
// tools/list_changed each time, other requests are answered meanwhile,
// and at EOF the subscription ends with its completed result.
func TestListenOverStdio(t *testing.T) {
	gw := &shifting{Gateway: gatewaytest.Start(t, nil, gateway.Options{Timeout: 10 * time.Second})}
	s := New(gw, &Options{Version: "test", ListenPoll: 20 * time.Millisecond})
	in, lines, done := stdioSession(t, s)
	// The services register as they start: the test begins once the
	// agents service has.
	for id := 100; ; id++ {
		io.WriteString(in, modern(id, "tools/list", "", "Listener")+"\n")
		if strings.Contains(recv(t, lines), "agent.run_subagent") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	io.WriteString(in, listenLine+"\n")
	ack := subscription(t, decode(t, recv(t, lines)), "notifications/subscriptions/acknowledged")
	if n, _ := json.Marshal(ack["notifications"]); string(n) != `{"toolsListChanged":true}` {
		t.Errorf("acknowledged %s", n)
	}
	io.WriteString(in, modern(2, "tools/list", "", "Listener")+"\n")
	if m := decode(t, recv(t, lines)); m["id"] != float64(2) || !strings.Contains(recvText(m), "agent.run_subagent") {
		t.Fatalf("tools/list beside the subscription: %v", m)
	}
	gw.noAgents.Store(true)
	subscription(t, decode(t, recv(t, lines)), "notifications/tools/list_changed")
	gw.noAgents.Store(false)
	subscription(t, decode(t, recv(t, lines)), "notifications/tools/list_changed")
	in.Close()
	end := decode(t, recv(t, lines))
	res, _ := end["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if end["id"] != "sub-1" || res["resultType"] != "complete" || meta[MetaSubscriptionID] != "sub-1" || meta[MetaServerInfo] == nil {
		t.Fatalf("the end: %v", end)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestListenEnds: a subscription ends after ListenMax; one withdrawn with
// notifications/cancelled gets no answer; the older revisions have no
// subscriptions/listen.
func TestListenEnds(t *testing.T) {
	gw := gatewaytest.Start(t, nil, gateway.Options{Timeout: 10 * time.Second})
	s := New(gw, &Options{Version: "test", ListenPoll: 20 * time.Millisecond, ListenMax: 200 * time.Millisecond})
	in, lines, _ := stdioSession(t, s)
	io.WriteString(in, listenLine+"\n")
	subscription(t, decode(t, recv(t, lines)), "notifications/subscriptions/acknowledged")
	if end := decode(t, recv(t, lines)); end["id"] != "sub-1" || end["result"] == nil {
		t.Fatalf("after ListenMax: %v", end)
	}

	s = New(gw, &Options{Version: "test"})
	in, lines, _ = stdioSession(t, s)
	io.WriteString(in, listenLine+"\n")
	subscription(t, decode(t, recv(t, lines)), "notifications/subscriptions/acknowledged")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub-1"}}`+"\n")
	io.WriteString(in, modern(3, "tools/list", "", "Listener")+"\n")
	if m := decode(t, recv(t, lines)); m["id"] != float64(3) {
		t.Fatalf("after the cancellation: %v", m)
	}
	in.Close()
	if l, ok := <-lines; ok {
		t.Errorf("a withdrawn subscription was answered: %s", l)
	}

	sess := initialized(t, s)
	resp := handle(t, s, sess, `{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`)
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Errorf("listen on 2025-11-25: %v", resp)
	}
}

func recvText(m map[string]any) string {
	b, _ := json.Marshal(m["result"])
	return string(b)
}
