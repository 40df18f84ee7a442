package oauth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// ResourceMetadata serves RFC 9728's protected-resource document for
// resource, naming issuers as its authorization servers. It is served at
// PathResourceMetadata and at PathResourceMetadata + the resource's path,
// both of which MCP clients try.
func ResourceMetadata(resource string, issuers []string) http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   issuers,
		ScopesSupported:        contract.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "OpenHuman memory",
	})
}

// ResourceMetadataURL is where the resource's document is, the URL a 401
// names in WWW-Authenticate.
func ResourceMetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return resource
	}
	return u.Scheme + "://" + u.Host + PathResourceMetadata
}

// Challenge is the WWW-Authenticate value of a 401 from the resource:
// the resource metadata's URL and the scopes to ask for, then, when a
// token was presented and refused, error="invalid_token" and why.
func Challenge(resource, refused string) string {
	c := `Bearer resource_metadata="` + ResourceMetadataURL(resource) + `", scope="` + strings.Join(contract.Scopes, " ") + `"`
	if refused != "" {
		c += `, error="invalid_token", error_description="` + quoteSafe(refused) + `"`
	}
	return c
}

// quoteSafe keeps s inside a quoted header parameter.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < ' ' || r > '~' {
			return '\''
		}
		return r
	}, s)
}

// serverMetadata serves RFC 8414's document.
func (s *Server) serverMetadata(w http.ResponseWriter, _ *http.Request) {
	m := oauthex.AuthServerMeta{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + PathAuthorize,
		TokenEndpoint:                              s.issuer + PathToken,
		ScopesSupported:                            contract.Scopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          authMethods,
		RevocationEndpoint:                         s.issuer + PathRevoke,
		RevocationEndpointAuthMethodsSupported:     authMethods,
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	}
	if s.opts.Registration {
		m.RegistrationEndpoint = s.issuer + PathRegister
	}
	// jwks_uri is not omitted when empty in the SDK's type, and an empty
	// URL fails clients that check it: this server signs nothing.
	b, _ := json.Marshal(m)
	var doc map[string]any
	_ = json.Unmarshal(b, &doc)
	delete(doc, "jwks_uri")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, doc)
}

// authMethods are the client authentications the token and revocation
// endpoints take: none for public clients (every MCP client that runs on a
// person's machine), a secret in the form or in Basic for the others.
var authMethods = []string{"none", "client_secret_post", "client_secret_basic"}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
