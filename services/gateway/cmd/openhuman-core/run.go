package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/connlimit"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/failurelimit"
	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/clientaddr"
	"github.com/openhuman-go/openhuman-go/services/gateway/console"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
	"github.com/openhuman-go/openhuman-go/services/gateway/mcpserver"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the tool or the server failed
	exitUsage   = 2 // the command line or the arguments were wrong
)

// Main is the program, with its world injected so tests can run it.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ lists the environment as NAME=value entries, for warning of
	// OPENHUMAN_* variables nothing reads; nil is none.
	Environ []string

	cfg         config.Config // as loaded by start
	command     string        // the command being run, for its help
	stopTracing func()        // flushes spans; set by start
	// tuneModels, when set, changes the models command's options (tests
	// replace the published figures, which random weights cannot meet).
	tuneModels func(*memorymain.ModelOptions)
}

type globalFlags struct {
	home    string
	verbose bool
	addr    string
	profile string
	version bool
}

func (g *globalFlags) register(fs *flag.FlagSet) {
	fs.Func("home", "data and config directory", g.setHome)
	fs.BoolVar(&g.verbose, "verbose", g.verbose, "debug logs on stderr")
	fs.StringVar(&g.addr, "addr", g.addr, "serve: HOST:PORT to listen on")
	fs.StringVar(&g.profile, "profile", g.profile, "mcp: tool surface, v2 (default) or v1 (read-only memory tree)")
	fs.BoolVar(&g.version, "version", g.version, "print the version")
}

// Run runs the command line args and returns the exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	defer func() {
		if m.stopTracing != nil {
			m.stopTracing() // after the command has stopped the services
		}
	}()
	var g globalFlags
	fs := flag.NewFlagSet("openhuman-core", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	if err := fs.Parse(args); err != nil {
		return m.usageError(err)
	}
	if g.version {
		return m.printVersion()
	}
	if fs.NArg() == 0 {
		fmt.Fprint(m.Stderr, usage)
		return exitUsage
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	m.command = cmd
	switch cmd { // commands with flags of their own
	case "ingest":
		return m.runIngest(ctx, g, rest)
	case "export":
		return m.runExport(ctx, g, rest)
	case "import":
		return m.runImport(ctx, g, rest)
	case "backup":
		return m.runBackup(ctx, g, rest)
	case "restore":
		return m.runRestore(ctx, g, rest)
	case "forget":
		return m.runForget(ctx, g, rest)
	case "models":
		return m.runModels(ctx, g, rest)
	}
	if cmd == "token" {
		return m.runToken(g, rest)
	}
	sub := flag.NewFlagSet(cmd, flag.ContinueOnError)
	sub.SetOutput(io.Discard)
	g.register(sub)
	if err := parseAnywhere(sub, rest); err != nil {
		return m.usageError(err)
	}
	if g.version {
		return m.printVersion()
	}
	return m.runPlain(ctx, g, cmd, sub.Args())
}

// noArguments are the commands that take no words of their own.
var noArguments = map[string]bool{"mcp": true, "serve": true, "buskeys": true, "healthcheck": true}

// runPlain runs a command whose only flags are the global ones.
func (m *Main) runPlain(ctx context.Context, g globalFlags, cmd string, words []string) int {
	if noArguments[cmd] && len(words) > 0 {
		return m.usageError(fmt.Errorf("%s takes no arguments, got %q", cmd, words))
	}
	if cmd == "serve" || cmd == "healthcheck" {
		if err := checkAddr(g.addr); err != nil {
			return m.usageError(err)
		}
	}
	switch cmd {
	case "version":
		return m.printVersion()
	case "mcp":
		if g.profile != "" && g.profile != contract.ProfileV1 && g.profile != contract.ProfileV2 {
			return m.usageError(fmt.Errorf("--profile %q: use v2 or v1", g.profile))
		}
		return m.runMCP(ctx, g)
	case "serve":
		return m.runServe(ctx, g)
	case "call":
		if err := checkCall(words); err != nil {
			return m.usageError(err)
		}
		words = append(words, "")
		return m.runCall(ctx, g, words[0], words[1])
	case "buskeys":
		return m.runBusKeys()
	case "healthcheck":
		return m.runHealthcheck(g)
	case "help":
		fmt.Fprint(m.Stdout, usage)
		return exitOK
	}
	return m.usageError(fmt.Errorf("unknown command %q", cmd))
}

func (m *Main) printVersion() int {
	fmt.Fprintln(m.Stdout, "openhuman-core", telemetry.Version)
	return exitOK
}

func (m *Main) usageError(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		if m.command != "" {
			fmt.Fprint(m.Stdout, commandHelp(m.command))
		} else {
			fmt.Fprint(m.Stdout, usage)
		}
		return exitOK
	}
	// The error alone, with where the usage is: sixty lines of it after
	// every slip would bury the one line that says what was wrong.
	if hint := flagHint(err); hint != "" {
		err = fmt.Errorf("%w: %s", err, hint)
	}
	where := "openhuman-core --help lists the commands and flags"
	if m.command != "" && commandHelp(m.command) != usage {
		where = "openhuman-core " + m.command + " --help says how to use it"
	}
	fmt.Fprintf(m.Stderr, "openhuman-core: %v\n(%s)\n", err, where)
	return exitUsage
}

