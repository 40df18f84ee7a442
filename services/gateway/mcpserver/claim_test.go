package mcpserver

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestClaim: a session is its first caller's: another token, or one of the
// same name holding other scopes or workspaces (two OAuth or OIDC tokens
// of one caller need not hold the same), cannot use it, and its calls
// carry the owner's scopes and workspaces.
func TestClaim(t *testing.T) {
	sess := NewSession(contract.TransportMCPHTTP)
	if !sess.Claim("oidc:alice", []string{"read"}, []string{"work"}) {
		t.Fatal("the first claim failed")
	}
	for _, c := range []struct {
		token      string
		scopes, ws []string
	}{
		{"oidc:bob", []string{"read"}, []string{"work"}},
		{"oidc:alice", []string{"read", "act"}, []string{"work"}},
		{"oidc:alice", []string{"read"}, nil},
		{"oidc:alice", []string{"read"}, []string{"work", "home"}},
	} {
		if sess.Claim(c.token, c.scopes, c.ws) {
			t.Errorf("%s with %v %v used a session of oidc:alice with [read] [work]", c.token, c.scopes, c.ws)
		}
	}
	if !sess.Claim("oidc:alice", []string{"read"}, []string{"work"}) {
		t.Error("the owner was refused its own session")
	}
	if cc := sess.callContext(sess.agreed()); cc.Token != "oidc:alice" || len(cc.Scopes) != 1 || len(cc.Workspaces) != 1 {
		t.Errorf("the session's calls carry %+v", cc)
	}
}
