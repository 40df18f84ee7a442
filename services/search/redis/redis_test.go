package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/openhuman-go/openhuman-go/services/search"
)

// testRedis returns the URL of the real Redis server and a key prefix of
// this test's own, whose keys are removed at the end. It skips only when
// OPENHUMAN_TEST_REDIS is unset and no server answers: CI sets it, so
// there the test cannot skip silently.
func testRedis(t *testing.T) (url, prefix string) {
	t.Helper()
	url = os.Getenv("OPENHUMAN_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opts, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	t.Cleanup(func() { admin.Close() })
	ctx := context.Background()
	if err := admin.Ping(ctx).Err(); err != nil {
		if os.Getenv("OPENHUMAN_TEST_REDIS") == "" {
			t.Skipf("no Redis at %s (%v); set OPENHUMAN_TEST_REDIS=1 to make this a failure", url, err)
		}
		t.Fatalf("OPENHUMAN_TEST_REDIS is set but Redis at %s does not answer: %v", url, err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	prefix = "openhuman-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		keys, _ := admin.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			admin.Del(ctx, keys...)
		}
	})
	return url, prefix
}

func newStore(t *testing.T, url, prefix string) *Store {
	t.Helper()
	s, err := New(url, prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCacheIsSharedBetweenReplicas(t *testing.T) {
	url, prefix := testRedis(t)
	a, b := newStore(t, url, prefix), newStore(t, url, prefix)
	ctx := context.Background()

	if _, ok, err := a.Get(ctx, "search\x00searxng\x00secret query\x005"); ok || err != nil {
		t.Fatalf("empty cache: ok=%v err=%v", ok, err)
	}
	if err := a.Set(ctx, "search\x00searxng\x00secret query\x005", []byte(`{"provider":"searxng"}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	v, ok, err := b.Get(ctx, "search\x00searxng\x00secret query\x005")
	if err != nil || !ok || string(v) != `{"provider":"searxng"}` {
		t.Fatalf("the other replica got %q ok=%v err=%v", v, ok, err)
	}

	// Keys carry the prefix and a hash, never the query.
	keys, err := a.client.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 1 || strings.Contains(keys[0], "secret") {
		t.Fatalf("keys %v %v", keys, err)
	}
	if ttl := a.client.PTTL(ctx, keys[0]).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("ttl %v", ttl)
	}
}

func TestCacheEntriesExpire(t *testing.T) {
	url, prefix := testRedis(t)
	s := newStore(t, url, prefix)
	ctx := context.Background()
	if err := s.Set(ctx, "k", []byte("v"), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k"); !ok {
		t.Fatal("fresh entry missing")
	}
	time.Sleep(120 * time.Millisecond)
	if _, ok, err := s.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("expired entry: ok=%v err=%v", ok, err)
	}
}

func TestRateLimitIsSharedBetweenReplicas(t *testing.T) {
	url, prefix := testRedis(t)
	a, b := newStore(t, url, prefix), newStore(t, url, prefix)
	ctx := context.Background()
	var got []bool
	for _, s := range []*Store{a, b, a} {
		ok, err := s.Take(ctx, "brave", 1, 2) // one a minute, burst of two
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ok)
	}
	if got[0] != true || got[1] != true || got[2] != false {
		t.Fatalf("takes %v, want true true false", got)
	}
	// Another provider has its own bucket; 6000 a minute refills in ms.
	for i := range 3 {
		if ok, _ := b.Take(ctx, "exa", 6000, 1); !ok {
			t.Fatalf("exa take %d refused", i)
		}
		time.Sleep(15 * time.Millisecond)
	}
	if ok, _ := a.Take(ctx, "unlimited", 0, 0); !ok {
		t.Fatal("no limit configured must allow")
	}
}

func TestRedisDownIsAFastMissAndTheServiceKeepsAnswering(t *testing.T) {
	var logged strings.Builder
	s, err := New("redis://127.0.0.1:1/0", "openhuman-test:", slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	start := time.Now()
	if _, ok, err := s.Get(ctx, "k"); ok || err == nil {
		t.Fatalf("down Redis: ok=%v err=%v", ok, err)
	}
	// Within the pause, calls fail without dialing.
	for range 100 {
		if err := s.Set(ctx, "k", []byte("v"), time.Minute); err == nil || !strings.Contains(err.Error(), "redis unavailable") {
			t.Fatalf("set on a down Redis: %v", err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("101 calls on a down Redis took %s", d)
	}
	// An outage is logged once, not once per call.
	if n := strings.Count(logged.String(), "Redis failed"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, logged.String())
	}

	var errs int
	p := &okProvider{}
	svc := search.NewService(search.Options{
		Providers: map[string]search.Provider{"searxng": p}, SearchOrder: []string{"searxng"},
		Cache: s, Limiter: s, Limits: map[string]search.Limit{"searxng": {PerMinute: 1, Burst: 1}},
		Observer: search.Observer{Cache: func(r string) {
			if r == "error" {
				errs++
			}
		}},
	})
	for range 3 {
		page, err := svc.WebSearch(ctx, search.SearchParams{Query: "q"})
		if err != nil || page.Provider != "searxng" {
			t.Fatalf("search with Redis down: %v %+v", err, page)
		}
	}
	if p.calls != 3 || errs != 6 {
		t.Fatalf("provider calls %d, cache errors %d; want 3 and 6", p.calls, errs)
	}
}

type okProvider struct{ calls int }

func (p *okProvider) Name() string { return "searxng" }
func (p *okProvider) Search(context.Context, search.Query) ([]search.Result, error) {
	p.calls++
	return []search.Result{{Title: "t", URL: "https://example.com"}}, nil
}

func TestBadURL(t *testing.T) {
	if _, err := New("http://127.0.0.1:6379", "p:", nil); err == nil || !strings.Contains(err.Error(), "use redis://host:6379/0") {
		t.Fatalf("err %v", err)
	}
}
