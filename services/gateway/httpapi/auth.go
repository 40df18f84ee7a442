package httpapi

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// Bearer-token authentication. With tokens configured every request needs
// "Authorization: Bearer <token>", loopback included, except the routes
// that hold no memory content (openRoutes). A token is known by its SHA-256
// only; the one presented is hashed and compared with every configured
// hash in constant time, so neither a match's position nor its prefix
// shows in the time taken. Neither a token nor its hash is ever logged.
// Wrong tokens count against the client's address in a
// failurelimit.Guard, shared with the console's sign-in: past a few, that
// address is answered 429 until its wait is over, and no other address
// is held back by it.

// openRoutes answer without a token: orchestrators and Prometheus probe
// them, browsers ask for a page's icon before anyone signs in, and they
// hold no memory content.
var openRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/favicon.ico": true}

// ConsolePrefix is where the console is mounted. It signs people in
// itself (a bearer token or the session cookie its sign-in sets), with
// the same tokens, so the bearer middleware lets its paths through.
const ConsolePrefix = "/console"

func isConsolePath(path string) bool {
	return path == ConsolePrefix || strings.HasPrefix(path, ConsolePrefix+"/")
}

// realm is the WWW-Authenticate realm of a refusal.
const realm = `Bearer realm="openhuman"`

// A caller is the token a request authenticated with.
type caller struct {
	name       string
	scopes     []string
	workspaces []string
}

type callerKey struct{}

func newContextWithCaller(ctx context.Context, c *caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerFromContext is the request's token, nil when the edge has none.
func callerFromContext(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

type knownToken struct {
	caller
	digest [sha256.Size]byte
}

// tokenSet is the configured tokens, matched by hash.
type tokenSet []knownToken

func newTokenSet(tokens []config.Token) tokenSet {
	var known tokenSet
	for _, t := range tokens {
		// config.Load refuses an entry whose hash does not parse.
		if d, ok := t.Digest(); ok {
			known = append(known, knownToken{caller: caller{name: t.Name, scopes: t.Scopes, workspaces: t.Workspaces}, digest: d})
		}
	}
	return known
}

// match is the token presented is, nil when none matches. Every hash is
// compared, whatever matched before it.
func (known tokenSet) match(presented string) *caller {
	sum := sha256.Sum256([]byte(presented))
	var who *caller
	for i := range known {
		if subtle.ConstantTimeCompare(sum[:], known[i].digest[:]) == 1 {
			who = &known[i].caller
		}
	}
	return who
}

// Authenticator matches a presented bearer token the way every request to
// /rpc and /mcp is matched, for the console's sign-in: it returns the
// token's name, scopes and workspaces, ok false when no configured token
// matches.
func Authenticator(tokens []config.Token) func(presented string) (name string, scopes, workspaces []string, ok bool) {
	known := newTokenSet(tokens)
	return func(presented string) (string, []string, []string, bool) {
		if who := known.match(presented); who != nil {
			return who.name, who.scopes, who.workspaces, true
		}
		return "", nil, nil, false
	}
}

// requireToken is the authentication middleware; with no tokens and no
// OAuth it lets every request through, as serve allows on a loopback
// address only (see CheckListen). A refusal tells the client which token
// to send (advice). At /mcp an OAuth access token (oauth.go) is taken too,
// and a refusal there names the resource metadata clients sign in by.
func requireToken(tokens []config.Token, auth *OAuth, advice string, guard *failurelimit.Guard, log *slog.Logger) func(http.Handler) http.Handler {
	known := newTokenSet(tokens)
	return func(next http.Handler) http.Handler {
		if len(tokens) == 0 && auth == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if openRoutes[r.URL.Path] || isConsolePath(r.URL.Path) || auth.open(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			presented, problem := bearer(r.Header.Get("Authorization"))
			source := clientaddr.Key(r.RemoteAddr)
			var who *caller
			if problem == "" {
				if wait := guard.Wait(source); wait > 0 {
					tooManyWrong(w, r, log, wait)
					return
				}
				who = known.match(presented)
			}
			if who == nil && auth.guards(r.URL.Path) {
				var refused string
				var failed error
				switch who, refused, failed = auth.verify(r, presented, problem); {
				case failed != nil:
					auth.unavailable(w, r, log, failed)
					return
				case who == nil:
					if presented != "" {
						guard.Failed(source, presented)
					}
					auth.refuse(w, r, log, refused)
					return
				}
			}
			if who == nil && auth != nil && strings.HasPrefix(presented, oauth.AccessPrefix) {
				refuse(w, r, log, advice, false, "an OAuth access token (ohat_…) is taken at /mcp only")
				return
			}
			if who == nil {
				if presented != "" {
					guard.Failed(source, presented)
				}
				refuse(w, r, log, advice, presented != "", problem)
				return
			}
			log.Debug("authenticated", "token", who.name, "path", r.URL.Path)
			next.ServeHTTP(w, r.WithContext(newContextWithCaller(r.Context(), who)))
		})
	}
}

// bearer takes the token out of an Authorization header; problem says what
// is wrong with the header when there is no token in it.
func bearer(header string) (token, problem string) {
	if header == "" {
		return "", "no Authorization header"
	}
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", "the Authorization header's scheme is not Bearer"
	}
	token = strings.TrimSpace(rest)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", "the Authorization header holds no single bearer token"
	}
	return token, ""
}

