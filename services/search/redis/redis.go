// Package redis keeps the search cache and the providers' rate-limit
// buckets in Redis, so that replicas of the search service share them.
// Redis holds only what may be lost: when it is down, the cache misses,
// the limiter lets calls through, and the service keeps answering.
package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/openhuman-go/openhuman-go/services/search"
)

// opTimeout bounds each Redis call: a slow Redis must not slow searches.
const opTimeout = 250 * time.Millisecond

// pause is how long calls skip Redis after it failed, so that a dead Redis
// costs one failed dial a second, not one per search.
const pause = time.Second

// Store is the Redis backend of search.Cache and search.Limiter.
type Store struct {
	client *goredis.Client
	prefix string
	log    *slog.Logger
	// downUntil (unix nanoseconds) and lastErr remember a failure.
	downUntil atomic.Int64
	lastErr   atomic.Value
}

var (
	_ search.Cache   = (*Store)(nil)
	_ search.Limiter = (*Store)(nil)
)

var setLogger sync.Once

// New connects lazily to the Redis at url (redis://host:6379/0); keys start
// with prefix. It fails only on a malformed URL.
func New(url, prefix string, log *slog.Logger) (*Store, error) {
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis.url %q: %v; use redis://host:6379/0", url, err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = opTimeout, opTimeout, opTimeout
	opts.MaxRetries = -1 // fail fast: a miss is cheaper than a wait
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	setLogger.Do(func() { goredis.SetLogger(slogLogger{log}) })
	return &Store{client: goredis.NewClient(opts), prefix: prefix, log: log.With("redis", opts.Addr)}, nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.client.Close() }

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.do(ctx, func(ctx context.Context) error { return s.client.Ping(ctx).Err() })
}

// key hashes the cache key: queries never appear in Redis key names.
func (s *Store) key(kind, k string) string {
	sum := sha256.Sum256([]byte(k))
	return s.prefix + kind + ":" + hex.EncodeToString(sum[:16])
}

// Get returns a cached value.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var val []byte
	err := s.do(ctx, func(ctx context.Context) error {
		v, err := s.client.Get(ctx, s.key("search", key)).Bytes()
		if errors.Is(err, goredis.Nil) {
			return nil
		}
		val = v
		return err
	})
	return val, val != nil, err
}

// Set stores value for ttl.
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.do(ctx, func(ctx context.Context) error {
		return s.client.Set(ctx, s.key("search", key), value, ttl).Err()
	})
}

// bucketScript is a token bucket kept in a hash {tokens, at}; Redis's own
// clock times it, so replicas with skewed clocks agree.
var bucketScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]), tonumber(b[2])
if tokens == nil or at == nil then tokens, at = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return ok
`)

// Take spends one of provider's tokens.
func (s *Store) Take(ctx context.Context, provider string, perMinute, burst int) (bool, error) {
	if perMinute <= 0 {
		return true, nil
	}
	allowed := false
	err := s.do(ctx, func(ctx context.Context) error {
		n, err := bucketScript.Run(ctx, s.client, []string{s.prefix + "ratelimit:" + provider}, strconv.Itoa(perMinute), strconv.Itoa(burst)).Int()
		allowed = n == 1
		return err
	})
	return allowed, err
}

// do runs fn with a deadline, unless Redis failed within the last pause.
func (s *Store) do(ctx context.Context, fn func(context.Context) error) error {
	if until := s.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		last, _ := s.lastErr.Load().(string)
		return fmt.Errorf("redis unavailable (%s)", last)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := fn(ctx); err != nil {
		if parent.Err() != nil {
			return parent.Err() // the caller gave up; Redis is not to blame
		}
		s.lastErr.Store(err.Error())
		if s.downUntil.Swap(time.Now().Add(pause).UnixNano()) == 0 {
			s.log.Warn("Redis failed: searching without the shared cache and rate limits until it answers", "err", err)
		}
		return fmt.Errorf("redis: %w", err)
	}
	if s.downUntil.Swap(0) != 0 {
		s.log.Info("Redis answers again: the shared cache and rate limits are back")
	}
	return nil
}

// slogLogger sends go-redis's own log lines to slog (stderr), never stdout.
type slogLogger struct{ log *slog.Logger }

func (l slogLogger) Printf(_ context.Context, format string, v ...any) {
	if l.log != nil {
		l.log.Warn(fmt.Sprintf(format, v...), "component", "redis")
	}
}
