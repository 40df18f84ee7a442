package bus

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/tracing"
)

// DefaultTimeout bounds a call whose context carries no deadline.
const DefaultTimeout = contract.DefaultCallTimeout

// Client sends requests to services, each signed by its signer.
type Client struct {
	nc     *nats.Conn
	signer *callauth.Signer

	once     sync.Once
	replies  *inbox
	inboxErr error
}

// NewClient wraps a connection. Its requests are signed by signer: the
// gateway's, or a delegate's (the agents service's), since a service
// refuses a call whose context nobody it trusts signed. A client with a
// nil signer can only ask what is served (Served, Ping).
func NewClient(nc *nats.Conn, signer *callauth.Signer) *Client {
	return &Client{nc: nc, signer: signer}
}

// inbox subscribes to the client's replies on first use.
func (c *Client) inbox() (*inbox, error) {
	c.once.Do(func() { c.replies, c.inboxErr = newInbox(c.nc) })
	return c.replies, c.inboxErr
}

// Conn returns the underlying connection.
func (c *Client) Conn() *nats.Conn { return c.nc }

// Call sends params to service.method and returns the raw result. Failures are
// always *contract.Error: the service's own, or UNAVAILABLE when nobody answers
// in time or the replica holding the call stops answering. A call is sent
// again only when its replica refused it while stopping; CallEndpoint and
// CallTool also retry a call the contract says may be repeated.
func (c *Client) Call(ctx context.Context, service, method string, params any, cc contract.CallContext) (json.RawMessage, error) {
	return c.call(ctx, contract.Endpoint{Service: service, Method: method}, params, cc)
}

// CallEndpoint calls ep. When the replica holding the call stops answering
// and ep is Retryable, the call is sent once more, to whichever replica
// takes it; otherwise it fails as UNAVAILABLE saying it may have been
// partly done.
func (c *Client) CallEndpoint(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (json.RawMessage, error) {
	return c.call(ctx, ep, params, cc)
}

func (c *Client) call(ctx context.Context, ep contract.Endpoint, params any, cc contract.CallContext) (_ json.RawMessage, err error) {
	subject := ep.Subject()
	// The bus hop's span: its context rides the request's headers, so the
	// replica's span is its child.
	ctx, span := tracing.Tracer().Start(ctx, "bus "+subject, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("messaging.system", "nats"), attribute.String("messaging.destination.name", subject)))
	defer func() { tracing.Fail(span, err); span.End() }()
	raw, ok := params.(json.RawMessage)
	// Arguments are written into the envelope as they are, so they must be
	// one JSON value: `{}, "ctx": {...}` would otherwise add members to the
	// envelope itself. Transports have parsed them already; this guards
	// every other caller.
	if ok && len(raw) > 0 && !contract.ValidJSON(raw) {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "tool arguments are not valid JSON")
	}
	if !ok {
		var err error
		if raw, err = contract.Marshal(params); err != nil {
			return nil, contract.Errorf(contract.CodeInternal, "encoding %s request: %v", subject, err)
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		result, err := c.attempt(ctx, ep, raw, cc, start)
		if err == nil {
			return result, nil
		}
		reason, _ := contract.AsError(err).Data["reason"].(string)
		// A queue group hands a call sent again to any replica, the silent
		// one included while its connection stays open (a frozen or
		// swapping process): so a call that may be repeated is, up to
		// maxAttempts times, while its deadline allows.
		again := attempt < maxAttempts && ctx.Err() == nil &&
			(reason == contract.ReasonReplicaStopping || reason == contract.ReasonReplicaStopped && ep.Retryable)
		if reason == contract.ReasonReplicaStopping || reason == contract.ReasonReplicaStopped {
			replicaLost(ep, again)
		}
		if !again {
			return result, err
		}
	}
}

