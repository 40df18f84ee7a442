package config

import (
	"slices"
	"strings"
	"testing"
)

func TestUnknownEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin",
		"OPENHUMAN_SEARXNG_ENABLE=true", // the D is missing
		"OPENHUMAN_HOME=/tmp/x",
		"OPENHUMAN_NAT_URL=nats://127.0.0.1:4222",
		"OPENHUMAN_BRAVE_API_KEY=k",
		"OPENHUMAN_TEST_REDIS_URL=redis://127.0.0.1:6391/0",
		"OPENHUMAN_BENCH_1M=1",
		"OPENHUMAN_EVAL_LOCOMO_HALF=design",
		"OPENHUMAN_TOKEN=oh_for_codex",
		"OPENHUMAN_PORT=9301",
		"OPENHUMAN_SEARXNG_ENABLE=again",
		"openhuman_home=/lower/case/is/another/variable",
	}
	got := UnknownEnv(environ)
	want := []Warning{
		{Name: "OPENHUMAN_NAT_URL", Closest: "OPENHUMAN_NATS_URL"},
		{Name: "OPENHUMAN_SEARXNG_ENABLE", Closest: "OPENHUMAN_SEARXNG_ENABLED"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if s := got[1].String(); !strings.Contains(s, "OPENHUMAN_SEARXNG_ENABLE ") || !strings.Contains(s, "did you mean OPENHUMAN_SEARXNG_ENABLED?") {
		t.Errorf("message %q", s)
	}
	var all []string
	for _, name := range EnvVars() {
		all = append(all, name+"=x")
	}
	if w := UnknownEnv(all); len(w) != 0 {
		t.Errorf("known variables were reported: %+v", w)
	}
}

func TestNearestKey(t *testing.T) {
	for unknown, want := range map[string]string{
		"http.adress":                   "http.addr",
		"searxng.enable":                "searxng.enabled",
		"search.providers.brave.api_ky": "search.providers.brave.api_key",
		"http.something_else_entirely":  "",
	} {
		if got := nearestKey(unknown); got != want {
			t.Errorf("nearestKey(%q) = %q, want %q", unknown, got, want)
		}
	}
}
