package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/bufpool"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// Endpoint is a handler bound to the contract endpoint it serves. Build
// one with Handle.
type Endpoint struct {
	def  contract.Endpoint
	call func(ctx context.Context, args map[string]any, cc contract.CallContext) (any, error)
}

// Handle binds h to the contract endpoint def (a catalog tool's
// Endpoint(), or one of the contract's other methods). The service checks
// every request against def.Input itself, whoever sent it, and binds the
// checked arguments to P: a request's bytes are decoded once. P is the
// contract type def.Input is generated from, so the two cannot drift.
//
// A returned error that is not a *contract.Error is reported as INTERNAL and
// its text only logged.
func Handle[P any](def contract.Endpoint, h func(context.Context, P, contract.CallContext) (any, error)) Endpoint {
	return Endpoint{
		def: def,
		call: func(ctx context.Context, args map[string]any, cc contract.CallContext) (any, error) {
			var p P
			if err := contract.Bind(args, &p); err != nil {
				return nil, err
			}
			return h(ctx, p, cc)
		},
	}
}

// ServiceConfig describes a service to register. The zero value of every
// optional field works.
type ServiceConfig struct {
	Name        string // contract.ServiceMemory, ...
	Version     string // semver
	Description string
	Endpoints   []Endpoint
	// MaxConcurrent caps requests handled at once (default 64). Up to
	// queuedPerWorker times as many more wait their turn, heartbeating;
	// past that they wait in the subscription's pending queue.
	MaxConcurrent int
	// MaxTimeout caps the deadline a request may ask for (default 10 minutes).
	MaxTimeout time.Duration
	// StuckAfter is how long past its deadline a handler may run before
	// Failing reports the service stuck (default 10 seconds).
	StuckAfter time.Duration
	// Checks are how the service checks each request's signed call
	// context (pkg/callauth); Serve refuses to start without the
	// gateway's key.
	Checks Checks
	// Logger logs the service's failures. Whoever starts the service
	// labels it with service=<name> (the embedded system and run.Service
	// do), so that the service's own start-up lines carry the label too;
	// Serve does not add it again.
	Logger *slog.Logger
}

// Service is a registered service. Stop it to leave the queue group and wait
// for requests in flight.
type Service struct {
	reg      registration
	nc       *nats.Conn
	cfg      ServiceConfig
	verifier *callauth.Verifier
	replies  *callauth.ReplyKeys // seals answers to signed requests
	sem      chan struct{}       // a slot per request being handled
	queue    chan struct{}       // a slot per request taken from the subscription
	beats    *beats
	work     chan func() // idle workers take requests from here
	mu       sync.Mutex  // guards stopped and wg.Add against Stop's wg.Wait
	stopped  bool
	wg       sync.WaitGroup
	ctx      context.Context
	stop     context.CancelFunc
	stats    map[string]*endpointStats // by method; only read once micro runs
	warned   sync.Map                  // kinds of reply subject refused and logged
	handling handling                  // calls being handled, for Failing
}

