package bus

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A server whose authorization does not let a user publish a request, or
// subscribe to the inbox its reply would come to, says so only in an
// asynchronous -ERR; the request itself would wait its whole deadline for
// a reply that cannot come. So a call in flight registers its subject
// here, and the connection's error handler (Options) ends at once the
// calls the server refused, with a DENIED error that says what to grant.

type pendingCall struct {
	nc      *nats.Conn
	subject string
	cancel  context.CancelCauseFunc
}

// watching holds the calls in flight. A refusal is rare, so finding its
// calls may walk them all; registering one must stay cheap.
var watching struct {
	mu    sync.Mutex
	calls map[*pendingCall]struct{}
}

// watchRefusal returns ctx, ended with a DENIED cause when the server
// refuses nc's request to subject, and the function that stops watching.
func watchRefusal(ctx context.Context, nc *nats.Conn, subject string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	p := &pendingCall{nc: nc, subject: subject, cancel: cancel}
	watching.mu.Lock()
	if watching.calls == nil {
		watching.calls = map[*pendingCall]struct{}{}
	}
	watching.calls[p] = struct{}{}
	watching.mu.Unlock()
	return ctx, func() {
		watching.mu.Lock()
		delete(watching.calls, p)
		watching.mu.Unlock()
		cancel(nil)
	}
}

// refusal is the DENIED error that ended ctx, nil when something else did.
func refusal(ctx context.Context) error {
	var e *contract.Error
	if errors.As(context.Cause(ctx), &e) {
		return e
	}
	return nil
}

var (
	publishRefused   = regexp.MustCompile(`Publish to "([^"]+)"`)
	subscribeRefused = regexp.MustCompile(`Subscription to "([^"]+)"`)
)

// refusePending ends the calls on nc that the permissions violation err
// makes hopeless: those to the subject the server would not let nc
// publish to, or all of them when it would not let nc subscribe to its
// reply inbox.
func refusePending(nc *nats.Conn, err error) {
	if nc == nil || !errors.Is(err, nats.ErrPermissionViolation) {
		return
	}
	var denied func(p *pendingCall) *contract.Error
	if m := publishRefused.FindStringSubmatch(err.Error()); m != nil {
		denied = func(p *pendingCall) *contract.Error {
			if p.subject != m[1] {
				return nil
			}
			return contract.Errorf(contract.CodeDenied,
				"NATS refused this connection's request to %s (permissions violation): the server's authorization for this user does not let it publish there; grant it in the server's configuration (deploy/nats/auth.conf) or connect as a user that may",
				m[1]).With("subject", m[1])
		}
	} else if m := subscribeRefused.FindStringSubmatch(err.Error()); m != nil && strings.HasPrefix(m[1], inboxPrefix(nc)) {
		denied = func(p *pendingCall) *contract.Error {
			return contract.Errorf(contract.CodeDenied,
				"NATS refused this connection's subscription to %s, where the reply to %s would come (permissions violation): let this user subscribe to %s.> in the server's configuration (deploy/nats/auth.conf)",
				m[1], p.subject, inboxPrefix(nc)).With("subject", p.subject)
		}
	} else {
		return
	}
	watching.mu.Lock()
	defer watching.mu.Unlock()
	for p := range watching.calls {
		if p.nc != nc {
			continue
		}
		if e := denied(p); e != nil {
			p.cancel(e)
		}
	}
}

func inboxPrefix(nc *nats.Conn) string {
	if p := nc.Opts.InboxPrefix; p != "" {
		return p
	}
	return nats.InboxPrefix[:len(nats.InboxPrefix)-1]
}

// Refused reports, after a round trip to the server, a subscription or
// publish of nc that the server refused, naming its subject. A service
// whose user may not subscribe to its own subjects would otherwise
// register without a word, look alive, and never receive a request.
func Refused(nc *nats.Conn) error {
	if err := nc.Flush(); err != nil {
		return fmt.Errorf("NATS did not answer: %w", err)
	}
	err := nc.LastError()
	if !errors.Is(err, nats.ErrPermissionViolation) {
		return nil
	}
	what := err.Error()
	if _, rest, ok := strings.Cut(what, "Permissions Violation for "); ok && rest != "" {
		what = strings.ToLower(rest[:1]) + rest[1:] // "subscription to ..." or "publish to ..."
	}
	return fmt.Errorf("NATS refused the %s (permissions violation): the server's authorization for this user must allow it; see deploy/nats/auth.conf", what)
}
