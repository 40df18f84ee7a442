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
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Store is the Redis backend of search.Cache and search.Limiter.
type Store struct {
	redis *redisconn.Client
}

var (
	_ search.Cache   = (*Store)(nil)
	_ search.Limiter = (*Store)(nil)
)

// New returns a store over client.
func New(client *redisconn.Client) *Store { return &Store{redis: client} }

// key hashes the cache key: queries never appear in Redis key names.
func (s *Store) key(k string) string {
	sum := sha256.Sum256([]byte(k))
	return s.redis.Key("search:" + hex.EncodeToString(sum[:16]))
}

// Get returns a cached value.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var val []byte
	err := s.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		v, err := r.Get(ctx, s.key(key)).Bytes()
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
	return s.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		return r.Set(ctx, s.key(key), value, ttl).Err()
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
	err := s.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		n, err := bucketScript.Run(ctx, r, []string{s.redis.Key("ratelimit:" + provider)}, strconv.Itoa(perMinute), strconv.Itoa(burst)).Int()
		allowed = n == 1
		return err
	})
	return allowed, err
}
