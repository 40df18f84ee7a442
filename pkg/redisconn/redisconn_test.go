package redisconn_test

import (
	"context"
	"log/slog"
	"net/url"
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

// A password in the URL (redis://:PASSWORD@host, as the compose stack's
// requirepass needs) is what the client logs in with, and no error
// message repeats it. The test logs in as an ACL user of its own, so the
// shared server keeps its default user.
func TestPasswordInURL(t *testing.T) {
	prefix := redistest.Prefix(t)
	opts, err := goredis.ParseURL(redistest.URL())
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	defer admin.Close()
	ctx := context.Background()
	user, pw := strings.TrimSuffix(prefix, ":")+"_user", "pw"+strings.TrimSuffix(prefix, ":")
	if err := admin.Do(ctx, "ACL", "SETUSER", user, "on", ">"+pw, "~"+prefix+"*", "+ping").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Do(context.Background(), "ACL", "DELUSER", user) })
	withUser := func(password string) string {
		u, _ := url.Parse(redistest.URL())
		u.User = url.UserPassword(user, password)
		return u.String()
	}
	c, err := redisconn.New(withUser(pw), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping with the password: %v", err)
	}
	wrong, err := redisconn.New(withUser("guess"), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if err := wrong.Ping(ctx); err == nil {
		t.Error("ping with a wrong password succeeded")
	}
	for _, u := range []string{"http://:hunter2@127.0.0.1:6379", "redis://:hunter2@127.0.0.1:6379/notadb"} {
		if _, err := redisconn.New(u, "p:", nil); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v, want an error without the password", u, err)
		}
	}
}
