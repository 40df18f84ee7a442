// Package agentsmain starts the agents service from configuration on a NATS
// connection: the language model, the approval gate (parked calls in Redis
// when configured, else in the process) and the audit trail. The
// openhuman-agents binary and the gateway's embedded mode both call it.
package agentsmain

import (
	"errors"
	"io"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/audit/auditmain"
	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/callauth/callauthmain"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/services/agents"
	"github.com/openhuman-go/openhuman-go/services/agents/natsbus"
	"github.com/openhuman-go/openhuman-go/services/agents/redis"
)

// InboxPrefix begins the subjects the agents service's replies come to
// (the answers to a sub-agent's calls); NATS permissions give it to the
// agents user alone.
const InboxPrefix = "_INBOX_agents"

type server struct {
	svc     *bus.Service
	closers []io.Closer
}

// Start serves the agents service on nc.
func Start(nc *nats.Conn, cfg config.Config, log *slog.Logger) (io.Closer, error) {
	s := &server{}
	rec, err := auditmain.Open(cfg, log)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		s.closers = append(s.closers, rec)
	}
	var store agents.Approvals = agents.NewMemoryApprovals()
	var results agents.Results = agents.NewMemoryResults()
	var rc *redisconn.Client
	if cfg.Redis.URL != "" {
		client, err := redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.closers = append(s.closers, client)
		store = redis.NewApprovals(client)
		results = redis.NewResults(client)
		rc = client
	}
	// A run sent again, to another replica or after a restart, would run
	// again.
	checks, closer, err := callauthmain.Checks(cfg, rc)
	if closer != nil {
		s.closers = append(s.closers, closer)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	gate := agents.NewGate(cfg.Approval.Mode, store, cfg.Approval.Timeout()).WithLogger(log)
	opts := agents.RunnerOptions{
		ModelName: cfg.LLM.Model, Models: cfg.Agents.Models,
		Timeout: cfg.Agents.Timeout(), MaxToolResult: cfg.Agents.MaxToolResultBytes,
		Approval: gate, Audit: rec, Results: results, Logger: log,
	}
	if cfg.LLM.Configured() {
		opts.Model = llm.New(cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.APIKey, cfg.LLM.Timeout())
	} else {
		log.Info("no language model is configured: agent.run_subagent answers NO_MODEL until [llm] model is set")
	}
	// The agents service calls memory and search only for the caller of
	// a run, within what that caller's signed call holds.
	signer, err := bus.SignerOf(cfg.Bus, true)
	if err != nil {
		s.Close()
		return nil, err
	}
	runner := agents.NewRunner(natsbus.Tools(bus.NewClient(nc, signer)), opts)
	svc, err := natsbus.Serve(nc, runner, gate, telemetry.Version, checks, log)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.svc = svc
	return s, nil
}

// Ready is nil unless a handler of the service is stuck past its
// deadline: its readiness then fails, so that it is restarted.
func (s *server) Ready() error { return s.Failing() }

// Failing is nil unless a handler of the service is stuck past its
// deadline (bus.Service.Failing).
func (s *server) Failing() error { return s.svc.Failing() }

// Close stops taking requests, waits for those in flight, then closes the
// audit log and Redis.
func (s *server) Close() error {
	var errs []error
	if s.svc != nil {
		errs = append(errs, s.svc.Stop())
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i].Close())
	}
	return errors.Join(errs...)
}
