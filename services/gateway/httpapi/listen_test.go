package httpapi_test

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
)

// TestListenHeartbeat: an open subscriptions/listen stream gets a comment
// every Heartbeat, and a listen without text/event-stream in Accept is
// refused as one with nothing to stream on.
func TestListenHeartbeat(t *testing.T) {
	ts := serveWith(t, gatewaytest.Start(t, nil, gateway.Options{}), httpapi.Options{Heartbeat: 50 * time.Millisecond})
	body, headers := modernCall(1, "subscriptions/listen", "", "", "Listener")
	body = strings.Replace(body, `"params":{`, `"params":{"notifications":{"toolsListChanged":true},`, 1)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var seen []string
	for beats := 0; beats < 2 && sc.Scan(); {
		seen = append(seen, sc.Text())
		if sc.Text() == ": heartbeat" {
			beats++
		}
	}
	if len(seen) < 4 || !strings.Contains(seen[1], "notifications/subscriptions/acknowledged") {
		t.Fatalf("stream: %q", seen)
	}

	_, out := post(t, ts.URL+"/mcp", body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", "Accept", "application/json")
	if a := decodeAnswer(t, out); a.Error == nil || !strings.Contains(a.Error.Message, "text/event-stream") {
		t.Errorf("listen without an event stream: %s", out)
	}
}
