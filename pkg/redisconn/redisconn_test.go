package redisconn_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
)

func TestDoAgainstRealRedis(t *testing.T) {
	prefix := redistest.Prefix(t)
	c, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	var got string
	err = c.Do(ctx, func(ctx context.Context, r *goredis.Client) error {
		if err := r.Set(ctx, c.Key("k"), "v", time.Minute).Err(); err != nil {
			return err
		}
		got, err = r.Get(ctx, c.Key("k")).Result()
		return err
	})
	if err != nil || got != "v" {
		t.Fatalf("got %q, %v", got, err)
	}
	// A missing key is not a failure.
	if err := c.Do(ctx, func(ctx context.Context, r *goredis.Client) error { return r.Get(ctx, c.Key("absent")).Err() }); err != nil {
		t.Fatal(err)
	}
	if keys := redistest.Keys(t, prefix); len(keys) != 1 || keys[0] != prefix+"k" {
		t.Fatalf("keys %v", keys)
	}
}

func TestDownRedisFailsFastAndIsLoggedOnce(t *testing.T) {
	var logged strings.Builder
	c, err := redisconn.New("redis://127.0.0.1:1/0", "p:", slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	if err := c.Ping(ctx); err == nil {
		t.Fatal("ping of a closed port")
	}
	for range 100 {
		if err := c.Ping(ctx); err == nil || !strings.Contains(err.Error(), "redis unavailable") {
			t.Fatalf("within the pause: %v", err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("101 calls on a down Redis took %s", d)
	}
	if n := strings.Count(logged.String(), "Redis failed"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, logged.String())
	}
	// A caller that gave up does not mark Redis down.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	c2, _ := redisconn.New(redistest.URL(), "p:", nil)
	defer c2.Close()
	if err := c2.Ping(cancelled); err != context.Canceled {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:6379", "127.0.0.1:6379"} {
		if _, err := redisconn.New(u, "p:", nil); err == nil || !strings.Contains(err.Error(), "use redis://host:6379/0") {
			t.Errorf("%s: %v", u, err)
		}
	}
}
