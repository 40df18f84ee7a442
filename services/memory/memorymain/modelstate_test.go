package memorymain

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
)

const slowCommit = "fedcba9876543210fedcba9876543210fedcba98"

// slowHub serves a random BERT of about 300 KB under any repository
// name, its weights 32 KB at a time, 50 ms apart: slow enough to watch.
func slowHub(t *testing.T) *httptest.Server {
	return serveModel(t, randomModel(t))
}

// randomModel is the files of a random BERT of about 300 KB.
func randomModel(t *testing.T) map[string][]byte {
	vocab := strings.Fields("[PAD] [UNK] [CLS] [SEP] [MASK] the weather is lovely today . it ' s so sunny outside ! he drove to stadium")
	c := bert.Config{VocabSize: len(vocab), Hidden: 64, Layers: 2, Heads: 2, Intermediate: 128, MaxPositions: 64, TypeVocabSize: 2, HiddenAct: "gelu"}
	files, err := bert.ModelFiles(c, vocab, bert.RandomTensors(c, 7, false))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// serveModel serves files as slowHub does.
func serveModel(t *testing.T, files map[string][]byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, rest, _ := strings.Cut(r.URL.Path, "/resolve/")
		_, file, _ := strings.Cut(rest, "/")
		data, ok := files[file]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", slowCommit)
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		if r.Method == http.MethodHead {
			return
		}
		for len(data) > 0 {
			n := min(len(data), 32<<10)
			w.Write(data[:n])
			w.(http.Flusher).Flush()
			data = data[n:]
			if len(data) > 0 {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// minilmConfig is memory's configuration with the minilm provider,
// fetching from hub into models.
func minilmConfig(t *testing.T, url, hub, models string) config.Config {
	env := map[string]string{"OPENHUMAN_NATS_URL": url, "OPENHUMAN_EMBEDDINGS_PROVIDER": "minilm",
		"OPENHUMAN_MODELS_HUB_URL": hub, "OPENHUMAN_MODELS_DIR": models}
	cfg, err := config.Load(t.TempDir(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bus = bustest.Keys().Service()
	return cfg
}

// modelState is what store health says of the configured model.
func modelState(t *testing.T, s *server) *contract.ModelState {
	p := s.current().EmbeddingProgress(context.Background())
	if p == nil {
		t.Fatal("no embedding progress")
	}
	return p.Configured
}

// waitState polls until the model's state is want, or fails.
func waitState(t *testing.T, s *server, want string, seen func(*contract.ModelState)) *contract.ModelState {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m := modelState(t, s)
		if m != nil && seen != nil {
			seen(m)
		}
		if m != nil && m.State == want {
			return m
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the model never was %s: %+v", want, modelState(t, s))
	return nil
}

// TestModelStateInStoreHealth: while the model comes, store health says
// how many bytes of which file; once it is fetched the published figures
// refuse random weights, and store health says so, as at the next start;
// with the hub down, when the next attempt is. Memory embeds with
// hash-glove throughout.
func TestModelStateInStoreHealth(t *testing.T) {
	ns := mustJetStream(t)
	hub := slowHub(t)
	models := t.TempDir()
	s := startReplica(t, minilmConfig(t, ns.ClientURL(), hub.URL, models))
	var partial *contract.ModelState
	got := waitState(t, s, contract.ModelRefused, func(m *contract.ModelState) {
		if m.State == contract.ModelFetching && m.File == "model.safetensors" && m.FileBytes > 0 && m.FileBytes < m.FileSize && partial == nil {
			partial = m
		}
	})
	if partial == nil {
		t.Fatal("no progress was seen part way through the weights")
	}
	if !strings.Contains(partial.Detail, "fetching sentence-transformers/all-MiniLM-L6-v2: file 3 of 3, model.safetensors, ") ||
		!strings.Contains(partial.Detail, "offline embedder meanwhile") {
		t.Errorf("detail while fetching: %s", partial.Detail)
	}
	if got.FetchedBytes < partial.FileSize || got.FilesDone != 3 || !strings.Contains(got.Detail, "self-check") {
		t.Errorf("fetched, then refused: %+v", got)
	}
	if p := s.current().EmbeddingProgress(context.Background()); !strings.HasPrefix(p.Model, "hash-glove") {
		t.Errorf("memory embeds with %s while the model comes", p.Model)
	}

	// The next start finds the model on disk, refuses it, and embeds
	// with hash-glove.
	next := startReplica(t, minilmConfig(t, ns.ClientURL(), hub.URL, models))
	if m := waitState(t, next, contract.ModelRefused, nil); !strings.Contains(m.Detail, "self-check") {
		t.Errorf("random weights at the next start: %+v", m)
	}
	learn(t, next, "the weather is lovely today")
	deadline := time.Now().Add(20 * time.Second)
	p := next.current().EmbeddingProgress(context.Background())
	for ; p.Pending != 0 && time.Now().Before(deadline); p = next.current().EmbeddingProgress(context.Background()) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.HasPrefix(p.Model, "hash-glove") || p.Pending != 0 {
		t.Errorf("after the refusal memory embeds with %s, %d pending", p.Model, p.Pending)
	}

	hub.Close()
	down := startReplica(t, minilmConfig(t, ns.ClientURL(), hub.URL, t.TempDir()))
	m := waitState(t, down, contract.ModelFailed, nil)
	if at, err := time.Parse(time.RFC3339, m.RetryAt); err != nil || time.Until(at) < 50*time.Second || m.Failures != 1 ||
		!strings.Contains(m.Detail, "cannot be reached") {
		t.Errorf("hub down: %+v", m)
	}
}

// TestDefaultFetchesBothModels: by default memory fetches the sentence
// model and the reranker, and store health follows both: each is checked
// once fetched, and refused (random weights; these have no cross-encoder
// head).
func TestDefaultFetchesBothModels(t *testing.T) {
	ns := mustJetStream(t)
	hub := slowHub(t)
	cfg := minilmConfig(t, ns.ClientURL(), hub.URL, t.TempDir())
	def, err := config.Load(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Memory.Embeddings.Provider = def.Memory.Embeddings.Provider
	s := startReplica(t, cfg)
	waitState(t, s, contract.ModelRefused, nil)
	deadline := time.Now().Add(20 * time.Second)
	r := s.current().EmbeddingProgress(context.Background()).Reranker
	for ; (r == nil || r.State != contract.ModelRefused) && time.Now().Before(deadline); r = s.current().EmbeddingProgress(context.Background()).Reranker {
		time.Sleep(5 * time.Millisecond)
	}
	if r == nil || r.Repo != "cross-encoder/ms-marco-MiniLM-L6-v2" || r.State != contract.ModelRefused ||
		!strings.Contains(r.Detail, "memory ranks without it meanwhile") {
		t.Fatalf("the reranker: %+v", r)
	}
}

// TestModelsOffFetchesNothing: with models off no model is fetched,
// nothing is written under the models folder, store health names no
// model, and memory embeds with hash-glove.
func TestModelsOffFetchesNothing(t *testing.T) {
	ns := mustJetStream(t)
	hub := slowHub(t)
	models := t.TempDir()
	cfg := minilmConfig(t, ns.ClientURL(), hub.URL, models)
	cfg.Memory.Embeddings.Models = "off"
	s := startReplica(t, cfg)
	time.Sleep(200 * time.Millisecond)
	p := s.current().EmbeddingProgress(context.Background())
	if p.Configured != nil || p.Reranker != nil || !strings.HasPrefix(p.Model, "hash-glove") {
		t.Errorf("with models off: %s, %+v, %+v", p.Model, p.Configured, p.Reranker)
	}
	if entries, _ := os.ReadDir(models); len(entries) != 0 {
		t.Errorf("the models folder holds %v", entries)
	}
}