// start loads configuration and brings up the system the gateway talks to.
func (m *Main) start(g globalFlags, quiet bool) (*gateway.Gateway, *embedded.System, *slog.Logger, error) {
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	m.cfg = cfg
	level := cfg.Log.Level
	if quiet && level == "info" {
		// A command's stderr is for its own errors; debug, asked for by
		// name, is given as asked.
		level = "warn"
	}
	log := telemetry.NewLogger(m.Stderr, level, g.verbose)
	run.WarnConfig(log, cfg, m.Environ)
	// One tracer provider for the process: in embedded mode the services
	// in it export their spans through it too.
	m.stopTracing = tracing.Start("openhuman-core", log)
	sys, err := embedded.Start(cfg, log)
	if err != nil {
		return nil, nil, nil, err
	}
	log.Debug("system up", "embedded", sys.Embedded, "home", cfg.Home, "config", cfg.File)
	profile := cfg.MCP.Profile
	if g.profile != "" {
		profile = g.profile
	}
	opts := sys.GatewayOptions(cfg)
	opts.Profile, opts.Observe, opts.Version = profile, telemetry.ToolCall, telemetry.Version
	gw := gateway.New(bus.NewClient(sys.NC, sys.Signer), opts)
	return gw, sys, log, nil
}

func (m *Main) runMCP(ctx context.Context, g globalFlags) int {
	gw, sys, log, err := m.start(g, false)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	srv := newMCPServer(gw, log)
	log.Info("serving MCP on stdio", "version", telemetry.Version, "embedded", sys.Embedded, "profile", gw.Profile())
	if err := srv.ServeStdio(ctx, m.Stdin, m.Stdout); err != nil {
		log.Error("reading stdin failed", "err", err)
		return exitFailure
	}
	return exitOK
}

func (m *Main) runServe(ctx context.Context, g globalFlags) int {
	gw, sys, log, err := m.start(g, false)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	telemetry.SetBuild("openhuman-core")
	addr := m.cfg.HTTP.Addr
	if g.addr != "" {
		addr = g.addr
	}
	ln, ok := m.listen(addr)
	if !ok {
		return exitFailure
	}
	proxies, err := clientaddr.ParseTrusted(m.cfg.HTTP.TrustedProxies)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: http.trusted_proxies:", err)
		return exitFailure
	}
	mcp := newMCPServer(gw, log)
	edge, authz, closeOAuth, err := newOAuth(m.cfg, log)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer closeOAuth()
	// One count of wrong tokens per client address, wherever presented.
	guard := failurelimit.DefaultGuard()
	con := newConsole(gw, m.cfg, authz, guard, log)
	defer con.Close()
	api := httpapi.New(gw, mcp, httpapi.Options{
		OAuth:                 edge,
		Tokens:                m.cfg.Auth.Tokens,
		ConfigFile:            m.cfg.File,
		APITokenFrom:          m.cfg.Auth.APITokenFrom,
		ListenAddr:            ln.Addr().String(),
		AllowedHosts:          append(publicHost(m.cfg), m.cfg.HTTP.AllowedHosts...),
		AllowNullOrigin:       m.cfg.HTTP.AllowNullOrigin,
		SessionIdle:           m.cfg.HTTP.SessionIdle(),
		MaxSessionsPerAddress: m.cfg.HTTP.MaxSessionsPerAddress,
		MaxSessionsPerToken:   m.cfg.HTTP.MaxSessionsPerToken,
		TrustedProxies:        proxies,
		SignInLimit:           guard,
		MaxBodyBytesInFlight:  int64(m.cfg.HTTP.MaxBodyBytesInFlight),
		Metrics:               telemetry.MetricsHandler(),
		Console:               con,
		Logger:                log,
	})
	srv := api.HTTPServer()
	errc := make(chan error, 1)
	// Connections stay below the descriptor limit, with room for newcomers
	// (/healthz among them) however many sit idle.
	go func() { errc <- connlimit.Serve(srv, ln, 0) }()
	url := servingURL(ln, addr)
	fmt.Fprintf(m.Stdout, "openhuman-core serving on %s  (console %s/console/, MCP %s/mcp, JSON-RPC %s/rpc, metrics %s/metrics)\n", url, url, url, url, url)
	if edge != nil {
		log.Info("remote clients sign in with OAuth", "resource", edge.Resource, "authorization_server", edge.Issuers[0], "built_in", authz != nil)
	}
	log.Info("serving HTTP", "url", url, "embedded", sys.Embedded, "version", telemetry.Version, "bearer_tokens", len(m.cfg.Auth.Tokens))
	select {
	case <-ctx.Done():
	case err := <-errc:
		log.Error("HTTP server stopped", "err", err)
		return exitFailure
	}
	shutDownServe(srv, sys, m.cfg.Shutdown.Grace(), log)
	return exitOK
}

