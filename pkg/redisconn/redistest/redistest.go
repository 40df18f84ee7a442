// Package redistest gives tests the real Redis server with a key prefix of
// their own, removed when the test ends.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// URL is the Redis tests use: $OPENHUMAN_TEST_REDIS_URL, else the local one.
func URL() string {
	if u := os.Getenv("OPENHUMAN_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Prefix returns a fresh key prefix whose keys are deleted when tb ends. It
// skips tb only when OPENHUMAN_TEST_REDIS is unset and no server answers:
// CI sets it, so there a missing Redis fails the test instead.
func Prefix(tb testing.TB) string {
	tb.Helper()
	opts, err := goredis.ParseURL(URL())
	if err != nil {
		tb.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	ctx := context.Background()
	if err := admin.Ping(ctx).Err(); err != nil {
		admin.Close()
		if os.Getenv("OPENHUMAN_TEST_REDIS") == "" {
			tb.Skipf("no Redis at %s (%v); set OPENHUMAN_TEST_REDIS=1 to make this a failure", URL(), err)
		}
		tb.Fatalf("OPENHUMAN_TEST_REDIS is set but Redis at %s does not answer: %v", URL(), err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "openhuman-test:" + hex.EncodeToString(b) + ":"
	tb.Cleanup(func() {
		defer admin.Close()
		if keys, _ := admin.Keys(ctx, prefix+"*").Result(); len(keys) > 0 {
			admin.Del(ctx, keys...)
		}
	})
	return prefix
}

// Keys lists the keys under prefix.
func Keys(tb testing.TB, prefix string) []string {
	tb.Helper()
	opts, _ := goredis.ParseURL(URL())
	admin := goredis.NewClient(opts)
	defer admin.Close()
	keys, err := admin.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		tb.Fatal(err)
	}
	return keys
}

// TTL is how long key has left.
func TTL(tb testing.TB, key string) time.Duration {
	tb.Helper()
	opts, _ := goredis.ParseURL(URL())
	admin := goredis.NewClient(opts)
	defer admin.Close()
	d, err := admin.PTTL(context.Background(), key).Result()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
