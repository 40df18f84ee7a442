package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/bert"
)

// BenchmarkColdStart is the time from starting `openhuman-core mcp` in an
// empty home to its reply to initialize: with models off (the offline
// embedder), and with models on, the default, while they are absent (the
// hub down, or the models being fetched in the background), and with a
// sentence model of MiniLM's exact shape on disk, which memory loads and
// self-checks before it serves (random weights: refused by the
// self-check after the same work).
//
//	go test -run '^$' -bench ColdStart -benchtime 5x ./services/gateway/cmd/openhuman-core/
func BenchmarkColdStart(b *testing.B) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	trickle := trickleModelHub(b)
	onDisk := miniLMModelsDir(b)
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"models-off", []string{"OPENHUMAN_MODELS=off"}},
		{"minilm-hub-down", []string{"OPENHUMAN_MODELS_HUB_URL=" + down.URL}},
		{"minilm-fetching", []string{"OPENHUMAN_MODELS_HUB_URL=" + trickle.URL}},
		{"minilm-on-disk", []string{"OPENHUMAN_MODELS_HUB_URL=" + down.URL, "OPENHUMAN_MODELS_DIR=" + onDisk}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				home := b.TempDir()
				start := time.Now()
				p := startMCP(b, home, tc.env...)
				if resp := p.initialize("bench"); resp["result"] == nil {
					b.Fatalf("initialize: %v", resp)
				}
				total += time.Since(start)
				b.StopTimer()
				p.closeAndWait()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/initialize")
		})
	}
}

// trickleModelHub answers every file at once but the weights, which come
// a kilobyte a second: a fetch under way for as long as a start lasts.
func trickleModelHub(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", tinyCommit)
		if !strings.HasSuffix(r.URL.Path, "/model.safetensors") {
			w.Write([]byte("{}\n"))
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(90<<20))
		for {
			if _, err := w.Write(make([]byte, 1<<10)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// miniLMModelsDir is a models folder holding a random model of
// all-MiniLM-L6-v2's exact shape as the sentence model, pulled from a
// local hub.
func miniLMModelsDir(b *testing.B) string {
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for i := len(vocab); i < 30522; i++ {
		vocab = append(vocab, "w"+strconv.Itoa(i))
	}
	c := bert.Config{VocabSize: len(vocab), Hidden: 384, Layers: 6, Heads: 12, Intermediate: 1536, MaxPositions: 512, TypeVocabSize: 2, HiddenAct: "gelu"}
	files, err := bert.ModelFiles(c, vocab, bert.RandomTensors(c, 11, false))
	if err != nil {
		b.Fatal(err)
	}
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, rest, _ := strings.Cut(r.URL.Path, "/resolve/")
		_, file, _ := strings.Cut(rest, "/")
		w.Header().Set("X-Repo-Commit", tinyCommit)
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(files[file]))
	}))
	defer hub.Close()
	home := b.TempDir()
	var out, errb bytes.Buffer
	env := map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_MODELS_HUB_URL": hub.URL}
	m := &Main{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	if code := m.Run(context.Background(), []string{"models", "pull"}); code != exitOK {
		b.Fatalf("pull: %s", errb.String())
	}
	return home + "/models"
}
