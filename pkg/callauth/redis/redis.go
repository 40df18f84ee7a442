// Package redis shares the nonces of accepted call proofs between a
// service's replicas through Redis, so that a request captured and sent
// again is refused by every replica, not only the one that took it: for
// services whose calls cost something when they run twice (a sub-agent's
// run, a paid web search). A key per nonce, gone when the proof expires.
package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// Nonces keeps nonces under "<prefix>nonce:", and in the process's memory
// for when Redis is down.
type Nonces struct {
	redis *redisconn.Client
	local callauth.Nonces
}

var _ callauth.Nonces = (*Nonces)(nil)

// NewNonces keeps nonces in client's Redis.
func NewNonces(client *redisconn.Client) *Nonces {
	return &Nonces{redis: client, local: callauth.NewNonces()}
}

// Add sets the nonce's key unless it exists, expiring with the proof: by
// this process's clock, which the proof was checked against, not Redis's.
// Redis may be lost like everything it holds: while it fails, this replica
// still refuses what it took itself (redisconn logs the failure), and the
// service goes on serving.
func (n *Nonces) Add(ctx context.Context, nonce string, exp int64) (bool, error) {
	if fresh, _ := n.local.Add(ctx, nonce, exp); !fresh {
		return false, nil
	}
	fresh := true
	_ = n.redis.Do(ctx, func(ctx context.Context, c *goredis.Client) error {
		ok, err := c.SetArgs(ctx, n.redis.Key("nonce:"+nonce), 1, goredis.SetArgs{Mode: "NX", TTL: max(time.Until(callauth.Forget(exp)), time.Second)}).Result()
		switch {
		case err == goredis.Nil: // NX: another replica set it first
			fresh = false
			return nil
		case err == nil:
			fresh = ok == "OK"
		}
		return err
	})
	return fresh, nil
}