// runHealthcheck asks serve's /readyz, at --addr or the configured
// address, for container healthchecks: an image FROM scratch has no curl.
func (m *Main) runHealthcheck(g globalFlags) int {
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		fmt.Fprintln(m.Stderr, "unhealthy: openhuman-core:", err)
		return exitFailure
	}
	addr := cfg.HTTP.Addr
	if g.addr != "" {
		addr = g.addr
	}
	return run.Healthcheck(addr, m.Stdout, m.Stderr)
}

func (m *Main) runCall(ctx context.Context, g globalFlags, tool, args string) int {
	if args == "-" {
		b, err := io.ReadAll(m.Stdin)
		if err != nil {
			fmt.Fprintln(m.Stderr, "openhuman-core: reading arguments from stdin:", err)
			return exitUsage
		}
		args = string(b)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		fmt.Fprintf(m.Stderr, "openhuman-core: the arguments are not valid JSON: %s\n", args)
		return exitUsage
	}
	gw, sys, _, err := m.start(g, true)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	defer sys.Close()
	raw, err := gw.CallTool(ctx, tool, json.RawMessage(args), contract.CallContext{Source: "cli", Transport: contract.TransportCLI})
	if err != nil {
		fmt.Fprintf(m.Stderr, "openhuman-core: %s failed: %s\n", tool, contract.ErrorMessage(err))
		if contract.ErrorCode(err) == contract.CodeInvalidRequest {
			return exitUsage
		}
		return exitFailure
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		fmt.Fprintln(m.Stdout, string(raw))
		return exitOK
	}
	enc := json.NewEncoder(m.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	return exitOK
}

// newConsole is the console serve mounts at /console/, signing in with the
// tokens /rpc takes.
func newConsole(gw *gateway.Gateway, cfg config.Config, authz *oauth.Server, guard *failurelimit.Guard, log *slog.Logger) *console.Console {
	var auth func(string) (string, []string, []string, bool)
	if len(cfg.Auth.Tokens) > 0 {
		auth = httpapi.Authenticator(cfg.Auth.Tokens)
	}
	// The connect page names the home for clients that start their own
	// server only when it is not the one they would use anyway.
	home := cfg.Home
	if u, err := os.UserHomeDir(); err == nil && home == filepath.Join(u, ".openhuman") {
		home = ""
	}
	opts := console.Options{Authenticate: auth, Home: home, Logger: log, SignInLimit: guard,
		// Behind a TLS proxy (an https public URL) the cookie is Secure.
		Sessions: websession.New(websession.Options{TTL: cfg.HTTP.ConsoleSession(), Secure: cfg.HTTP.ConsoleSecureCookies || strings.HasPrefix(cfg.HTTP.PublicURL, "https://")})}
	if authz != nil {
		opts.OAuth = authz
	}
	return console.New(gw, opts)
}

// newMCPServer serves gw's profile over MCP, stdio or HTTP alike.
func newMCPServer(gw *gateway.Gateway, log *slog.Logger) *mcpserver.Server {
	return mcpserver.New(gw, &mcpserver.Options{Version: telemetry.Version, Instructions: gateway.Instructions, Logger: log,
		ToolsOnly: gw.Profile() == contract.ProfileV1})
}
