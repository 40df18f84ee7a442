// Package embedded brings up what the gateway talks to. Without a NATS URL it
// starts an in-process NATS server and the memory, search and agents
// services on it (the embedded default); with one, it only connects, and the
// services run as their own processes. Either way the gateway gets a bus connection and
// uses it the same way.
package embedded

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/auditmain"
	"github.com/openhuman-go/openhuman-go/pkg/bus"
	busembedded "github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
	"github.com/openhuman-go/openhuman-go/services/agents/agentsmain"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

// starter starts one service on a connection.
type starter func(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error)

// embeddedServices are the services the embedded default runs in-process,
// each with its part of the bus's keys.
var embeddedServices = []struct {
	name  string
	start starter
	keys  func(bus.Keys) config.Bus
}{
	{"memory", memorymain.Start, bus.Keys.Service},
	{"search", searchmain.Start, bus.Keys.Service},
	{"agents", agentsmain.Start, bus.Keys.Agents},
}

// Expect names the services that must answer for the gateway to be ready:
// memory and agents always, search when a provider is configured for it.
func Expect(cfg config.Config) []string {
	out := []string{contract.ServiceMemory, contract.ServiceAgents}
	if len(cfg.UsableSearchProviders()) > 0 {
		out = append(out, contract.ServiceSearch)
	}
	return out
}

// System is the gateway's connection to the services, and whatever it had
// to start to have one.
type System struct {
	NC *nats.Conn
	// Signer signs the gateway's calls: with the seed of bus.signing_seed,
	// or in embedded mode a key made at start that only this process
	// holds.
	Signer   *callauth.Signer
	Embedded bool
	// Audit records the gateway's writes (nil when auditing is off).
	Audit    *audit.Recorder
	server   *busembedded.Server
	conns    []*nats.Conn
	services []io.Closer
	local    map[string]func() error // the in-process services' readiness
	grace    time.Duration           // how long Close waits for calls in flight
	once     sync.Once
}

// InboxPrefix begins the subjects the gateway's replies come to; NATS
// permissions let no other user read them (deploy/nats/auth.conf).
const InboxPrefix = "_INBOX_gateway"

// maxPayload lets results of up to 100 large items cross the embedded bus.
const maxPayload = 8 << 20

// Start connects to cfg's NATS, or starts the embedded system when none is set.
func Start(cfg config.Config, log *slog.Logger) (*System, error) {
	// The home holds memory and the audit: nobody else's to read.
	tightened, err := sqlitefile.PrivateDir(cfg.Home)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", cfg.Home, err)
	}
	if tightened {
		log.Info("the home was open to other users: made it 0700", "home", cfg.Home)
	}
	rec, err := auditmain.Open(cfg, log)
	if err != nil {
		return nil, fmt.Errorf("opening the audit log: %w", err)
	}
	if cfg.NATS.URL != "" {
		signer, err := bus.SignerOf(cfg.Bus, false)
		if err != nil {
			closeAudit(rec)
			return nil, fmt.Errorf("%w (unset OPENHUMAN_NATS_URL to run everything in this process)", err)
		}
		nc, err := bus.Connect(cfg.NATS, "openhuman-core", log, nats.CustomInboxPrefix(InboxPrefix))
		if err != nil {
			closeAudit(rec)
			return nil, fmt.Errorf("%w (unset OPENHUMAN_NATS_URL to run everything in this process)", err)
		}
		return &System{NC: nc, Signer: signer, Audit: rec, grace: cfg.Shutdown.Grace()}, nil
	}
	// One process: its own HMAC keys, which nothing outside it sees.
	keys := bus.NewEmbeddedKeys()
	srv, err := busembedded.Start(busembedded.Options{MaxPayload: maxPayload})
	if err != nil {
		closeAudit(rec)
		return nil, err
	}
	s := &System{Embedded: true, Signer: keys.GatewaySigner(), server: srv, Audit: rec, grace: cfg.Shutdown.Grace()}
	for _, svc := range embeddedServices {
		// Each service gets its own connection, exactly as if it ran in its
		// own process.
		nc, err := srv.Connect("openhuman-"+svc.name, log)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.conns = append(s.conns, nc)
		scfg := cfg
		scfg.Bus = svc.keys(keys)
		closer, err := svc.start(nc, scfg, log.With("service", svc.name))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("starting the %s service: %w", svc.name, err)
		}
		s.services = append(s.services, closer)
		// What the gateway asks over the bus (pings, store health) it
		// does not ask here again: only whether a handler is stuck.
		if f, ok := closer.(interface{ Failing() error }); ok {
			if s.local == nil {
				s.local = map[string]func() error{}
			}
			s.local[svc.name] = f.Failing
		}
	}
	if s.NC, err = srv.Connect("openhuman-core", log); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close is Shutdown within the configured shutdown grace period.
