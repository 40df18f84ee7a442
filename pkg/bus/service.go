package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/telemetry"
)

// Handler serves one method. params have passed the endpoint's Input schema
// when it has one. A returned error that is not a *contract.Error is reported
// as INTERNAL and its text only logged.
type Handler func(ctx context.Context, params json.RawMessage, cc contract.CallContext) (any, error)

// Endpoint is one method of a service.
type Endpoint struct {
	Handler Handler
	// Input, when set, is enforced before Handler runs, so a service never
	// trusts that its caller validated.
	Input *contract.Schema
}

// Typed adapts a handler that takes decoded params. Decoding cannot fail on
// input that passed the schema, but is checked anyway rather than trusted.
func Typed[P any](input *contract.Schema, h func(context.Context, P, contract.CallContext) (any, error)) Endpoint {
	return Endpoint{
		Input: input,
		Handler: func(ctx context.Context, raw json.RawMessage, cc contract.CallContext) (any, error) {
			var p P
			if len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &p); err != nil {
					return nil, contract.Errorf(contract.CodeInvalidRequest, "decoding arguments: %v", err)
				}
			}
			return h(ctx, p, cc)
		},
	}
}

// ForTool is Typed with the input schema of a catalog tool.
func ForTool[P any](tool string, h func(context.Context, P, contract.CallContext) (any, error)) Endpoint {
	t, ok := contract.ToolByName(tool)
	if !ok {
		panic("bus.ForTool: no tool " + tool + " in the contract catalog")
	}
	return Typed(t.Input, h)
}

// ServiceConfig describes a service to register. The zero value of every
// optional field works.
type ServiceConfig struct {
	Name        string // contract.ServiceMemory, ...
	Version     string // semver
	Description string
	Endpoints   map[string]Endpoint
	// MaxConcurrent caps requests handled at once (default 64); more wait in
	// the subscription's pending queue.
	MaxConcurrent int
	// MaxTimeout caps the deadline a request may ask for (default 10 minutes).
	MaxTimeout time.Duration
	Logger     *slog.Logger
}

