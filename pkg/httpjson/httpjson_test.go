package httpjson

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPost(t *testing.T) {
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != UserAgent || r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(400)
			return
		}
		w.Write([]byte(`{"v":42}`))
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			w.Write([]byte(`{"error":{"message":"Rate limit reached"}}`))
			return
		}
		w.Write([]byte(`{"v":7}`))
	})
	mux.HandleFunc("/badkey", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(401)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
	})
	mux.HandleFunc("/ollama404", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		w.Write([]byte(`{"error":"model \"nomic\" not found, try pulling it first"}`))
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html>oops</html>`)) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(strings.Repeat("x", 2000))) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { time.Sleep(600 * time.Millisecond) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{Service: "test server", Backoff: time.Millisecond, MaxBody: 1000}
	ctx := context.Background()
	auth := map[string]string{"Authorization": "Bearer k"}

	var out struct{ V int }
	if err := c.Post(ctx, srv.URL+"/ok", auth, map[string]string{"a": "b"}, &out); err != nil || out.V != 42 {
		t.Fatalf("ok: %v %v", out, err)
	}
	if err := c.Post(ctx, srv.URL+"/flaky", nil, nil, &out); err != nil || out.V != 7 || calls.Load() != 3 {
		t.Fatalf("429 twice then success: %v %v after %d calls", out, err, calls.Load())
	}
	calls.Store(0)
	err := c.Post(ctx, srv.URL+"/badkey", nil, nil, &out)
	var e *Error
	if !errors.As(err, &e) || e.Status != 401 || e.Retryable || calls.Load() != 1 || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Fatalf("401 must not be retried and must say why: %v (%d calls)", err, calls.Load())
	}
	for path, want := range map[string]string{
		"/ollama404": `model "nomic" not found`,
		"/garbage":   "not the JSON expected",
		"/huge":      "over 1000 bytes",
	} {
		if err := c.Post(ctx, srv.URL+path, nil, nil, &out); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := c.Post(short, srv.URL+"/slow", nil, nil, &out); !errors.As(err, &e) || !strings.Contains(err.Error(), "no answer in time") {
		t.Errorf("timeout: %v", err)
	}
	down := &Client{Service: "down server", Attempts: 2, Backoff: time.Millisecond}
	if err := down.Post(ctx, "http://127.0.0.1:1/x", nil, nil, &out); !errors.As(err, &e) || !e.Retryable || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("refused: %v", err)
	}
}

func TestErrorMessageShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`:                                        "API key not valid. Please pass a valid API key.",
		`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}`: "The provided subscription token is invalid.",
		`{"detail":{"error":"This request exceeds your plan's set usage limit."}}`:                                                                   "This request exceeds your plan's set usage limit.",
		`{"detail":"Not authenticated"}`:        "Not authenticated",
		`{"error":"model not found"}`:           "model not found",
		`{"message":"Too many requests"}`:       "Too many requests",
		`<html><body>Bad gateway</body></html>`: "<html><body>Bad gateway</body></html>",
		``:                                      "no message",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestGetAndHeadersOnFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Content-Type") != "" || r.URL.Query().Get("q") != "x" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("X-RateLimit-Reset", "7, 3600")
		w.WriteHeader(429)
	}))
	defer srv.Close()
	c := &Client{Service: "test server", Attempts: 1}
	err := c.Get(context.Background(), srv.URL+"/search?q=x", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Status != 429 || e.Header.Get("X-RateLimit-Reset") != "7, 3600" {
		t.Fatalf("GET answered 429: %v", err)
	}
}