// refuse answers 401 with the challenge RFC 6750 describes, and a body
// saying what to send. wrong is true when a token was presented and no
// configured one matched it.
func refuse(w http.ResponseWriter, r *http.Request, log *slog.Logger, advice string, wrong bool, problem string) {
	challenge, msg := realm, "Unauthorized: "+problem+"; send Authorization: Bearer <token> with "+advice
	if wrong {
		challenge += `, error="invalid_token"`
		msg = "Unauthorized: the bearer token matches no token of this server; send " + advice
		problem = "unknown bearer token"
	}
	log.Info("request refused: not authenticated", "reason", problem, "path", r.URL.Path, "remote", r.RemoteAddr)
	w.Header().Set("WWW-Authenticate", challenge)
	writeError(w, http.StatusUnauthorized, msg)
}

// tooManyWrong answers a token from an address that presented too many
// wrong ones: 429 with how long to wait, the token unchecked.
func tooManyWrong(w http.ResponseWriter, r *http.Request, log *slog.Logger, wait time.Duration) {
	secs := strconv.Itoa(int(wait.Round(time.Second).Seconds()) + 1)
	log.Info("request refused: too many wrong tokens from its address", "path", r.URL.Path, "remote", r.RemoteAddr)
	w.Header().Set("Retry-After", secs)
	writeError(w, http.StatusTooManyRequests, "Too Many Requests: too many wrong bearer tokens came from your address; try again in "+secs+
		" seconds, with a token of this server")
}

// tokenAdvice says which token the server takes, the way its tokens were
// configured: OPENHUMAN_API_TOKEN (where it was set, when the deployment
// says: a compose stack fills it from .env), the [[auth.tokens]] of the
// config file, or both. The file is named by its base name only: the
// answer goes to callers not yet known, and the path can name a user.
func tokenAdvice(tokens []config.Token, file, from string) string {
	var env, inFile bool
	for _, t := range tokens {
		if t.Name == config.EnvTokenName {
			env = true
		} else {
			inFile = true
		}
	}
	var ways []string
	if env {
		ways = append(ways, "the value of OPENHUMAN_API_TOKEN "+cmp.Or(from, "in serve's environment"))
	}
	if inFile {
		name := "config.toml"
		if file != "" {
			name = filepath.Base(file)
		}
		ways = append(ways, "a token whose sha256 is in [[auth.tokens]] of "+name+" (`openhuman-core token new NAME` makes one)")
	}
	return strings.Join(ways, ", or ")
}

// rpcCallContext is a /rpc call's context: provenance http:<token name>
// with the token's scopes and workspaces, or "rpc" when the edge has no
// tokens.
func rpcCallContext(ctx context.Context) contract.CallContext {
	cc := contract.CallContext{Source: "rpc", Transport: contract.TransportJSONRPC}
	if c := callerFromContext(ctx); c != nil {
		cc.Source, cc.Token, cc.Scopes, cc.Workspaces = "http:"+c.name, c.name, c.scopes, c.workspaces
	}
	return cc
}

// claimSession ties an MCP session to the token that opened it; it is
// false when the request came with another token.
func claimSession(ctx context.Context, sess *mcpserver.Session) bool {
	if c := callerFromContext(ctx); c != nil {
		return sess.Claim(c.name, c.scopes, c.workspaces)
	}
	return sess.Claim("", nil, nil)
}

// CheckListen refuses to serve on an address other hosts can reach
// without any token: anyone there could read and change memory.
func CheckListen(addr string, tokens []config.Token) error {
	if len(tokens) > 0 || isLoopbackAddr(addr) {
		return nil
	}
	return fmt.Errorf("refusing to serve on %s without a bearer token: any host that reaches it could read and change memory. "+
		"Make a token with `openhuman-core token new NAME` and add the lines it prints to config.toml, or set OPENHUMAN_API_TOKEN; "+
		"or listen on a loopback address such as 127.0.0.1:9300", addr)
}