// Service is a registered service. Stop it to leave the queue group and wait
// for requests in flight.
type Service struct {
	micro   micro.Service
	nc      *nats.Conn
	cfg     ServiceConfig
	sem     chan struct{}
	work    chan func() // idle workers take requests from here
	mu      sync.Mutex  // guards stopped and wg.Add against Stop's wg.Wait
	stopped bool
	wg      sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
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
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Logger = cfg.Logger.With("service", cfg.Name)
	ms, err := micro.AddService(nc, micro.Config{
		Name:        cfg.Name,
		Version:     cfg.Version,
		Description: cfg.Description,
		QueueGroup:  contract.QueueGroup,
	})
	if err != nil {
		return nil, fmt.Errorf("registering %s service: %w", cfg.Name, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Service{micro: ms, nc: nc, cfg: cfg, sem: make(chan struct{}, cfg.MaxConcurrent), work: make(chan func()), ctx: ctx, stop: stop}
	group := ms.AddGroup(contract.SubjectPrefix + "." + cfg.Name)
	for method, ep := range cfg.Endpoints {
		ep, method := ep, method
		h := micro.HandlerFunc(func(r micro.Request) { s.dispatch(method, ep, r) })
		if err := group.AddEndpoint(method, h); err != nil {
			_ = ms.Stop()
			stop()
			return nil, fmt.Errorf("registering %s.%s: %w", cfg.Name, method, err)
		}
	}
	// A round trip to the server makes sure it has processed our
	// subscriptions: once Serve returns, a request from any connection
	// reaches the service instead of finding no responders.
	if err := nc.Flush(); err != nil {
		_ = ms.Stop()
		stop()
		return nil, fmt.Errorf("registering %s: %w", cfg.Name, err)
	}
	return s, nil
}

// Info is the service's micro INFO.
func (s *Service) Info() micro.Info { return s.micro.Info() }

// Stop leaves the queue group, so no new request arrives, then waits for the
// requests in flight to be answered.
func (s *Service) Stop() error {
	err := s.micro.Stop()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.wg.Wait()
	s.stop()
	return err
}

// dispatch runs each request on a goroutine of its own (an idle worker's,
// or a new one): micro delivers a subscription's messages one at a time,
// and one slow call (an agent run, a web search) must not hold up the
// others. Replies are published directly rather than through r.Respond,
// which micro's own bookkeeping reads without a lock after the handler
// returns.
func (s *Service) dispatch(method string, ep Endpoint, r micro.Request) {
	reply := r.Reply()
	data := r.Data()
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		// Drained after Stop: answer at once so the caller can retry elsewhere.
		s.respond(reply, contract.Reply{Error: contract.Errorf(contract.CodeUnavailable,
			"the %s service is shutting down; retry", s.cfg.Name)})
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	s.sem <- struct{}{}
	job := func() {
		defer func() { <-s.sem; s.wg.Done() }()
		start := time.Now()
		inFlight := serviceInFlight.WithLabelValues(s.cfg.Name)
		inFlight.Inc()
		r := s.handle(method, ep, data)
		s.respond(reply, r)
		inFlight.Dec()
		var err error
		if r.Error != nil {
			err = r.Error
		}
		serviceDuration.WithLabelValues(s.cfg.Name, method).Observe(time.Since(start).Seconds())
		serviceRequests.WithLabelValues(s.cfg.Name, method, telemetry.Outcome(err)).Inc()
	}
	select {
	case s.work <- job:
	default:
		go s.worker(job)
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

func (s *Service) handle(method string, ep Endpoint, data []byte) (reply contract.Reply) {
	start := time.Now()
	var req contract.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return contract.Reply{Error: contract.Errorf(contract.CodeInvalidRequest,
			"%s.%s: the request is not a JSON envelope {params, ctx}: %v", s.cfg.Name, method, err)}
	}
	params := req.Params
	if ep.Input != nil {
		args, err := contract.DecodeArguments(params)
		if err == nil {
			err = ep.Input.Validate(args)
		}
		if err != nil {
			return contract.Reply{Error: contract.AsError(err)}
		}
		params, _ = json.Marshal(args)
	}
	timeout := req.Ctx.Timeout()
	if timeout <= 0 || timeout > s.cfg.MaxTimeout {
		timeout = s.cfg.MaxTimeout
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logger.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			reply = contract.Reply{Error: contract.Errorf(contract.CodeInternal,
				"%s.%s crashed while handling this request; the service is still running and the crash is in its log", s.cfg.Name, method)}
		}
	}()
	result, err := ep.Handler(ctx, params, req.Ctx)
	if err != nil {
		if contract.ErrorCode(err) == contract.CodeInternal {
			s.cfg.Logger.Error("handler failed", "method", method, "source", req.Ctx.Source, "err", err)
		} else {
			s.cfg.Logger.Debug("handler refused", "method", method, "source", req.Ctx.Source, "err", err)
		}
		return contract.Reply{Error: contract.AsError(err)}
	}
	raw, ok := result.(json.RawMessage)
	if !ok {
		if raw, err = Marshal(result); err != nil {
			s.cfg.Logger.Error("encoding result", "method", method, "err", err)
			return contract.Reply{Error: contract.Errorf(contract.CodeInternal, "%s.%s produced a result it cannot encode", s.cfg.Name, method)}
		}
	}
	s.cfg.Logger.Debug("handled", "method", method, "source", req.Ctx.Source, "took", time.Since(start))
	return contract.Reply{Result: raw}
}

func (s *Service) respond(subject string, reply contract.Reply) {
	if subject == "" {
		return // a publish, not a request: nobody waits for an answer
	}
	var body []byte
	var err error
	if reply.Error == nil {
		body = contract.EncodeResult(reply.Result)
	} else {
		body, err = Marshal(reply)
	}
	if err == nil && s.nc.MaxPayload() > 0 && int64(len(body)) > s.nc.MaxPayload() {
		reply = contract.Reply{Error: contract.Errorf(contract.CodeEngine,
			"the result is %d bytes, over the NATS message limit of %d bytes: ask for fewer items", len(body), s.nc.MaxPayload())}
		body, err = Marshal(reply)
	}
	if err != nil {
		s.cfg.Logger.Error("encoding reply", "err", err)
		return
	}
	msg := &nats.Msg{Subject: subject, Data: body}
	if reply.Error != nil {
		msg.Header = nats.Header{micro.ErrorCodeHeader: {string(reply.Error.Code)}, micro.ErrorHeader: {reply.Error.Message}}
	}
	if err := s.nc.PublishMsg(msg); err != nil {
		s.cfg.Logger.Error("sending reply", "subject", subject, "err", err)
	}
}

// Marshal encodes v as compact JSON without escaping <, > and &: results are
// read by people and models, not embedded in HTML.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
