package minilm

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
)

// manageOptions are test options for both models, the tiny model standing
// for each: the hub serves the same files under any repository name.
func manageOptions(t *testing.T, h *hub, files map[string][]byte) Options {
	o := testOptions(t, h.srv.URL, ownFigures(t, files, false), io.Discard)
	rr := hfhub.Repo{Name: "test/tiny-reranker", Revision: "main", Files: modelFiles}
	o.Reranker, o.RerankerFigures = &rr, ownFigures(t, files, true)
	return o
}

// TestPullListVerifyRemove: pull fetches both models with each file's
// bytes reported; list and verify find them whole; a changed file makes
// both name it; rm takes one model, then the rest.
func TestPullListVerifyRemove(t *testing.T) {
	files := tinyModel(t)
	h := startHub(t, &hub{files: files, anyRepo: true})
	o := manageOptions(t, h, files)
	got := map[string]int64{}
	dirs, err := Pull(context.Background(), o, func(p hfhub.Progress) { got[p.Repo+"/"+p.File] = p.Done })
	if err != nil || len(dirs) != 2 {
		t.Fatalf("%v %v", dirs, err)
	}
	for _, repo := range []string{"test/tiny-bert", "test/tiny-reranker"} {
		for name, data := range files {
			if got[repo+"/"+name] != int64(len(data)) {
				t.Errorf("%s/%s: progress %d, want %d", repo, name, got[repo+"/"+name], len(data))
			}
		}
	}
	for _, s := range Verify(o) {
		if !s.Fetched || s.Err != nil || s.Commit != testCommit || len(s.Files) != 3 {
			t.Fatalf("%s: %+v", s.Role, s)
		}
	}
	os.WriteFile(filepath.Join(dirs[1], "vocab.txt"), []byte("[PAD]\n"), 0o644)
	for _, s := range List(o) {
		if (s.Err != nil) != (s.Role == roleReranker) || (s.Err != nil && !strings.Contains(s.Err.Error(), "vocab.txt")) {
			t.Errorf("%s: %v", s.Role, s.Err)
		}
	}
	if removed, err := Remove(o, "reranker"); err != nil || len(removed) != 1 {
		t.Fatalf("%v %v", removed, err)
	}
	if s := List(o); !s[0].Fetched || s[1].Fetched {
		t.Errorf("after rm reranker: %v, %v", s[0].Fetched, s[1].Fetched)
	}
	if _, err := Remove(o, "nothing-of-that-name"); err == nil {
		t.Error("removed a model nobody named")
	}
	if _, err := Remove(o, ""); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(o.Dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}

// TestVerifyRunsSelfCheck: files that are whole but compute something
// else than the figures fail verify, saying so.
func TestVerifyRunsSelfCheck(t *testing.T) {
	files := tinyModel(t)
	h := startHub(t, &hub{files: files, anyRepo: true})
	o := manageOptions(t, h, files)
	o.Figures = nil // the published ones: random weights miss them
	if _, err := Pull(context.Background(), o, nil); err != nil {
		t.Fatal(err)
	}
	s := Verify(o)
	if s[0].Err == nil || !strings.Contains(s[0].Err.Error(), "self-check") || s[1].Err != nil {
		t.Fatalf("embedder: %v; reranker: %v", s[0].Err, s[1].Err)
	}
}