func (s *System) Close() error {
	grace := s.grace
	if grace <= 0 {
		grace = 20 * time.Second // shutdown.grace_seconds' default
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return s.Shutdown(ctx)
}

// Shutdown stops the services (each finishing its requests in flight until
// ctx ends), then the connections and the embedded server. A handler stuck
// for good must not keep the process from exiting: past ctx its service is
// left behind, and what it was doing is lost as it would be to a kill.
// Only the first call does anything.
func (s *System) Shutdown(ctx context.Context) error {
	var errs []error
	s.once.Do(func() {
		errs = append(errs, s.stopServices(ctx))
		if s.NC != nil {
			s.NC.Close()
		}
		for _, nc := range s.conns {
			nc.Close()
		}
		if s.server != nil {
			s.server.Shutdown()
		}
		errs = append(errs, closeAudit(s.Audit))
	})
	return errors.Join(errs...)
}

// stopServices closes the services, last started first, until ctx ends.
func (s *System) stopServices(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		var errs []error
		for i := len(s.services) - 1; i >= 0; i-- {
			errs = append(errs, s.services[i].Close())
		}
		done <- errors.Join(errs...)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errors.New("services still handling calls at the end of the shutdown grace period were cut off: " +
			"raise OPENHUMAN_SHUTDOWN_GRACE_SECONDS if they must finish")
	}
}

func closeAudit(rec *audit.Recorder) error {
	if rec == nil {
		return nil
	}
	return rec.Close()
}

// GatewayOptions are the gateway's options from cfg: timeouts, the act
// gate, the audit log, and the services readiness waits for. Callers add
// the profile, the metrics hook and the version.
func (s *System) GatewayOptions(cfg config.Config) gateway.Options {
	policy := gateway.NewPolicy(cfg.Policy.Autonomy, cfg.Policy.MaxActionsPerHour)
	policy.ApprovalMode = cfg.Approval.Mode
	for _, t := range cfg.Auth.Tokens {
		policy.Tokens = append(policy.Tokens, gateway.Token{Name: t.Name, Scopes: t.Scopes, Workspaces: t.Workspaces})
	}
	return gateway.Options{
		Timeout: cfg.Tools.Timeout(),
		// A run's own deadline ends it first, with what it has done so far.
		ToolTimeouts: map[string]time.Duration{"agent.run_subagent": cfg.Agents.Timeout() + 5*time.Second},
		Policy:       policy,
		Audit:        s.Audit,
		Local:        s.local,
		Providers:    cfg.CapabilityProviders,
		Expect:       Expect(cfg),
		StateKey:     stateKey(s, cfg),
	}
}

// stateKey is the key of MCP requestState (gateway.Options.StateKey): in
// distributed mode derived from the gateway's signing seed, which every
// gateway replica holds, so a retry may reach any of them; embedded, nil
// (the gateway makes its own, as its bus keys are made at each start).
func stateKey(s *System, cfg config.Config) []byte {
	seed, err := cfg.Bus.Seed()
	if s.Embedded || err != nil || seed == "" {
		return nil
	}
	m := hmac.New(sha256.New, []byte(seed))
	m.Write([]byte("openhuman mcp requestState"))
	return m.Sum(nil)
}
