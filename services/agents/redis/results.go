package redis

import (
	"context"
	"encoding/json"
	"errors"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/services/agents"
)

// Results is the Redis backend of agents.Results: one key per call,
// expiring after agents.OutcomeTTL.
type Results struct {
	redis *redisconn.Client
}

var _ agents.Results = (*Results)(nil)

// NewResults returns the store over client.
func NewResults(client *redisconn.Client) *Results { return &Results{redis: client} }

func (s *Results) key(call string) string { return s.redis.Key("runs:outcome:" + call) }

// Put keeps o for agents.OutcomeTTL.
func (s *Results) Put(ctx context.Context, call string, o agents.Outcome) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return s.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		return r.Set(ctx, s.key(call), raw, agents.OutcomeTTL).Err()
	})
}

// Get returns call's outcome, false when there is none.
func (s *Results) Get(ctx context.Context, call string) (agents.Outcome, bool, error) {
	var raw []byte
	err := s.redis.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		var err error
		raw, err = r.Get(ctx, s.key(call)).Bytes()
		if errors.Is(err, goredis.Nil) {
			raw, err = nil, nil
		}
		return err
	})
	if err != nil || raw == nil {
		return agents.Outcome{}, false, err
	}
	var o agents.Outcome
	if err := json.Unmarshal(raw, &o); err != nil {
		return agents.Outcome{}, false, errors.New("a run's outcome in Redis is not readable: " + err.Error())
	}
	return o, true, nil
}
