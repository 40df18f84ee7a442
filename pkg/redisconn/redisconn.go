// Package redisconn is the one way our services reach Redis, which holds what
// replicas share and may lose: the search cache and rate-limit buckets,
// pending approvals, the audit stream. Calls fail fast: each has a short
// deadline, and after a failure Redis is skipped for a second, so a dead
// Redis costs one failed dial a second rather than one per call. Outages
// are logged once going down and once coming back.
package redisconn

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

// Nil is the "no such key" answer.
var Nil = goredis.Nil

// DefaultTimeout bounds one call unless New is told otherwise.
const DefaultTimeout = 250 * time.Millisecond

// pause is how long calls skip Redis after it failed.
const pause = time.Second

// Client is a Redis connection with a key prefix.
type Client struct {
	rdb     *goredis.Client
	prefix  string
	timeout time.Duration
	log     *slog.Logger
	// downUntil (unix nanoseconds) and lastErr remember a failure.
	downUntil atomic.Int64
	lastErr   atomic.Value
}

var setLogger sync.Once

// New connects lazily to the Redis at url (redis://host:6379/0); keys start
// with prefix. It fails only on a malformed URL.
func New(url, prefix string, log *slog.Logger) (*Client, error) {
	if !strings.HasPrefix(url, "redis://") && !strings.HasPrefix(url, "rediss://") && !strings.HasPrefix(url, "unix://") {
		return nil, fmt.Errorf("redis.url %q: use redis://host:6379/0 (redis://:PASSWORD@host:6379/0 with a password)", secrets.RedactURL(url))
	}
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis.url %q: %v; use redis://host:6379/0 (redis://:PASSWORD@host:6379/0 with a password)", secrets.RedactURL(url), err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = DefaultTimeout, DefaultTimeout, DefaultTimeout
	opts.MaxRetries = -1 // fail fast: skipping Redis is cheaper than waiting for it
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	setLogger.Do(func() { goredis.SetLogger(slogLogger{log}) })
	return &Client{rdb: goredis.NewClient(opts), prefix: prefix, timeout: DefaultTimeout, log: log.With("redis", opts.Addr)}, nil
}

// Key is name under the client's prefix.
func (c *Client) Key(name string) string { return c.prefix + name }

// Close closes the connections.
func (c *Client) Close() error { return c.rdb.Close() }

// Ping checks that Redis answers.
func (c *Client) Ping(ctx context.Context) error {
	return c.Do(ctx, func(ctx context.Context, r *goredis.Client) error { return r.Ping(ctx).Err() })
}

// Do runs fn with the call deadline, unless Redis failed within the last
// second. Nil from fn is not a failure.
func (c *Client) Do(ctx context.Context, fn func(context.Context, *goredis.Client) error) error {
	return c.do(ctx, c.timeout, fn)
}

// DoBlocking is Do for a command that waits up to wait on the server
// (BLPOP): its deadline is wait plus the usual one.
func (c *Client) DoBlocking(ctx context.Context, wait time.Duration, fn func(context.Context, *goredis.Client) error) error {
	return c.do(ctx, wait+c.timeout, fn)
}

func (c *Client) do(ctx context.Context, timeout time.Duration, fn func(context.Context, *goredis.Client) error) error {
	if until := c.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		last, _ := c.lastErr.Load().(string)
		return fmt.Errorf("redis unavailable (%s)", last)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := fn(ctx, c.rdb)
	if err == Nil {
		err = nil
	}
	if err != nil {
		if parent.Err() != nil {
			return parent.Err() // the caller gave up; Redis is not to blame
		}
		c.lastErr.Store(err.Error())
		if c.downUntil.Swap(time.Now().Add(pause).UnixNano()) == 0 {
			c.log.Warn("Redis failed: going on without it until it answers", "err", err)
		}
		return fmt.Errorf("redis: %w", err)
	}
	if c.downUntil.Swap(0) != 0 {
		c.log.Info("Redis answers again")
	}
	return nil
}

// slogLogger sends go-redis's own log lines to slog (stderr), never stdout.
type slogLogger struct{ log *slog.Logger }

func (l slogLogger) Printf(_ context.Context, format string, v ...any) {
	l.log.Warn(fmt.Sprintf(format, v...), "component", "redis")
}
