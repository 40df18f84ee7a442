package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
)

// startReplicas runs memory and agents once on a NATS server, and two
// gateways (`serve`) beside each other on it, as a deployment behind a
// load balancer would; it returns the gateways' /mcp URLs once both offer
// memory.learn.
func startReplicas(t *testing.T) [2]string {
	t.Helper()
	return startReplicasWith(t)
}

// startReplicasWith is startReplicas with more environment for the agents
// service and both gateways.
func startReplicasWith(t *testing.T, extraEnv ...string) [2]string {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nats := "OPENHUMAN_NATS_URL=" + ns.ClientURL()
	startService(t, "openhuman-memory", t.TempDir(), ns.ClientURL(), "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	startService(t, "openhuman-agents", t.TempDir(), ns.ClientURL(), append([]string{"OPENHUMAN_METRICS_ADDR=127.0.0.1:0"}, extraEnv...)...)
	var urls [2]string
	for i := range urls {
		urls[i] = startServe(t, t.TempDir(), append([]string{nats}, extraEnv...)...) + "/mcp"
	}
	for _, u := range urls {
		deadline := time.Now().Add(15 * time.Second)
		for !strings.Contains(statelessPost(t, u, 0, "tools/list", "", nil, "Wait"), `"memory.learn"`) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never offered memory.learn", u)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return urls
}

// statelessPost sends one 2026-07-28 request, with the headers that
// revision requires, and returns the answer's body.
func statelessPost(t *testing.T, url string, id int, method, name string, args map[string]any, client string) string {
	t.Helper()
	params := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": client, "version": "1"},
	}}
	if name != "" {
		params["name"], params["arguments"] = name, args
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("%s %s: %d, session %q: %s", method, name, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), out)
	}
	return string(out)
}

// TestStatelessReplicas: with no session between requests, either gateway
// answers any request, and what one stored the other finds.
func TestStatelessReplicas(t *testing.T) {
	urls := startReplicas(t)
	at := func(i int) string { return urls[i%2] }
	mustContain(t, statelessPost(t, at(0), 1, "server/discover", "", nil, "Replica Client"), `"supportedVersions":["2026-07-28"`)
	mustContain(t, statelessPost(t, at(1), 2, "tools/list", "", nil, "Replica Client"), `"agent.list_subagents"`)
	mustContain(t, statelessPost(t, at(0), 3, "tools/call", "memory.learn",
		map[string]any{"text": "Any replica answers a stateless request: zqreplica.", "kind": "fact"}, "Replica Client"), `"resultType":"complete"`)
	var fetched struct {
		Result struct {
			StructuredContent struct {
				Hits []struct {
					Text string         `json:"text"`
					Meta map[string]any `json:"meta"`
				} `json:"hits"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	out := statelessPost(t, at(1), 4, "tools/call", "memory.fetch", map[string]any{"query": "zqreplica"}, "Another Client")
	if err := json.Unmarshal([]byte(out), &fetched); err != nil || len(fetched.Result.StructuredContent.Hits) != 1 {
		t.Fatalf("fetch on the other gateway: %v %s", err, out)
	}
	if hit := fetched.Result.StructuredContent.Hits[0]; hit.Meta["provenance"] != "mcp:replica-client" || !strings.Contains(hit.Text, "zqreplica") {
		t.Errorf("hit = %+v", hit)
	}
	for i := 5; i < 9; i++ {
		out := statelessPost(t, at(i), i, "tools/call", "memory.recall", map[string]any{"question": fmt.Sprintf("Which replica answers? (%d)", i)}, "Replica Client")
		mustContain(t, out, "zqreplica")
	}
	mustContain(t, statelessPost(t, at(1), 9, "tools/call", "agent.list_subagents", map[string]any{}, "Replica Client"), `"definitions"`)
}
