// Package redis keeps the authorization server's records in Redis, which
// every gateway replica of a deployment reaches (compose has it): a grant
// made on one replica works on all, and revoking it ends its tokens on
// all. Each record is a hash (its value, and whether it was used) that
// Redis expires itself; a set per kind lists them.
package redis

import (
	"context"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// Store is the records under the client's prefix, oauth:<kind>:<key>.
type Store struct {
	c *redisconn.Client
}

var _ oauth.Store = (*Store)(nil)

// New returns the store over c.
func New(c *redisconn.Client) *Store { return &Store{c: c} }

func (s *Store) key(kind, key string) string { return s.c.Key("oauth:" + kind + ":" + key) }
func (s *Store) index(kind string) string    { return s.c.Key("oauth:index:" + kind) }

func at(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

var putScript = goredis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1])
if ARGV[2] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
redis.call('SADD', KEYS[2], ARGV[3])
return 1`)

var updateScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1])
if ARGV[2] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) else redis.call('PERSIST', KEYS[1]) end
return 1`)

var swapScript = goredis.NewScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2])
if ARGV[3] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return 1`)

var deleteIfScript = goredis.NewScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1`)

var useScript = goredis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {0} end
local first = redis.call('HSETNX', KEYS[1], 'used', '1')
return {1, first, v}`)

// Put keeps a record.
func (s *Store) Put(ctx context.Context, kind, key string, value []byte, expires time.Time) error {
	return s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		return putScript.Run(ctx, r, []string{s.key(kind, key), s.index(kind)}, value, at(expires), key).Err()
	})
}

// Get returns a live record.
func (s *Store) Get(ctx context.Context, kind, key string) ([]byte, bool, error) {
	var v []byte
	err := s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		v, err = r.HGet(ctx, s.key(kind, key), "v").Bytes()
		return err
	})
	return v, v != nil, err
}

// Update replaces a live record.
func (s *Store) Update(ctx context.Context, kind, key string, value []byte, expires time.Time) (bool, error) {
	var n int64
	err := s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		n, err = updateScript.Run(ctx, r, []string{s.key(kind, key)}, value, at(expires)).Int64()
		return err
	})
	return n == 1, err
}

// Swap replaces a record that still holds old; Redis runs the script
// alone, so no write comes between the comparison and the replacement.
func (s *Store) Swap(ctx context.Context, kind, key string, old, value []byte, expires time.Time) (bool, error) {
	var n int64
	err := s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		n, err = swapScript.Run(ctx, r, []string{s.key(kind, key)}, old, value, at(expires)).Int64()
		return err
	})
	return n == 1, err
}

// DeleteIf drops a record that still holds old, as one script.
func (s *Store) DeleteIf(ctx context.Context, kind, key string, old []byte) (bool, error) {
	var n int64
	err := s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		n, err = deleteIfScript.Run(ctx, r, []string{s.key(kind, key), s.index(kind)}, old, key).Int64()
		return err
	})
	return n == 1, err
}

// Use marks a record used; Redis runs the script alone, so one caller is first.
func (s *Store) Use(ctx context.Context, kind, key string) ([]byte, bool, bool, error) {
	var res []any
	err := s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		res, err = useScript.Run(ctx, r, []string{s.key(kind, key)}).Slice()
		return err
	})
	if err != nil || len(res) < 3 {
		return nil, false, false, err
	}
	first, _ := res[1].(int64)
	v, _ := res[2].(string)
	return []byte(v), true, first == 1, nil
}

// Delete drops a record.
func (s *Store) Delete(ctx context.Context, kind, key string) error {
	return s.c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		_, err := r.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.Del(ctx, s.key(kind, key))
			p.SRem(ctx, s.index(kind), key)
			return nil
		})
		return err
	})
}

// listWait is what a listing may take beyond one call's deadline.
const listWait = 2 * time.Second

// List returns the live records of kind, dropping from the index those
// Redis expired.
func (s *Store) List(ctx context.Context, kind string) ([][]byte, error) {
	var out [][]byte
	// A listing reads every record of its kind, up to MaxClients of
	// them: on a busy machine that outlasts one call's deadline, and a
	// timeout here would count as Redis failing for every call after it.
	err := s.c.DoBlocking(ctx, listWait, func(ctx context.Context, r *goredis.Client) error {
		keys, err := r.SMembers(ctx, s.index(kind)).Result()
		if err != nil || len(keys) == 0 {
			return err
		}
		cmds := make([]*goredis.StringCmd, len(keys))
		if _, err := r.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for i, k := range keys {
				cmds[i] = p.HGet(ctx, s.key(kind, k), "v")
			}
			return nil
		}); err != nil && err != goredis.Nil {
			return err
		}
		var gone []any
		for i, c := range cmds {
			if b, err := c.Bytes(); err == nil {
				out = append(out, b)
			} else {
				gone = append(gone, keys[i])
			}
		}
		if len(gone) > 0 {
			return r.SRem(ctx, s.index(kind), gone...).Err()
		}
		return nil
	})
	return out, err
}
