package redis_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	"github.com/openhuman-go/openhuman-go/pkg/callauth/redis"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
)

// Two replicas sharing Redis: a request the first took is refused by the
// second, and the nonce's key goes when the proof expires.
func TestReplicasRefuseEachOthersReplays(t *testing.T) {
	prefix := redistest.Prefix(t)
	client, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	replica := func() *callauth.Verifier {
		v, err := callauth.NewVerifier(bustest.Keys().Trust(), redis.NewNonces(client))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := replica(), replica()
	ctx := context.Background()
	subject, reply, body := "openhuman.search.web_search", "_INBOX_gateway.x.1", []byte(`{"params":{"query":"x"},"ctx":{}}`)
	auth, _, err := bustest.Keys().GatewaySigner().Sign(ctx, subject, reply, body, contract.CallContext{}, time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify(ctx, subject, reply, body, auth, "", contract.CallContext{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(ctx, subject, reply, body, auth, "", contract.CallContext{}); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("the other replica: %v, want a replay refused", err)
	}
	keys := redistest.Keys(t, prefix+"nonce:")
	if len(keys) != 1 {
		t.Fatalf("keys %v", keys)
	}
	if left := redistest.TTL(t, keys[0]); left <= 0 || left > time.Second+2*callauth.ClockSkew+2*time.Second {
		t.Fatalf("the nonce is kept for %s", left)
	}
}

// With Redis down a replica goes on serving, and still refuses what it
// took itself.
func TestRedisDownKeepsServing(t *testing.T) {
	client, err := redisconn.New("redis://127.0.0.1:1/0", "x:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	v, err := callauth.NewVerifier(bustest.Keys().Trust(), redis.NewNonces(client))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	auth, _, _ := bustest.Keys().GatewaySigner().Sign(ctx, "s", "r", nil, contract.CallContext{}, time.Now().Add(time.Second))
	if _, err := v.Verify(ctx, "s", "r", nil, auth, "", contract.CallContext{}); err != nil {
		t.Fatalf("with Redis down: %v", err)
	}
	if _, err := v.Verify(ctx, "s", "r", nil, auth, "", contract.CallContext{}); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("a replay with Redis down: %v", err)
	}
}
