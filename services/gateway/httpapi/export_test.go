package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// TestRPCExportIsScoped: openhuman.memory_export over /rpc pages through
// what the token may see, oldest first: a token limited to a workspace
// gets every item of it and nothing else, and a cursor of another
// token's export is refused rather than read through.
func TestRPCExportIsScoped(t *testing.T) {
	const allToken, workToken = "oh_all-for-the-export-test", "oh_work-for-the-export-test"
	home := t.TempDir()
	file := fmt.Sprintf("[[auth.tokens]]\nname = \"all\"\nsha256 = %q\nscopes = [\"read\"]\n\n[[auth.tokens]]\nname = \"work\"\nsha256 = %q\nscopes = [\"read\"]\nworkspaces = [\"work\"]\n",
		config.HashToken(allToken), config.HashToken(workToken))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{})
	var want []string
	for i := range 7 {
		ws := "work"
		if i%3 == 1 {
			ws = "home"
		}
		text := fmt.Sprintf("Note %d of workspace %s.", i, ws)
		args, _ := json.Marshal(map[string]any{"text": text, "workspace": ws})
		if _, err := gw.CallTool(context.Background(), "memory.learn", args, contract.CallContext{Source: "cli"}); err != nil {
			t.Fatal(err)
		}
		if ws == "work" {
			want = append(want, text)
		}
	}
	mcp := mcpserver.New(gw, &mcpserver.Options{Version: "test", Instructions: gateway.Instructions})
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	ts.Config.Handler = httpapi.New(gw, mcp, httpapi.Options{ListenAddr: ts.Listener.Addr().String(), Tokens: cfg.Auth.Tokens})
	t.Cleanup(ts.Close)

	page := func(token, cursor string) (texts []string, next string, errMsg string) {
		params := map[string]any{"limit": 2}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "openhuman.memory_export", "params": params})
		_, out := post(t, ts.URL+"/rpc", string(body), bearer(token)...)
		var resp struct {
			Result struct {
				Items []contract.ExportRecord `json:"items"`
				Next  string                  `json:"next_cursor"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if resp.Error != nil {
			return nil, "", resp.Error.Message
		}
		for _, r := range resp.Result.Items {
			texts = append(texts, r.Text)
		}
		return texts, resp.Result.Next, ""
	}
	all := func(token string) []string {
		var out []string
		cursor := ""
		for range 10 {
			texts, next, msg := page(token, cursor)
			if msg != "" {
				t.Fatalf("%s: %s", token, msg)
			}
			out = append(out, texts...)
			if next == "" {
				return out
			}
			cursor = next
		}
		t.Fatal("the export never ended")
		return nil
	}
	if got := all(workToken); !slices.Equal(got, want) {
		t.Errorf("the work token exported %q, want %q", got, want)
	}
	if got := all(allToken); len(got) != 7 || got[0] != "Note 0 of workspace work." || got[6] != "Note 6 of workspace work." {
		t.Errorf("the unlimited token exported %q, want all 7, oldest first", got)
	}
	_, next, _ := page(allToken, "")
	if _, _, msg := page(workToken, next); !strings.Contains(msg, "cursor") {
		t.Errorf("another token's cursor: %q, want it refused", msg)
	}
}
