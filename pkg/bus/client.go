package bus

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// DefaultTimeout bounds a call whose context carries no deadline.
const DefaultTimeout = 30 * time.Second

// Client sends requests to services.
type Client struct {
	nc *nats.Conn
}

// NewClient wraps a connection.
func NewClient(nc *nats.Conn) *Client { return &Client{nc: nc} }

// Conn returns the underlying connection.
func (c *Client) Conn() *nats.Conn { return c.nc }

// Call sends params to service.method and returns the raw result. Failures are
// always *contract.Error: the service's own, or UNAVAILABLE when nobody answers
// in time.
func (c *Client) Call(ctx context.Context, service, method string, params any, cc contract.CallContext) (json.RawMessage, error) {
	subject := contract.Subject(service, method)
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
	start := time.Now()
	msg, err := c.nc.RequestWithContext(ctx, subject, body)
	if err != nil {
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

// CallTool calls the service serving tool with params already checked
// against its schema (contract.Tool.CheckArguments). A tool its service
// runs without (a web tool with no provider configured) fails saying what
// to configure. The message does not name the tool: every transport puts
// "<tool> failed: " before it.
func (c *Client) CallTool(ctx context.Context, tool contract.Tool, params json.RawMessage, cc contract.CallContext) (json.RawMessage, error) {
	raw, err := c.Call(ctx, tool.Service, tool.Method, params, cc)
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
