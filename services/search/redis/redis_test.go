package redis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/search"
)

func newStore(t *testing.T, url, prefix string) *Store {
	t.Helper()
	c, err := redisconn.New(url, prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return New(c)
}

func TestCacheIsSharedBetweenReplicas(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := newStore(t, redistest.URL(), prefix), newStore(t, redistest.URL(), prefix)
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
	if keys := redistest.Keys(t, prefix); len(keys) != 1 || strings.Contains(keys[0], "secret") || !strings.HasPrefix(keys[0], prefix+"search:") {
		t.Fatalf("keys %v", keys)
	}
}

func TestCacheEntriesExpire(t *testing.T) {
	s := newStore(t, redistest.URL(), redistest.Prefix(t))
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
	prefix := redistest.Prefix(t)
	a, b := newStore(t, redistest.URL(), prefix), newStore(t, redistest.URL(), prefix)
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

func TestRedisDownTheServiceKeepsAnswering(t *testing.T) {
	s := newStore(t, "redis://127.0.0.1:1/0", "openhuman-test:")
	ctx := context.Background()
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
