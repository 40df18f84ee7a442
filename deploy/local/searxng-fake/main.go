// Command searxng-fake stands in for SearXNG in deploy/compose.local.yml,
// where no SearXNG image can be had. It answers GET /search?q=...&format=json
// with results built from the query, in SearXNG's JSON shape (what
// services/search/providers reads), 403 for any other format as SearXNG
// does when json is not enabled, and /healthz with OK. It listens on :8080,
// SearXNG's port, or $SEARXNG_FAKE_ADDR.
package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

func main() {
	addr := os.Getenv("SEARXNG_FAKE_ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		log.Info("search", "q", q.Get("q"))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(results(q.Get("q")))
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving a SearXNG stand-in", "addr", addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Error("serving", "err", err)
		os.Exit(1)
	}
}

type result struct {
	URL      string   `json:"url"`
	Title    string   `json:"title"`
	Content  string   `json:"content"`
	Engine   string   `json:"engine"`
	Engines  []string `json:"engines"`
	Score    float64  `json:"score"`
	Category string   `json:"category"`
}

// results are three pages about q, the way SearXNG answers, so a test can
// tell its own query's results from another's.
func results(q string) map[string]any {
	slug := url.PathEscape(strings.ToLower(strings.Join(strings.Fields(q), "-")))
	var rs []result
	for i, engine := range []string{"duckduckgo", "wikipedia", "brave"} {
		rs = append(rs, result{
			URL:      fmt.Sprintf("https://www.example.org/%s/%d", slug, i+1),
			Title:    fmt.Sprintf("%s (result %d)", q, i+1),
			Content:  fmt.Sprintf("A page about %s.", q),
			Engine:   engine,
			Engines:  []string{engine},
			Score:    float64(3 - i),
			Category: "general",
		})
	}
	return map[string]any{"query": q, "number_of_results": len(rs), "results": rs,
		"answers": []any{}, "corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{}}
}
