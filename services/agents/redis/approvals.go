// Package redis keeps sub-agents' calls waiting for approval in Redis, so
// that any replica of the agents service can take the decision for a call
// another replica parked.
package redis

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/services/agents"
)

// Approvals is the Redis backend of agents.Approvals: waiting calls in a
// hash, each decision pushed on a list of its own that the waiter pops.
type Approvals struct {
	redis *redisconn.Client
}

var _ agents.Approvals = (*Approvals)(nil)

// NewApprovals returns the store over client.
func NewApprovals(client *redisconn.Client) *Approvals { return &Approvals{redis: client} }

func (a *Approvals) pendingKey() string           { return a.redis.Key("approvals:pending") }
func (a *Approvals) decisionKey(id string) string { return a.redis.Key("approvals:decision:" + id) }
func (a *Approvals) decidedKey() string           { return a.redis.Key("approvals:decided") }

// MaxDecided is how many decided calls the list keeps, and decidedTTL how
// long it lasts after the last decision: it is history, which Redis may lose.
const (
	MaxDecided = 50
	decidedTTL = 7 * 24 * time.Hour
)

// Record pushes d on the list of decided calls, newest first, cut to
// MaxDecided.
func (a *Approvals) Record(ctx context.Context, d agents.Decided) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		_, err := r.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.LPush(ctx, a.decidedKey(), raw)
			p.LTrim(ctx, a.decidedKey(), 0, MaxDecided-1)
			p.PExpire(ctx, a.decidedKey(), decidedTTL)
			return nil
		})
		return err
	})
}

// Decided lists the decided calls, newest first.
func (a *Approvals) Decided(ctx context.Context) ([]agents.Decided, error) {
	var all []string
	err := a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		all, err = r.LRange(ctx, a.decidedKey(), 0, MaxDecided-1).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]agents.Decided, 0, len(all))
	for _, raw := range all {
		var d agents.Decided
		if json.Unmarshal([]byte(raw), &d) == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// Park records p as waiting.
func (a *Approvals) Park(ctx context.Context, p agents.Pending) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		return r.HSet(ctx, a.pendingKey(), p.ID, raw).Err()
	})
}

// Wait pops id's decision, a second at a time so that ctx is honoured.
func (a *Approvals) Wait(ctx context.Context, id string, timeout time.Duration) (agents.Decision, bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return agents.Decision{}, false, nil
		}
		wait := min(left, time.Second)
		var got []string
		err := a.redis.DoBlocking(ctx, wait, func(ctx context.Context, r *goredis.Client) error {
			v, err := r.BLPop(ctx, wait, a.decisionKey(id)).Result()
			got = v
			return err
		})
		if err != nil {
			return agents.Decision{}, false, err
		}
		if len(got) == 2 {
			var d agents.Decision
			if err := json.Unmarshal([]byte(got[1]), &d); err != nil {
				return agents.Decision{}, false, errors.New("a decision in Redis is not readable: " + err.Error())
			}
			return d, true, nil
		}
		if ctx.Err() != nil {
			return agents.Decision{}, false, ctx.Err()
		}
	}
}

// Remove forgets id.
func (a *Approvals) Remove(ctx context.Context, id string) error {
	return a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		return r.HDel(ctx, a.pendingKey(), id).Err()
	})
}

// List returns the waiting calls.
func (a *Approvals) List(ctx context.Context) ([]agents.Pending, error) {
	var all map[string]string
	err := a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		all, err = r.HGetAll(ctx, a.pendingKey()).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]agents.Pending, 0, len(all))
	for _, raw := range all {
		var p agents.Pending
		if json.Unmarshal([]byte(raw), &p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// decideScript takes id out of the waiting set and hands it the decision,
// in one step: a call is decided once.
var decideScript = goredis.NewScript(`
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], 60000)
return 1
`)

// Decide answers id; NOT_FOUND when nothing waits for it.
func (a *Approvals) Decide(ctx context.Context, id string, d agents.Decision) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	var n int
	err = a.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		n, err = decideScript.Run(ctx, r, []string{a.pendingKey(), a.decisionKey(id)}, id, raw).Int()
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return agents.NotPending(id)
	}
	return nil
}
