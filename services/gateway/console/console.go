// Package console is the gateway's web console at /console/: a person signs
// in with a bearer token and searches, reads, corrects and forgets what
// memory holds, decides sub-agents' waiting calls, sees which tools and
// search providers are healthy, reads the audit trail, and finds how to
// connect each MCP client to this server. With the built-in OAuth server,
// it is where the person decides what a remote client may do (the consent
// page) and sees and revokes the clients connected.
//
// Pages are rendered on the server (html/template, templates/) and work as
// plain links and forms; htmx (assets/, embedded with the templates) only
// spares reloads. Every action is a call of the gateway's, the same one
// /rpc makes (one policy gate, one audit), never a look into a store, so
// the console works the same whether the services run in this process or
// elsewhere. One file per page action, miniflux's way: each handler reads
// the request, calls the gateway and renders. Security headers are set in
// one place (headers.go); sign-in, sessions and CSRF are websession's.
package console

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// gateway is what the console calls: the method /rpc calls.
type gateway interface {
	CallRPC(ctx context.Context, method string, params json.RawMessage, cc contract.CallContext) (any, error)
}

// Options configure the console; the zero value serves an open console
// (a server without tokens).
type Options struct {
	// Authenticate matches a presented bearer token, as httpapi.Authenticator
	// does; nil means the server has no tokens and the console is open, as
	// /rpc is, which serve allows on a loopback address only.
	Authenticate func(presented string) (name string, scopes, workspaces []string, ok bool)
	// Sessions signs people in (default: websession.New with defaults).
	Sessions *websession.Manager
	// SignInLimit bounds wrong tokens per client address (default: 5,
	// then one every 12 seconds); serve shares one with /rpc and /mcp.
	SignInLimit *failurelimit.Guard
	// Metrics is where the tools page reads calls and latencies (default:
	// the process's Prometheus registry, what /metrics serves).
	Metrics prometheus.Gatherer
	// Executable is the openhuman-core the connect page names for clients
	// that start it themselves (default: this process's executable).
	Executable string
	// Home is the home those clients should use, when not the default.
	Home string
	// OAuth is the built-in authorization server (package oauth): with it
	// the console has the consent page remote clients send the person to,
	// and the page of connected clients. Nil leaves both out.
	OAuth  authorizer
	Logger *slog.Logger
}

// authorizer is the authorization server, as the consent and clients
// pages use it.
type authorizer interface {
	Request(ctx context.Context, id string) (oauth.Pending, error)
	Decide(ctx context.Context, id string, who oauth.Identity, d oauth.Decision) (string, error)
	Grants(ctx context.Context) ([]oauth.Grant, error)
	Revoke(ctx context.Context, grantID, by string) error
}

// Console serves the pages. Close stops its metrics sampler.
type Console struct {
	gw       gateway
	opts     Options
	sessions *websession.Manager
	limiter  *failurelimit.Guard
	stats    *toolStats
	router   chi.Router
}

// Prefix is where the console is mounted; its links and redirects start with it.
const Prefix = "/console"

// Transport labels the console's calls in metrics and the audit.
const Transport = "console"

// New returns the console over gw.
func New(gw gateway, opts Options) *Console {
	if opts.Sessions == nil {
		opts.Sessions = websession.New(websession.Options{})
	}
	if opts.SignInLimit == nil {
		opts.SignInLimit = failurelimit.DefaultGuard()
	}
	if opts.Metrics == nil {
		opts.Metrics = prometheus.DefaultGatherer
	}
	if opts.Executable == "" {
		opts.Executable, _ = os.Executable()
	}
	opts.Executable = cmp.Or(opts.Executable, "openhuman-core")
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{gw: gw, opts: opts, sessions: opts.Sessions, limiter: opts.SignInLimit, stats: newToolStats(opts.Metrics, time.Now)}
	c.stats.start()
	c.router = c.routes()
	return c
}

// Close stops the metrics sampler.
func (c *Console) Close() { c.stats.stop() }

func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.router.ServeHTTP(w, r) }

func (c *Console) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(securityHeaders)
	r.Use(limitBody)
	r.Use(websession.CrossOrigin(c.deny))
	r.Handle("/assets/*", assetHandler())
	r.Get("/signin", c.signIn)
	r.Post("/signin", c.signInCheck)
	r.Group(func(r chi.Router) {
		r.Use(c.requireSession)
		r.Use(websession.RequireCSRF(c.deny))
		r.Get("/", c.home)
		r.Post("/signout", c.signOut)
		r.Get("/memory", c.memoryList)
		r.Get("/memory/item", c.memoryItem)
		r.Get("/memory/forget", c.memoryForgetConfirm)
		r.Post("/memory/forget", c.memoryForget)
		r.Get("/memory/learn", c.memoryLearnForm)
		r.Post("/memory/learn", c.memoryLearn)
		r.Post("/memory/correct", c.memoryCorrect)
		r.Get("/sources", c.sourceList)
		r.Get("/sources/items", c.sourceItems)
		r.Get("/sources/forget", c.sourceForgetConfirm)
		r.Post("/sources/forget", c.sourceForget)
		r.Get("/approvals", c.approvalList)
		r.Post("/approvals/decide", c.approvalDecide)
		r.Get("/tools", c.toolList)
		r.Get("/audit", c.auditList)
		r.Get("/connect", c.connect)
		if c.opts.OAuth != nil {
			r.Get("/oauth/consent", c.consent)
			r.Post("/oauth/consent", c.consentDecide)
			r.Get("/clients", c.clientList)
			r.Post("/clients/revoke", c.clientRevoke)
		}
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, http.StatusNotFound, "There is no such page in the console.")
	})
	return r
}

func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Prefix+"/memory", http.StatusSeeOther)
}