// attempt sends the call once. The deadline is measured again each time,
// so a call sent again carries the time it has left.
func (c *Client) attempt(ctx context.Context, ep contract.Endpoint, raw json.RawMessage, cc contract.CallContext, start time.Time) (json.RawMessage, error) {
	service, subject := ep.Service, ep.Subject()
	deadline, _ := ctx.Deadline()
	cc.TimeoutMS = time.Until(deadline).Milliseconds()
	if cc.TimeoutMS <= 0 {
		return nil, contract.Errorf(contract.CodeUnavailable, "no time left to call %s", subject)
	}
	body, err := contract.EncodeRequest(raw, cc)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "encoding %s request: %v", subject, err)
	}
	if max := c.nc.MaxPayload(); max > 0 && int64(len(body)) > max {
		return nil, contract.Errorf(contract.CodeInvalidRequest,
			"request is %d bytes, over the NATS message limit of %d bytes: send less at once", len(body), max)
	}
	ctx, unwatch := watchRefusal(ctx, c.nc, subject)
	defer unwatch()
	in, err := c.inbox()
	if err != nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "cannot receive replies from NATS: %s", strings.TrimPrefix(err.Error(), "nats: "))
	}
	msg, err := in.request(ctx, service, subject, body, func(reply string) (nats.Header, *sealedCall, error) {
		return c.sign(ctx, subject, reply, body, cc, deadline)
	})
	if errors.Is(err, errReplicaSilent) {
		advice := "the call may have been partly done, so check before sending it again"
		if ep.Retryable {
			advice = "repeating the call changes nothing it has not already, so it is safe to send again once a replica answers"
		}
		return nil, contract.Errorf(contract.CodeUnavailable,
			"the %s replica handling %s stopped answering (no sign of it for %s): it stopped, lost its connection or is overloaded; %s",
			service, subject, ReplicaSilence, advice).
			With("subject", subject).With("reason", contract.ReasonReplicaStopped)
	}
	if err != nil {
		if e, ok := err.(*contract.Error); ok {
			return nil, e // not sent: nothing to sign it with
		}
		if refused := refusal(ctx); refused != nil {
			return nil, refused
		}
		return nil, transportError(service, subject, time.Since(start), err)
	}
	reply, err := contract.DecodeReply(msg.Data)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "%s answered something that is not a reply envelope", subject)
	}
	if reply.Error != nil {
		if reply.Error.Code == "" {
			reply.Error.Code = contract.CodeInternal
		}
		return nil, reply.Error
	}
	if len(reply.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return reply.Result, nil
}

// sign makes a request's proof headers (callauth), and what opens the
// answer sealed for it.
func (c *Client) sign(ctx context.Context, subject, reply string, body []byte, cc contract.CallContext, deadline time.Time) (nats.Header, *sealedCall, error) {
	hdr := nats.Header{}
	// Not signed: the trace context only links spans, and is trusted for
	// nothing.
	tracing.Inject(ctx, hdr)
	if c.signer == nil {
		return hdr, nil, nil
	}
	auth, parent, err := c.signer.Sign(ctx, subject, reply, body, cc, deadline)
	if err != nil {
		return nil, nil, err
	}
	hdr.Set(callauth.Header, auth)
	if parent != "" {
		hdr.Set(callauth.ParentHeader, parent)
	}
	_, nonce, _ := callauth.ReplyTo(auth)
	return hdr, &sealedCall{keys: c.signer.Replies(), nonce: nonce}, nil
}

// CallTool calls the service serving tool with params already checked
// against its schema (contract.Tool.CheckArguments). A tool its service
// runs without (a web tool with no provider configured) fails saying what
// to configure. The message does not name the tool: every transport puts
// "<tool> failed: " before it.
func (c *Client) CallTool(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	raw, err := c.call(ctx, tool.Endpoint(), params, cc)
	if err != nil && tool.Needs != "" && contract.AsError(err).Data["reason"] == contract.ReasonNoResponders && c.Ping(ctx, tool.Service) == nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "not enabled here: %s", tool.Needs).With("tool", tool.Name)
	}
	return raw, err
}

func transportError(service, subject string, waited time.Duration, err error) error {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return contract.Errorf(contract.CodeUnavailable,
			"the %s service is not running (nothing answers %s): start openhuman-%s or check OPENHUMAN_NATS_URL",
			service, subject, service).With("subject", subject).With("reason", contract.ReasonNoResponders)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return contract.Errorf(contract.CodeUnavailable, "the %s service did not answer %s within %s",
			service, subject, waited.Round(time.Millisecond)).With("subject", subject)
	case errors.Is(err, context.Canceled):
		return contract.Errorf(contract.CodeUnavailable, "the call to %s was cancelled", subject)
	case errors.Is(err, nats.ErrMaxPayload):
		return contract.Errorf(contract.CodeInvalidRequest, "request is over the NATS message limit: send less at once")
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining),
		errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrDisconnected):
		return contract.Errorf(contract.CodeUnavailable, "not connected to NATS (%s); the call to %s was not sent",
			strings.TrimPrefix(err.Error(), "nats: "), subject)
	}
	return contract.Errorf(contract.CodeUnavailable, "calling %s: %s", subject, strings.TrimPrefix(err.Error(), "nats: "))
}
