package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

func learn(gw *gateway.Gateway, text string) (json.RawMessage, error) {
	args, _ := json.Marshal(map[string]any{"text": text, "kind": "preference"})
	return gw.CallTool(context.Background(), "memory.learn", args, contract.CallContext{Source: "mcp:cursor", Transport: "mcp_stdio"})
}

func auditRows(t *testing.T, home string) []audit.Row {
	t.Helper()
	l, err := sqlite.Open(filepath.Join(home, "audit.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows, err := l.Recent(context.Background(), 100, false)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestReadOnlyAutonomyRefusesActs(t *testing.T) {
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, map[string]string{"OPENHUMAN_AUTONOMY": "readonly"}, gateway.Options{})
	_, err := learn(gw, "I prefer tabs.")
	if contract.ErrorCode(err) != contract.CodeDenied || err.Error() != "Security policy: read-only mode, cannot perform 'memory.learn'" {
		t.Fatalf("learn: %v", err)
	}
	args := json.RawMessage(`{"agent_id":"librarian","prompt":"x"}`)
	if _, err := gw.CallTool(context.Background(), "agent.run_subagent", args, contract.CallContext{Source: "mcp:cursor"}); err == nil ||
		err.Error() != "Security policy: read-only mode, cannot perform 'agent.run_subagent'" {
		t.Fatalf("run_subagent: %v", err)
	}
	// Reads still run.
	if _, err := gw.CallTool(context.Background(), "memory.list", nil, contract.CallContext{}); err != nil {
		t.Fatalf("a read in read-only mode: %v", err)
	}
	// The refused write and the refused run are audited (newest first),
	// and both are recent denials.
	rows := auditRows(t, home)
	if len(rows) != 2 || rows[1].Success || rows[1].ToolName != "memory.learn" || rows[1].Client != "mcp:cursor" ||
		!strings.Contains(rows[1].ErrorMessage, "read-only mode") || rows[1].ArgsSummary["kind"] != "preference" ||
		rows[0].Success || rows[0].ToolName != "agent.run_subagent" || rows[0].ArgsSummary["agent_id"] != "librarian" {
		t.Fatalf("audit %+v", rows)
	}
	d := gw.Diagnostics(context.Background())
	if d.Policy["autonomy"] != "readonly" || len(d.RecentDenials) != 2 || d.RecentDenials[0].Tool != "agent.run_subagent" || d.WriteAudit["enabled"] != true {
		t.Fatalf("diagnostics: policy %v denials %+v audit %v", d.Policy, d.RecentDenials, d.WriteAudit)
	}
}

func TestActionBudget(t *testing.T) {
	gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_MAX_ACTIONS_PER_HOUR": "2"}, gateway.Options{})
	for i, text := range []string{"one", "two"} {
		if _, err := learn(gw, text); err != nil {
			t.Fatalf("learn %d: %v", i, err)
		}
	}
	_, err := learn(gw, "three")
	if contract.ErrorCode(err) != contract.CodeDenied || err.Error() != "Rate limit exceeded: action budget exhausted" {
		t.Fatalf("third learn: %v", err)
	}
	if p := gw.Diagnostics(context.Background()).Policy; p["max_actions_per_hour"] != 2 || p["actions_last_hour"] != 2 {
		t.Fatalf("policy %v", p)
	}
}

func TestWritesAreAuditedWithoutTheirContent(t *testing.T) {
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{})
	raw, err := learn(gw, "The vault code is 7391-ALPHA.")
	if err != nil {
		t.Fatal(err)
	}
	var learned struct{ ID string }
	json.Unmarshal(raw, &learned)
	args, _ := json.Marshal(map[string]any{"ids": []string{learned.ID}})
	if _, err := gw.CallTool(context.Background(), "memory.forget", args, contract.CallContext{Source: "mcp:zed"}); err != nil {
		t.Fatal(err)
	}
	// A call with bad arguments is audited too, for what its arguments held.
	gw.CallTool(context.Background(), "memory.forget", json.RawMessage(`{"ids":[]}`), contract.CallContext{Source: "mcp:zed"})
	gw.CallTool(context.Background(), "memory.learn", json.RawMessage(`{"text":"nineteen characters","kind":"mood"}`), contract.CallContext{Source: "mcp:zed"})

	rows := auditRows(t, home)
	if len(rows) != 4 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	badLearn, bad, forget, learnRow := rows[0], rows[1], rows[2], rows[3]
	if badLearn.Success || badLearn.ArgsSummary["text_length"] != float64(19) || badLearn.ArgsSummary["kind"] != "(not one of its values)" ||
		!strings.Contains(badLearn.ErrorMessage, "kind") {
		t.Errorf("refused learn row %+v", badLearn)
	}
	key, err := audit.LoadKey(filepath.Join(home, audit.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if !learnRow.Success || learnRow.ResultingID != audit.Pseudonym(key, learned.ID) || learnRow.ArgsSummary["text_length"] != float64(len("The vault code is 7391-ALPHA.")) || learnRow.Client != "mcp:cursor" {
		t.Errorf("learn row %+v", learnRow)
	}
	if !forget.Success || forget.ToolName != "memory.forget" || forget.ArgsSummary["id_count"] != float64(1) || forget.Client != "mcp:zed" {
		t.Errorf("forget row %+v", forget)
	}
	if bad.Success || !strings.Contains(bad.ErrorMessage, "ids") {
		t.Errorf("bad call row %+v", bad)
	}
	// Neither the audit file nor its WAL holds the forgotten text.
	for _, f := range []string{"audit.db", "audit.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(home, f))
		if strings.Contains(string(b), "7391-ALPHA") {
			t.Errorf("%s holds the forgotten text", f)
		}
	}
	if d := gw.Diagnostics(context.Background()); d.WriteAudit["backend"] != "sqlite:"+filepath.Join(home, "audit.db") || d.WriteAudit["last_row_ms"] == nil {
		t.Errorf("audit status %v", d.WriteAudit)
	}
}
