package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A Token is what the gateway knows of an HTTP bearer token: its name and
// what it may do. Its hash stays at the HTTP edge, so nothing the gateway
// reports can hold it.
type Token struct {
	Name       string   `json:"name"`
	Scopes     []string `json:"scopes"`
	Workspaces []string `json:"workspaces,omitempty"`
}

// AllowScope is the scope gate, beside the act gate and in front of it: a
// call that came with a bearer token (cc.Token) runs only if the token has
// the scope the call needs (contract.Tool.Scope). A call without a token
// (stdio, the command line, an HTTP edge with no tokens) has every scope.
// A caller the edge knew by an OAuth access token or an external issuer's
// JWT is no configured token: its scopes are those cc carries, which the
// edge took from its grant. A refusal is DENIED, recorded as a denial
// like the act gate's.
func (p *Policy) AllowScope(name, scope string, cc contract.CallContext) error {
	if cc.Token == "" {
		return nil
	}
	i := slices.IndexFunc(p.Tokens, func(t Token) bool { return t.Name == cc.Token })
	var reason string
	switch {
	case i < 0 && cc.Scopes == nil:
		// The edge and the gateway read one configuration, so this is a
		// caller naming a token it was never given.
		reason = fmt.Sprintf("token `%s` is not configured in this gateway's [[auth.tokens]]", cc.Token)
	case i < 0 && !slices.Contains(cc.Scopes, scope):
		reason = fmt.Sprintf("`%s` was granted scope %s; %s needs scope %s (grant it when the client signs in again)",
			cc.Token, strings.Join(cc.Scopes, ","), name, scope)
	case i < 0:
		return nil
	case !slices.Contains(p.Tokens[i].Scopes, scope):
		have := p.Tokens[i].Scopes
		reason = fmt.Sprintf("token `%s` has scope %s; %s needs scope %s (make a token that has it: openhuman-core token new NAME --scopes %s)",
			cc.Token, strings.Join(have, ","), name, scope, strings.Join(append(slices.Clone(have), scope), ","))
	default:
		return nil
	}
	p.mu.Lock()
	p.deny(Denial{TimestampMS: p.now().UnixMilli(), Tool: name, Client: cc.Source, Token: cc.Token, Reason: reason})
	p.mu.Unlock()
	return contract.Errorf(contract.CodeDenied, "%s", reason).With("tool", name).With("scope", scope)
}

// authPosture describes the HTTP edge's tokens for diagnostics: names and
// scopes, never hashes.
func (p *Policy) authPosture() map[string]any {
	if len(p.Tokens) == 0 {
		return map[string]any{"enabled": false, "detail": "no bearer tokens: serve lets every caller in, on a loopback address only"}
	}
	return map[string]any{"enabled": true, "tokens": len(p.Tokens), "token_scopes": p.Tokens,
		"detail": "every HTTP request but /healthz, /readyz and /metrics needs a bearer token; a call needs the token's scope read, or act to change state"}
}
