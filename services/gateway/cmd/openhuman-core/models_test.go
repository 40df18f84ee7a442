package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

const tinyCommit = "0123456789abcdef0123456789abcdef01234567"

// tinyHub serves a small random BERT as the hub would, under any
// repository name, and the figures that model itself reproduces.
func tinyHub(t *testing.T) (*httptest.Server, []bert.PairFigure, []bert.PairFigure) {
	vocab := strings.Fields("[PAD] [UNK] [CLS] [SEP] [MASK] the weather is lovely today . it ' s so sunny outside ! he drove to stadium how many people live in berlin ?")
	c := bert.Config{VocabSize: len(vocab), Hidden: 16, Layers: 1, Heads: 2, Intermediate: 32, MaxPositions: 64, TypeVocabSize: 2, HiddenAct: "gelu"}
	files, err := bert.ModelFiles(c, vocab, bert.RandomTensors(c, 5, true))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, rest, _ := strings.Cut(r.URL.Path, "/resolve/")
		_, file, _ := strings.Cut(rest, "/")
		data, ok := files[file]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", tinyCommit)
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	e, err := bert.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var emb, rr []bert.PairFigure
	for _, f := range bert.EmbedderFigures {
		a, _ := e.Embed(f.A)
		b, _ := e.Embed(f.B)
		var cos float64
		for i := range a {
			cos += float64(a[i]) * float64(b[i])
		}
		emb = append(emb, bert.PairFigure{A: f.A, B: f.B, Want: cos})
	}
	for _, f := range bert.RerankerFigures {
		s, _ := e.Score(f.A, f.B)
		rr = append(rr, bert.PairFigure{A: f.A, B: f.B, Want: float64(s)})
	}
	return srv, emb, rr
}

// models runs `openhuman-core models ARGS` on home against hub, the
// self-checks expecting the tiny model's own figures.
func models(t *testing.T, home, hub string, emb, rr []bert.PairFigure, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"OPENHUMAN_HOME": home, "OPENHUMAN_MODELS_HUB_URL": hub}
	m := &Main{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
		tuneModels: func(o *memorymain.ModelOptions) { o.Figures, o.RerankerFigures = emb, rr }}
	code := m.Run(context.Background(), append([]string{"models"}, args...))
	return code, out.String(), errb.String()
}

// TestModelsCommand: pull fetches both models with each file's bytes on
// stderr; list and verify show them; a corrupted file fails verify,
// named; rm removes one model, then all.
func TestModelsCommand(t *testing.T) {
	hub, emb, rr := tinyHub(t)
	home := t.TempDir()
	run := func(args ...string) (int, string, string) { return models(t, home, hub.URL, emb, rr, args...) }
	code, out, errs := run("pull")
	if code != exitOK || strings.Count(out, "pulled ") != 2 {
		t.Fatalf("pull: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"sentence-transformers/all-MiniLM-L6-v2/model.safetensors: ", "cross-encoder/ms-marco-MiniLM-L6-v2/vocab.txt: ", "(100%)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("pull's progress lacks %q:\n%s", want, errs)
		}
	}
	code, out, _ = run("list")
	if code != exitOK || strings.Count(out, "@"+tinyCommit+"  files match their checksums") != 2 || !strings.Contains(out, "model.safetensors") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	code, out, errs = run("verify")
	if code != exitOK || strings.Count(out, "verified: checksums and self-check pass") != 2 {
		t.Fatalf("verify: %d\n%s\n%s", code, out, errs)
	}
	weights := filepath.Join(home, "models", "cross-encoder", "ms-marco-MiniLM-L6-v2", tinyCommit, "model.safetensors")
	b, _ := os.ReadFile(weights)
	b[len(b)-1] ^= 1
	os.WriteFile(weights, b, 0o644)
	code, _, errs = run("verify")
	if code != exitFailure || !strings.Contains(errs, "reranker cross-encoder/ms-marco-MiniLM-L6-v2 failed verification: model file model.safetensors changed") {
		t.Fatalf("verify of a corrupted file: %d\n%s", code, errs)
	}
	if code, out, _ = run("rm", "reranker"); code != exitOK || out != "removed reranker cross-encoder/ms-marco-MiniLM-L6-v2\n" {
		t.Fatalf("rm reranker: %d %q", code, out)
	}
	if _, out, _ = run("list"); !strings.Contains(out, "reranker  cross-encoder/ms-marco-MiniLM-L6-v2  not fetched") {
		t.Errorf("list after rm:\n%s", out)
	}
	if code, _, _ = run("rm", "--all"); code != exitOK {
		t.Fatal("rm --all failed")
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "models")); len(entries) != 0 {
		t.Errorf("rm --all left %v", entries)
	}
}

// TestModelsCommandErrors: the published figures refuse random weights,
// by name; a hub that cannot be reached fails pull; slips are usage
// errors.
func TestModelsCommandErrors(t *testing.T) {
	hub, _, _ := tinyHub(t)
	home := t.TempDir()
	if code, _, errs := models(t, home, hub.URL, nil, nil, "pull"); code != exitOK {
		t.Fatalf("pull: %s", errs)
	}
	code, _, errs := models(t, home, hub.URL, nil, nil, "verify")
	if code != exitFailure || !strings.Contains(errs, "embedder sentence-transformers/all-MiniLM-L6-v2 failed verification: self-check: ") {
		t.Errorf("verify with the published figures: %d %s", code, errs)
	}
	if code, _, errs := models(t, t.TempDir(), "http://127.0.0.1:1", nil, nil, "pull"); code != exitFailure || !strings.Contains(errs, "cannot be reached") {
		t.Errorf("pull from nowhere: %d %s", code, errs)
	}
	for _, args := range [][]string{nil, {"fetch"}, {"rm"}, {"list", "x"}, {"rm", "x", "--all"}} {
		if code, _, _ := models(t, home, hub.URL, nil, nil, args...); code != exitUsage {
			t.Errorf("models %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, out, _ := models(t, home, hub.URL, nil, nil, "--help"); code != exitOK || !strings.Contains(out, "models pull|list|verify|rm") {
		t.Errorf("models --help: %d %s", code, out)
	}
}