// Serve registers cfg's endpoints on nc with nats.go micro, under
// openhuman.<name>.<method> in the contract.QueueGroup queue group.
func Serve(nc *nats.Conn, cfg ServiceConfig) (*Service, error) {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 64
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = 10 * time.Minute
	}
	if cfg.StuckAfter <= 0 {
		cfg.StuckAfter = defaultStuckAfter
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Checks.Trust.Gateway == "" {
		return nil, fmt.Errorf("registering %s service: %w", cfg.Name, ErrNoGatewayKey)
	}
	verifier, err := callauth.NewVerifier(cfg.Checks.Trust, cfg.Checks.Nonces)
	if err != nil {
		return nil, fmt.Errorf("registering %s service: %w", cfg.Name, err)
	}
	for _, ep := range cfg.Endpoints {
		if ep.def.Service != cfg.Name {
			return nil, fmt.Errorf("registering %s.%s: the contract puts it in the %s service", cfg.Name, ep.def.Method, ep.def.Service)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	replies := callauth.NewReplyKeys()
	s := &Service{nc: nc, cfg: cfg, verifier: verifier, replies: replies, sem: make(chan struct{}, cfg.MaxConcurrent),
		queue: make(chan struct{}, cfg.MaxConcurrent*queuedPerWorker), beats: newBeats(nc, cfg.Logger, replies),
		work: make(chan func()), ctx: ctx, stop: stop, stats: map[string]*endpointStats{}}
	for _, ep := range cfg.Endpoints {
		s.stats[ep.def.Method] = newEndpointStats(cfg.Name, ep.def.Method)
	}
	if err := s.register(); err != nil {
		stop()
		return nil, err
	}
	// Heartbeats go on until Stop has answered every request in flight.
	go s.beats.run(ctx)
	// A round trip to the server makes sure it has processed our
	// subscriptions: once Serve returns, a request from any connection
	// reaches the service instead of finding no responders.
	if err := nc.Flush(); err != nil {
		_ = s.unregister()
		stop()
		return nil, fmt.Errorf("registering %s: %w", cfg.Name, err)
	}
	return s, nil
}

// Stop leaves the queue group, so no new request arrives, then waits for the
// requests in flight to be answered.
func (s *Service) Stop() error {
	err := s.unregister()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.wg.Wait()
	s.stop()
	return err
}

// dispatch runs each request on a goroutine of its own (an idle worker's,
// or a new one): a subscription delivers its messages one at a time, and
// one slow call (an agent run, a web search) must not hold up the others.
func (s *Service) dispatch(ep *Endpoint, st *endpointStats, r *nats.Msg) {
	reply := r.Reply
	if reply != "" && !strings.HasPrefix(reply, replyPrefix) {
		s.refuseReply(ep.def.Method, reply)
		return
	}
	data := r.Data
	hdr := r.Header
	beating := reply != "" && hdr.Get(HeartbeatHeader) == heartbeatAsk
	to := replyToOf(hdr)
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		// Drained after Stop: answer at once so the caller can retry
		// elsewhere; nothing of the call was done.
		if _, err := s.verifier.Check(s.ctx, r.Subject, reply, data, hdr.Get(callauth.Header), hdr.Get(callauth.ParentHeader)); err != nil && !callauth.Sealable(err) {
			to = replyTo{}
		}
		s.respond(reply, to, nil, contract.Reply{Error: contract.Errorf(contract.CodeUnavailable,
			"the %s service is shutting down; retry", s.cfg.Name).With("reason", contract.ReasonReplicaStopping)}, nil)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	// A request waiting for a free slot is held, and heartbeats like one
	// being handled: its caller must not take a busy replica for a dead one.
	s.queue <- struct{}{}
	var held *heldCall
	if beating {
		held = s.beats.hold(reply, to)
	}
	job := func() {
		defer func() { <-s.queue; s.wg.Done() }()
		s.sem <- struct{}{}
		defer func() { <-s.sem }()
		start := time.Now()
		st.inFlight.Inc()
		span := s.startSpan(r.Subject, hdr)
		r, body, to := s.serve(ep, request{subject: r.Subject, reply: reply, data: data,
			auth: hdr.Get(callauth.Header), parent: hdr.Get(callauth.ParentHeader), span: span}, to)
		if r.Error != nil {
			tracing.Fail(span, r.Error)
		}
		span.End()
		// Counted before the reply leaves: a caller that asks $SRV.STATS
		// or scrapes once answered finds its request among them.
		took := time.Since(start)
		st.record(took, r.Error)
		st.duration.Observe(took.Seconds())
		if r.Error == nil {
			st.ok.Inc()
		} else {
			serviceRequests.WithLabelValues(s.cfg.Name, ep.def.Method, telemetry.Outcome(r.Error)).Inc()
		}
		s.respond(reply, to, held, r, body)
		st.inFlight.Dec()
	}
	select {
	case s.work <- job:
	default:
		go s.worker(job)
	}
}

// replyPrefix begins every subject a service answers on: nats.go's
// default inbox prefix, which custom prefixes (_INBOX_memory.) extend.
// The server lets a service publish to whatever reply subject a request
// names, and a service heartbeats a held request with empty messages: a
// caller naming $JS.API.STREAM.DELETE.<stream> as its reply would have the
// service delete that stream. So a request whose reply subject is not an
// inbox is dropped unanswered.
const replyPrefix = "_INBOX"

// refuseReply drops a request whose reply subject is not an inbox; it is
// counted, and logged once per kind of subject (its first token) so that
// a caller sending many cannot flood the log.
func (s *Service) refuseReply(method, reply string) {
	repliesRefused.WithLabelValues(s.cfg.Name, method).Inc()
	kind, _, _ := strings.Cut(reply, ".")
	if _, logged := s.warned.LoadOrStore(kind, struct{}{}); !logged {
		s.cfg.Logger.Warn("dropped a request whose reply subject is not an inbox; further ones of this kind are only counted in openhuman_service_replies_refused_total",
			"method", method, "reply_subject", reply, "inbox_prefix", replyPrefix)
	}
}

// worker runs job, then further requests as they come, until none has come
// for a while. A goroutine's stack grows to what a call needs (SQLite's
// interpreter alone needs tens of KB) and a new one starts small, so
// reusing them saves growing a stack for every request.
func (s *Service) worker(job func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		job()
		idle.Reset(workerIdle)
		select {
		case job = <-s.work:
		case <-idle.C:
			return
		case <-s.ctx.Done(): // stopped
			return
		}
	}
}

const workerIdle = 10 * time.Second

// queuedPerWorker bounds the requests a service takes from its subscription
// ahead of a free slot, per slot.
const queuedPerWorker = 4

// serve checks a request's signature, then handles it. Its answer is
// sealed for the reply key its proof names only once a trusted key's
// signature holds (callauth.Sealable) and, but for a signed refusal, the
// request is fresh: an answer to a forged or replayed request goes
// unsealed, and no signed caller takes it.
func (s *Service) serve(ep *Endpoint, m request, to replyTo) (contract.Reply, *[]byte, replyTo) {
	// The signature first: a request nobody trusted signed costs a hash of
	// its bytes, not their parse.
	checked, err := s.verifier.Check(s.ctx, m.subject, m.reply, m.data, m.auth, m.parent)
	if err != nil {
		if !callauth.Sealable(err) {
			to = replyTo{}
		}
		return contract.Reply{Error: contract.AsError(err)}, nil, to
	}
	r, body := s.handle(ep, m, checked)
	return r, body, to
}

// handle answers one request whose signature holds (checked). Its bytes
// are decoded once, envelope and arguments together;
// the call context is believed only once it is the one signed, and the
// arguments are checked against the
// endpoint's schema and bound to the handler's params struct from the
// decoded value. A result comes with its reply's bytes, written into a
// buffer of replyBodies that respond gives back.
func (s *Service) handle(ep *Endpoint, m request, checked *callauth.Checked) (reply contract.Reply, body *[]byte) {
	start := time.Now()
	method := ep.def.Method
	data := m.data
	var req struct {
		Params any                  `json:"params"`
		Ctx    contract.CallContext `json:"ctx"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(&req)
	if err == nil && dec.InputOffset() != int64(len(bytes.TrimRight(data, " \t\r\n"))) {
		err = errors.New("data after the envelope")
	}
	if err != nil {
		return contract.Reply{Error: contract.Errorf(contract.CodeInvalidRequest,
			"%s.%s: the request is not a JSON envelope {params, ctx}: %v", s.cfg.Name, method, err)}, nil
	}
	grant, err := checked.Bind(req.Ctx)
	if err != nil {
		return contract.Reply{Error: contract.AsError(err)}, nil
	}
	if scope := ep.def.NeedsScope(); !req.Ctx.Holds(scope) {
		return contract.Reply{Error: contract.Errorf(contract.CodeDenied,
			"%s.%s needs scope %q, which the caller's token does not hold", s.cfg.Name, method, scope).With("scope", scope)}, nil
	}
	args, err := contract.Arguments(req.Params)
	if err == nil {
		err = ep.def.Input.Validate(args)
	}
	if err != nil {
		e := contract.AsError(err)
		if ep.def.Tool != "" {
			e = e.With("tool", ep.def.Tool)
		}
		return contract.Reply{Error: e}, nil
	}
	timeout := req.Ctx.Timeout()
	if timeout <= 0 || timeout > s.cfg.MaxTimeout {
		timeout = s.cfg.MaxTimeout
	}
	base := s.ctx
	if m.span != nil {
		base = trace.ContextWithSpan(base, m.span)
	}
	ctx, cancel := context.WithTimeout(callauth.NewContext(base, grant), timeout)
	defer cancel()
	call := s.handling.begin(method, time.Now().Add(timeout))
	defer s.handling.end(call)
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logger.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			reply, body = contract.Reply{Error: contract.Errorf(contract.CodeInternal,
				"%s.%s crashed while handling this request; the service is still running and the crash is in its log", s.cfg.Name, method)}, nil
		}
	}()
	result, err := ep.call(ctx, args, req.Ctx)
	if err != nil {
		if contract.ErrorCode(err) == contract.CodeInternal {
			s.cfg.Logger.Error("handler failed", "method", method, "source", req.Ctx.Source, "err", err)
		} else {
			s.cfg.Logger.Debug("handler refused", "method", method, "source", req.Ctx.Source, "err", err)
		}
		return contract.Reply{Error: contract.AsError(err)}, nil
	}
	body = replyBodies.Get()
	b := append(*body, resultPrefix...)
	if raw, ok := result.(json.RawMessage); ok {
		b = append(b, raw...)
	} else if b, err = contract.AppendMarshal(b, result); err != nil {
		replyBodies.Put(body, b)
		s.cfg.Logger.Error("encoding result", "method", method, "err", err)
		return contract.Reply{Error: contract.Errorf(contract.CodeInternal, "%s.%s produced a result it cannot encode", s.cfg.Name, method)}, nil
	}
	*body = append(b, '}')
	s.cfg.Logger.Debug("handled", "method", method, "source", req.Ctx.Source, "took", time.Since(start))
	return contract.Reply{Result: b[len(resultPrefix):]}, body
}

// resultPrefix begins a result's reply, as contract.EncodeResult writes it.
const resultPrefix = `{"result":`

// replyBodies hold replies being written; a reply is done with once
// published (nats.go copies it).
var replyBodies = bufpool.New(16<<10, 1<<20)

// respond answers a request, sealed for to: with pooled, when handle
// wrote the reply, else with reply encoded here; pooled goes back to
// replyBodies. The heartbeats of held, if it was held, stop.
func (s *Service) respond(subject string, to replyTo, held *heldCall, reply contract.Reply, pooled *[]byte) {
	if pooled != nil {
		defer replyBodies.Put(pooled, *pooled)
	}
	if subject == "" {
		return // a publish, not a request: nobody waits for an answer
	}
	s.beats.release(held)
	var body []byte
	var err error
	switch {
	case pooled != nil:
		body = *pooled
	case reply.Error == nil:
		body = contract.EncodeResult(reply.Result)
	default:
		body, err = contract.Marshal(reply)
	}
	if err == nil && s.nc.MaxPayload() > 0 && int64(len(body)+sealOverhead) > s.nc.MaxPayload() {
		reply = contract.Reply{Error: contract.Errorf(contract.CodeEngine,
			"the result is %d bytes, over the NATS message limit of %d bytes: ask for fewer items", len(body), s.nc.MaxPayload())}
		body, err = contract.Marshal(reply)
	}
	if err != nil {
		s.cfg.Logger.Error("encoding reply", "err", err)
		return
	}
	var hdr nats.Header
	if reply.Error != nil && !to.sealed() {
		// Sealed, an error says nothing outside its seal.
		hdr = nats.Header{micro.ErrorCodeHeader: {string(reply.Error.Code)}, micro.ErrorHeader: {reply.Error.Message}}
	}
	msg := seal(s.replies, callauth.KindReply, to, subject, body, hdr)
	if err := s.nc.PublishMsg(msg); err != nil {
		s.cfg.Logger.Error("sending reply", "subject", subject, "err", err)
	}
}

// Tool is the name of the catalog tool the endpoint serves, "" for the
// contract's other methods.
func (e Endpoint) Tool() string { return e.def.Tool }
