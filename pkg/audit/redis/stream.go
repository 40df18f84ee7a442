// Package redis keeps the audit trail in a Redis stream capped by length,
// so that every replica appends to one trail. Redis may lose what it holds
// and may be down; a row it cannot take goes to a fallback log instead.
package redis

import (
	"context"
	"encoding/json"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// Stream keeps rows in a Redis stream capped near maxLen entries, shared by
// every replica; rows Redis cannot take go to fallback.
type Stream struct {
	redis    *redisconn.Client
	key      string
	maxLen   int64
	fallback audit.Log
}

var _ audit.Log = (*Stream)(nil)

// NewStream writes to the stream "<prefix>audit".
func NewStream(client *redisconn.Client, maxLen int, fallback audit.Log) *Stream {
	if maxLen <= 0 {
		maxLen = 100000
	}
	return &Stream{redis: client, key: client.Key("audit"), maxLen: int64(maxLen), fallback: fallback}
}

// Record appends r; when Redis fails, to the fallback.
func (s *Stream) Record(ctx context.Context, r audit.Row) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	err = s.redis.Do(ctx, func(ctx context.Context, c *goredis.Client) error {
		return c.XAdd(ctx, &goredis.XAddArgs{Stream: s.key, MaxLen: s.maxLen, Approx: true, Values: []any{"row", raw}}).Err()
	})
	if err == nil {
		return nil
	}
	return audit.RecordFallback(ctx, s.fallback, r, err)
}

// Recent reads the newest rows of the stream.
func (s *Stream) Recent(ctx context.Context, n int, failuresOnly bool) ([]audit.Row, error) {
	out := []audit.Row{}
	err := s.redis.Do(ctx, func(ctx context.Context, c *goredis.Client) error {
		end := "+"
		for len(out) < n {
			msgs, err := c.XRevRangeN(ctx, s.key, end, "-", int64(n)).Result()
			if err != nil || len(msgs) == 0 {
				return err
			}
			for _, m := range msgs {
				var r audit.Row
				if raw, ok := m.Values["row"].(string); ok && json.Unmarshal([]byte(raw), &r) == nil && (!failuresOnly || !r.Success) && len(out) < n {
					out = append(out, r)
				}
			}
			end = "(" + msgs[len(msgs)-1].ID
			if len(msgs) < n {
				return nil
			}
		}
		return nil
	})
	return out, err
}

// Backend is "redis-stream:<key> (fallback <fallback>)".
func (s *Stream) Backend() string {
	return "redis-stream:" + s.key + " (max " + strconv.FormatInt(s.maxLen, 10) + " rows; when Redis fails: " + s.fallback.Backend() + ")"
}

// Close closes the fallback; the Redis client belongs to its creator.
func (s *Stream) Close() error { return s.fallback.Close() }
