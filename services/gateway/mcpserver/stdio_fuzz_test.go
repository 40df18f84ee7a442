package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// FuzzStdio feeds arbitrary bytes to a stdio session over the real
// system: the session must end at EOF (no panic, no hang), and every
// complete line holding a request must have been answered with its id.
func FuzzStdio(f *testing.F) {
	s := New(gatewaytest.Start(f, nil, gateway.Options{Timeout: 10 * time.Second}), &Options{Version: "test", Instructions: gateway.Instructions})
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":"t","method":"tools/list"}` + "\n",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory.list","arguments":{}}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]` + "\n",
		"not json\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\r\n{\"id\":{},\"method\":1}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- s.ServeStdio(context.Background(), bytes.NewReader(in), &out) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("ServeStdio: %v", err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("the session did not end at EOF: %q", in)
		}
		answered := map[string]bool{}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var resp struct{ ID json.RawMessage }
			if json.Unmarshal(sc.Bytes(), &resp) == nil {
				answered[compact(resp.ID)] = true
			}
		}
		for _, l := range bytes.Split(in, []byte("\n")) {
			l = bytes.TrimSpace(l)
			if len(l) == 0 || l[0] != '{' || !json.Valid(l) {
				continue
			}
			if m, _ := jsonrpc.Decode(l); m != nil && !m.Notification() && !answered[compact(m.ID)] {
				t.Fatalf("request %s was not answered; out:\n%s", l, out.Bytes())
			}
		}
	})
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
