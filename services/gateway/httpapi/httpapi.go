// Package httpapi serves the gateway over HTTP with chi: JSON-RPC at /rpc,
// MCP over Streamable HTTP at /mcp, Prometheus metrics at /metrics,
// /healthz and /readyz for orchestrators, and the console at /console/
// when one is given.
package httpapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/bodybudget"
	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
)

// MaxBodyBytes bounds a request body; a larger one is refused with 413.
// It is the largest body any route reads, which the in-flight budget must
// hold (config checks it does).
const MaxBodyBytes = config.MaxRequestBodyBytes

// Options configure the HTTP API. The zero value works.
type Options struct {
	// ListenAddr is the address served; when it is a loopback address,
	// requests must name a loopback Host (DNS-rebinding protection).
	ListenAddr string
	// AllowedHosts are further host names accepted in Host and Origin.
	AllowedHosts []string
	// AllowNullOrigin accepts "Origin: null", which sandboxed frames and
	// file: and data: pages send; refused by default.
	AllowNullOrigin bool
	// SessionIdle ends an MCP session unused this long (default 30 minutes).
	SessionIdle time.Duration
	// MaxSessions bounds live MCP sessions (default 10,000).
	MaxSessions int
	// Tokens are the bearer tokens; with any, every request but /healthz,
	// /readyz and /metrics needs one (auth.go).
	Tokens []config.Token
	// ConfigFile is the file the tokens other than OPENHUMAN_API_TOKEN's
	// came from, and APITokenFrom where that variable was set, as the
	// deployment says: a refusal tells the client which token to send.
	ConfigFile, APITokenFrom string
	// MaxSessionsPerAddress bounds the live MCP sessions of one client
	// address (default 64), and MaxSessionsPerToken those opened with one
	// bearer token (default 256).
	MaxSessionsPerAddress, MaxSessionsPerToken int
	// HeaderTimeout, BodyTimeout and IdleTimeout bound how long a client
	// may take to send a request's headers (default 10 s), then its body
	// (default 30 s), and how long a kept-alive connection may sit idle
	// (default 2 minutes); see HTTPServer.
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// Heartbeat is how often an open subscriptions/listen stream gets a
	// comment, so that proxies do not take it for dead (default 15 s).
	Heartbeat time.Duration
	// SignInLimit counts wrong bearer tokens per client address; serve
	// shares it with the console's sign-in (default: 5, then one every
	// 12 seconds).
	SignInLimit *failurelimit.Guard
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client every limit and log counts (clientaddr); none by default.
	TrustedProxies clientaddr.Trusted
	// MaxBodyBytesInFlight bounds the body bytes of all requests held at
	// once (default 64 MiB); past it a request is answered 503 with
	// Retry-After (package bodybudget).
	MaxBodyBytesInFlight int64
	// Metrics serves /metrics; nil leaves the route out.
	Metrics http.Handler
	// OAuth lets remote MCP clients sign in with OAuth 2.1 (oauth.go);
	// nil leaves it out.
	OAuth *OAuth
	// Console serves /console/ (package console); nil leaves it out. It
	// is behind the host check like every route, and authenticates its
	// requests itself.
	Console http.Handler
	Logger  *slog.Logger
}

// Server is the HTTP face of the gateway.
type Server struct {
	gw       *gateway.Gateway
	mcp      *mcpserver.Server
	opts     Options
	sessions *sessions
	router   chi.Router
}

