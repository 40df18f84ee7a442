package diagnostics_test

import (
	"reflect"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/diagnostics"
	"github.com/openhuman-go/openhuman-go/services/gateway/policy"
)

// TestReportFor: the operator sees the whole report; a caller limited to
// workspaces sees its own token in place of the others, its own denials
// only, and of the audit only whether it is on, while the report it was
// made from is left as it was.
func TestReportFor(t *testing.T) {
	d := diagnostics.Report{
		Policy:        map[string]any{"autonomy": "full", "http_auth": map[string]any{"tokens": []string{"alice", "bob"}}},
		WriteAudit:    map[string]any{"enabled": true, "backend": "sqlite", "path": "/home/op/.openhuman/audit.db"},
		RecentDenials: []policy.Denial{{Tool: "memory.learn", Token: "alice"}, {Tool: "memory.forget", Token: "bob"}},
	}
	if got := d.For(contract.CallContext{Token: "alice"}); !reflect.DeepEqual(got, d) {
		t.Errorf("an unscoped caller's report differs:\n%+v", got)
	}
	got := d.For(contract.CallContext{Token: "bob", Workspaces: []string{"home"}})
	auth, _ := got.Policy["http_auth"].(map[string]any)
	switch {
	case auth["token"] != "bob" || auth["tokens"] != nil || got.Policy["autonomy"] != "full":
		t.Errorf("policy = %+v", got.Policy)
	case len(got.RecentDenials) != 1 || got.RecentDenials[0].Token != "bob":
		t.Errorf("denials = %+v", got.RecentDenials)
	case !reflect.DeepEqual(got.WriteAudit, map[string]any{"enabled": true}):
		t.Errorf("write audit = %+v", got.WriteAudit)
	}
	if _, ok := d.Policy["http_auth"].(map[string]any)["tokens"]; !ok || len(d.RecentDenials) != 2 || d.WriteAudit["path"] == nil {
		t.Errorf("For changed the report it was made from: %+v", d)
	}
}
