// Package redis shares the nonces of accepted call proofs between a
// service's replicas through Redis, so that a request captured and sent
// again is refused by every replica, not only the one that took it: for
// services whose calls cost something when they run twice (a sub-agent's
// run, a paid web search). A key per nonce, gone when the proof expires.
package redis

import (
	"context"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// Nonces keeps nonces under "<prefix>nonce:".
type Nonces struct{ redis *redisconn.Client }

var _ callauth.Nonces = (*Nonces)(nil)

// NewNonces keeps nonces in client's Redis.
func NewNonces(client *redisconn.Client) *Nonces { return &Nonces{redis: client} }

// Add sets the nonce's key unless it exists, expiring with the proof.
// When Redis fails the call is refused rather than taken unchecked.
func (n *Nonces) Add(ctx context.Context, nonce string, exp int64) (bool, error) {
	var fresh bool
	err := n.redis.Do(ctx, func(ctx context.Context, c *goredis.Client) error {
		ok, err := c.SetArgs(ctx, n.redis.Key("nonce:"+nonce), 1, goredis.SetArgs{Mode: "NX", ExpireAt: callauth.Forget(exp)}).Result()
		fresh = err == nil && ok == "OK"
		return err
	})
	return fresh, err
}