// New builds the handler.
func New(gw *gateway.Gateway, mcp *mcpserver.Server, opts Options) *Server {
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 30 * time.Minute
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 10000
	}
	if opts.MaxSessionsPerAddress <= 0 {
		opts.MaxSessionsPerAddress = 64
	}
	if opts.MaxSessionsPerToken <= 0 {
		opts.MaxSessionsPerToken = 256
	}
	if opts.SignInLimit == nil {
		opts.SignInLimit = failurelimit.DefaultGuard()
	}
	opts.HeaderTimeout = cmp.Or(opts.HeaderTimeout, 10*time.Second)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, 30*time.Second)
	opts.IdleTimeout = cmp.Or(opts.IdleTimeout, 2*time.Minute)
	opts.Heartbeat = cmp.Or(opts.Heartbeat, 15*time.Second)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	lim := sessionLimits{idle: opts.SessionIdle, max: opts.MaxSessions, perKey: map[string]int{keyAddress: opts.MaxSessionsPerAddress, keyToken: opts.MaxSessionsPerToken}}
	s := &Server{gw: gw, mcp: mcp, opts: opts, sessions: newSessions(lim, time.Now)}
	r := chi.NewRouter()
	r.Use(clientaddr.Middleware(opts.TrustedProxies, opts.Logger))
	r.Use(bodyDeadline(opts.BodyTimeout))
	r.Use(middleware.Recoverer)
	r.Use(tracing.Middleware)
	r.Use(hostCheck(opts.ListenAddr, opts.AllowedHosts, opts.AllowNullOrigin))
	r.Use(requireToken(opts.Tokens, opts.OAuth, tokenAdvice(opts.Tokens, opts.ConfigFile, opts.APITokenFrom), opts.SignInLimit, opts.Logger))
	r.Use(bodybudget.New(cmp.Or(opts.MaxBodyBytesInFlight, 64<<20)).Middleware(MaxBodyBytes, refuseBusy))
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/favicon.ico", favicon)
	if opts.Metrics != nil {
		r.Method(http.MethodGet, "/metrics", opts.Metrics)
	}
	r.With(jsonBody).Post("/rpc", s.rpc)
	r.With(jsonBody).Post("/mcp", s.mcpPost)
	r.Get("/mcp", s.mcpGet)
	r.Delete("/mcp", s.mcpDelete)
	if opts.Console != nil {
		r.Mount(ConsolePrefix, opts.Console)
	}
	opts.OAuth.mount(r)
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			if r.Match(chi.NewRouteContext(), m, req.URL.Path) {
				allow = append(allow, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed: "+req.URL.Path+" takes "+strings.Join(allow, " or ")+", not "+req.Method+" (docs/operations.md lists the routes)")
	})
	s.router = r
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// hostCheck refuses requests a web page could make through DNS rebinding: an
// Origin that is not ours, and, on a loopback listener, a Host that is not a
// loopback name. Both are answered 403 before anything else runs. Origin
// null is any sandboxed frame or file: or data: page, from whatever site;
// it is refused unless allowNull.
func hostCheck(listenAddr string, allowed []string, allowNull bool) func(http.Handler) http.Handler {
	loopbackOnly := isLoopbackAddr(listenAddr)
	ok := func(host string) bool {
		h := hostname(host)
		if isLoopbackName(h) {
			return true
		}
		for _, a := range allowed {
			if strings.EqualFold(h, a) {
				return true
			}
		}
		return false
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "null" && !allowNull {
				writeError(w, http.StatusForbidden, "Forbidden: Origin null (a sandboxed frame, or a file: or data: page) is not allowed; set http.allow_null_origin = true (OPENHUMAN_HTTP_ALLOW_NULL_ORIGIN) to permit it")
				return
			}
			if origin != "" && origin != "null" {
				host := origin
				if i := strings.Index(origin, "://"); i >= 0 {
					host = origin[i+3:]
				}
				if !ok(host) {
					writeError(w, http.StatusForbidden, "Forbidden: Origin "+origin+" is not allowed; add its host to http.allowed_hosts to permit it")
					return
				}
			}
			if loopbackOnly && !ok(r.Host) {
				writeError(w, http.StatusForbidden, "Forbidden: Host "+r.Host+" is not a local name; add it to http.allowed_hosts to permit it")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func isLoopbackAddr(addr string) bool {
	if addr == "" {
		return true
	}
	return isLoopbackName(hostname(addr))
}

// favicon sends a browser asking for the site's icon to the console's.
func favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=86400")
	http.Redirect(w, r, ConsolePrefix+"/assets/icon.svg", http.StatusMovedPermanently)
}

// healthz is liveness: it asks nothing of any service, so a dependency
// that is down never gets the gateway restarted. /readyz has the states.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is 503 when an expected service does not answer its ping over
// NATS, or memory's store cannot be trusted. Search providers that are down leave it 200 with status
// "degraded": the rest of the gateway works, and an orchestrator that
// restarted the gateway for them would not bring them back.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ready := s.gw.Readiness(r.Context())
	code := http.StatusOK
	if !ready.Ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, ready)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a message saying <token> should read <token>
	_ = enc.Encode(v)
}

// writeEncoded answers 200 with out, JSON already encoded. With its length
// known the answer goes out in one write, not in chunks of net/http's
// 4 KB buffer.
func writeEncoded(w http.ResponseWriter, out []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

// writeContractError answers a request refused before JSON-RPC started
// for a reason with a contract code, carried in data.code as /rpc does.
func writeContractError(w http.ResponseWriter, err error) {
	e := contract.AsError(err)
	writeJSON(w, httpstatus.Of(e.Code), map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": rpcErrors[e.Code], "message": e.Message, "data": jsonrpc.ErrorData(e)}})
}

// writeError answers a request refused before JSON-RPC started.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": msg}})
}

// refuseBusy answers a request whose body the in-flight budget cannot
// hold (Retry-After is set), in the style of its path: a page of the
// console's, an OAuth error, or a JSON-RPC error.
func refuseBusy(w http.ResponseWriter, r *http.Request) {
	const msg = "the server is reading as many request bodies as it may at once (http.max_body_bytes_in_flight); send this again in a moment"
	switch {
	case isConsolePath(r.URL.Path):
		http.Error(w, "Service Unavailable: "+msg+".", http.StatusServiceUnavailable)
	case strings.HasPrefix(r.URL.Path, "/oauth/"):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": msg})
	default:
		writeError(w, http.StatusServiceUnavailable, "Service Unavailable: "+msg)
	}
}

// readBody reads at most MaxBodyBytes; a larger body is answered 413, one
// that does not arrive in time 408, one the in-flight budget cannot hold
// 503, and false is returned.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "Request Entity Too Large: the body is over 4 MiB; send less at once")
		return nil, false
	case errors.Is(err, bodybudget.ErrExhausted):
		refuseBusy(w, r)
		return nil, false
	case errors.As(err, &netErr) && netErr.Timeout():
		writeError(w, http.StatusRequestTimeout, "Request Timeout: the body did not arrive in time; send it all at once, right after the headers")
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "Bad Request: reading the body failed: "+err.Error())
		return nil, false
	}
	return body, true
}
