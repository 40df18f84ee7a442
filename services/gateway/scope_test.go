package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/diagnostics"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// withTokens writes a config.toml declaring tokens, each name=scopes
// (comma-separated), into a new home.
func withTokens(t *testing.T, tokens ...string) string {
	t.Helper()
	home := t.TempDir()
	var b strings.Builder
	for _, tok := range tokens {
		name, scopes, _ := strings.Cut(tok, "=")
		q, _ := json.Marshal(strings.Split(scopes, ","))
		fmt.Fprintf(&b, "[[auth.tokens]]\nname = %q\nsha256 = %q\nscopes = %s\n", name, config.HashToken("oh_"+name), q)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestScopeGate(t *testing.T) {
	home := withTokens(t, "ci=read", "laptop=read,act", "writer=act")
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{})
	ctx := context.Background()
	as := func(token string) contract.CallContext {
		return contract.CallContext{Source: "http:" + token, Token: token, Transport: contract.TransportJSONRPC}
	}
	count := func() int {
		raw, err := gw.CallTool(ctx, "memory.list", nil, contract.CallContext{})
		if err != nil {
			t.Fatal(err)
		}
		var page struct{ Items []json.RawMessage }
		json.Unmarshal(raw, &page)
		return len(page.Items)
	}

	for _, tc := range []struct{ tool, args string }{
		{"memory.learn", `{"text":"A read token cannot store this."}`},
		{"memory.forget", `{"ids":["abc"]}`},
		{"agent.run_subagent", `{"agent_id":"librarian","prompt":"store something"}`},
	} {
		_, err := gw.CallTool(ctx, tc.tool, json.RawMessage(tc.args), as("ci"))
		want := "token `ci` has scope read; " + tc.tool + " needs scope act (make a token that has it: openhuman-core token new NAME --scopes read,act)"
		if contract.ErrorCode(err) != contract.CodeDenied || err.Error() != want {
			t.Errorf("%s with a read token: %v", tc.tool, err)
		}
	}
	if _, err := gw.CallRPC(ctx, "openhuman.approval_decide", json.RawMessage(`{"id":"x","approve":true}`), as("ci")); contract.ErrorCode(err) != contract.CodeDenied ||
		!strings.Contains(err.Error(), "approval.decide needs scope act") {
		t.Errorf("approval.decide with a read token: %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d items stored by refused calls", n)
	}
	if _, err := gw.CallTool(ctx, "memory.fetch", json.RawMessage(`{"query":"anything"}`), as("ci")); err != nil {
		t.Errorf("a read with a read token: %v", err)
	}
	if _, err := gw.CallRPC(ctx, "openhuman.tool_registry_list", nil, as("ci")); err != nil {
		t.Errorf("the registry with a read token: %v", err)
	}

	// A token without read may change state but not read.
	if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"Writers write."}`), as("writer")); err != nil {
		t.Errorf("learn with an act token: %v", err)
	}
	for _, call := range []func() error{
		func() error { _, err := gw.CallTool(ctx, "memory.list", nil, as("writer")); return err },
		func() error {
			_, err := gw.CallRPC(ctx, "openhuman.tool_registry_diagnostics", nil, as("writer"))
			return err
		},
		func() error { _, err := gw.Resources(ctx, as("writer")); return err },
	} {
		if err := call(); contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "token `writer` has scope act;") {
			t.Errorf("a read with an act-only token: %v", err)
		}
	}
	if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"Laptops learn."}`), as("laptop")); err != nil {
		t.Errorf("learn with a read,act token: %v", err)
	}
	if _, err := gw.CallTool(ctx, "memory.list", nil, as("ghost")); contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "token `ghost` is not configured") {
		t.Errorf("a token the gateway does not know: %v", err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d items, want the two learned with act", n)
	}

	// The refused calls that change state (writes, a run, a decision) and
	// the allowed ones are audited with their token, newest first.
	rows := auditRows(t, home)
	var tools []string
	for _, r := range rows {
		tools = append(tools, r.Token+"/"+r.ToolName)
	}
	if got := strings.Join(tools, " "); got != "laptop/memory.learn writer/memory.learn ci/approval.decide ci/agent.run_subagent ci/memory.forget ci/memory.learn" {
		t.Fatalf("audit %s: %+v", got, rows)
	}
	if r := rows[5]; r.Success || r.Token != "ci" || r.Client != "http:ci" || !strings.Contains(r.ErrorMessage, "needs scope act") {
		t.Errorf("the refused learn's row %+v", r)
	}
	if r := rows[0]; !r.Success || r.Token != "laptop" || r.Client != "http:laptop" {
		t.Errorf("the allowed learn's row %+v", r)
	}

	d := gw.Diagnostics(ctx)
	if len(d.RecentDenials) != 8 || d.RecentDenials[0].Token != "ghost" || d.RecentDenials[len(d.RecentDenials)-1].Tool != "memory.learn" {
		t.Errorf("denials %+v", d.RecentDenials)
	}
	auth, _ := json.Marshal(d.Policy["http_auth"])
	if !strings.Contains(string(auth), `"tokens":3`) || !strings.Contains(string(auth), `{"name":"ci","scopes":["read"]}`) {
		t.Errorf("http_auth %s", auth)
	}
	all, _ := json.Marshal(d)
	if strings.Contains(string(all), config.HashToken("oh_ci")) {
		t.Error("diagnostics hold a token's hash")
	}

	// A caller limited to a workspace reads its own denials and token only.
	res, err := gw.CallRPC(ctx, "openhuman.tool_registry_diagnostics", nil,
		contract.CallContext{Source: "http:ci", Token: "ci", Workspaces: []string{"a"}, Transport: contract.TransportJSONRPC})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	var scoped diagnostics.Report
	if err := json.Unmarshal(raw, &scoped); err != nil {
		t.Fatal(err)
	}
	for _, den := range scoped.RecentDenials {
		if den.Token != "ci" {
			t.Errorf("a scoped caller sees another token's denial %+v", den)
		}
	}
	if len(scoped.RecentDenials) == 0 || strings.Contains(string(raw), "laptop") || strings.Contains(string(raw), home) || scoped.WriteAudit["last_row_ms"] != nil {
		t.Errorf("a scoped caller's diagnostics: %s", raw)
	}
}

// TestScopeGateGrantedCaller: a caller the edge knew by an OAuth grant or
// an external issuer's token is no configured token; the scopes its
// context carries decide.
func TestScopeGateGrantedCaller(t *testing.T) {
	gw := gatewaytest.StartIn(t, withTokens(t, "laptop=read,act"), nil, gateway.Options{})
	ctx := context.Background()
	reader := contract.CallContext{Source: "mcp:claude-ai", Token: "oauth:claude:0123abcd", Scopes: []string{"read"}, Transport: contract.TransportMCPHTTP}
	if _, err := gw.CallTool(ctx, "memory.list", nil, reader); err != nil {
		t.Fatalf("a read with a read grant: %v", err)
	}
	_, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"A read grant cannot store this."}`), reader)
	if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(err.Error(), "`oauth:claude:0123abcd` was granted scope read; memory.learn needs scope act") {
		t.Fatalf("a learn with a read grant: %v", err)
	}
	writer := reader
	writer.Scopes = []string{"read", "act"}
	if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(`{"text":"A read,act grant stores this."}`), writer); err != nil {
		t.Fatalf("a learn with a read,act grant: %v", err)
	}
}
