package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// jaegerTrace is a trace as Jaeger's query API (/api/traces/<id>) gives it.
type jaegerTrace struct {
	Data []struct {
		Spans []struct {
			SpanID        string `json:"spanID"`
			OperationName string `json:"operationName"`
			ProcessID     string `json:"processID"`
			References    []struct {
				RefType string `json:"refType"`
				SpanID  string `json:"spanID"`
			} `json:"references"`
		} `json:"spans"`
		Processes map[string]struct {
			ServiceName string `json:"serviceName"`
		} `json:"processes"`
	} `json:"data"`
}

// oneTraceInJaeger: a memory.fetch whose _meta carries a traceparent is
// found in Jaeger as one trace holding the gateway's span, a child of the
// caller's, and the span of the memory replica that served it.
func (s *stack) oneTraceInJaeger(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := s.session(t, ctx)
	traceID, parent := randomHex(16), randomHex(8)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory.fetch", Arguments: map[string]any{"query": "traced fetch"},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("memory.fetch: %v %+v", err, res)
	}
	// Spans leave each binary in batches, every 5 seconds.
	deadline := time.Now().Add(45 * time.Second)
	var missing string
	for time.Now().Before(deadline) {
		if missing = checkTrace(s.jaeger(t, "/api/traces/"+traceID), parent); missing == "" {
			return
		}
		time.Sleep(2 * time.Second)
	}
	t.Fatalf("trace %s in Jaeger: %s", traceID, missing)
}

// checkTrace says what the trace lacks, "" when it holds the gateway's
// span under parent and a memory replica's span under the gateway's bus
// hop.
func checkTrace(raw []byte, parent string) string {
	var tr jaegerTrace
	if json.Unmarshal(raw, &tr) != nil || len(tr.Data) != 1 {
		return "not found yet"
	}
	d := tr.Data[0]
	byID := map[string]string{}
	for _, sp := range d.Spans {
		byID[sp.SpanID] = sp.OperationName
	}
	var gateway, memory bool
	for _, sp := range d.Spans {
		service := d.Processes[sp.ProcessID].ServiceName
		var up string
		for _, r := range sp.References {
			if r.RefType == "CHILD_OF" {
				up = r.SpanID
			}
		}
		switch {
		case sp.OperationName == "tools/call memory.fetch" && service == "openhuman-core" && up == parent:
			gateway = true
		case sp.OperationName == "serve openhuman.memory.fetch" && service == "openhuman-memory" &&
			byID[up] == "bus openhuman.memory.fetch":
			memory = true
		}
	}
	switch {
	case !gateway:
		return "no openhuman-core span tools/call memory.fetch under the caller's span"
	case !memory:
		return "no openhuman-memory span serve openhuman.memory.fetch under the gateway's bus span"
	}
	return ""
}

// jaeger GETs path of Jaeger's query API from the prometheus container,
// whose busybox wget is on the stack's internal network.
func (s *stack) jaeger(t *testing.T, path string) []byte {
	t.Helper()
	out, _ := exec.Command("../scripts/compose-local.sh", "compose", "exec", "-T", "prometheus",
		"wget", "-q", "-O", "-", "http://jaeger:16686"+path).Output()
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
