package hfhub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

const (
	testRepo   = "sentence-transformers/tiny-test"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
)

// fakeHub serves one repository as the hub does: /<repo>/resolve/<rev>/<path>
// for "main" and the commit, X-Repo-Commit on its answers, the large file
// through a redirect to a file store that does not name the commit, and
// ranges. It can cut a transfer half way, once per file.
type fakeHub struct {
	files map[string][]byte
	mu    sync.Mutex
	cut   map[string]bool // paths whose next full transfer is cut
	log   []string        // "GET path range"
	srv   *httptest.Server
}

func newFakeHub(t *testing.T) *fakeHub {
	r := rand.New(rand.NewPCG(1, 2))
	weights := make([]byte, 300_000)
	for i := range weights {
		weights[i] = byte(r.IntN(256))
	}
	h := &fakeHub{files: map[string][]byte{
		"config.json":       []byte(`{"hidden_size": 32}`),
		"vocab.txt":         []byte("[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n"),
		"model.safetensors": weights,
	}, cut: map[string]bool{}}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if path, ok := strings.CutPrefix(r.URL.Path, "/store/"); ok {
		h.serve(w, r, path)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+testRepo+"/resolve/")
	rev, path, _ := strings.Cut(rest, "/")
	if !ok || (rev != "main" && rev != testCommit) || h.files[path] == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-Repo-Commit", testCommit)
	if strings.HasSuffix(path, ".safetensors") {
		http.Redirect(w, r, "/store/"+path, http.StatusFound)
		return
	}
	h.serve(w, r, path)
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request, path string) {
	h.mu.Lock()
	h.log = append(h.log, r.Method+" "+path+" "+r.Header.Get("Range"))
	cut := h.cut[path] && r.Method == http.MethodGet
	h.cut[path] = false
	h.mu.Unlock()
	data := h.files[path]
	if cut {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:len(data)/3])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	http.ServeContent(w, r, path, time.Time{}, bytes.NewReader(data))
}

func (h *fakeHub) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.log...)
}

func testRepoFiles(pins map[string]string) Repo {
	r := Repo{Name: testRepo, Revision: "main"}
	for _, p := range []string{"config.json", "vocab.txt", "model.safetensors"} {
		r.Files = append(r.Files, File{Path: p, SHA256: pins[p]})
	}
	return r
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func mustClient(t *testing.T, base string) *Client {
	return &Client{Dir: t.TempDir(), BaseURL: base, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestFetchPinsRevisionAndLoadsOffline(t *testing.T) {
	hub := newFakeHub(t)
	c := mustClient(t, hub.srv.URL)
	repo := testRepoFiles(nil)
	if _, err := c.Local(repo); contract.ErrorCode(err) != contract.CodeNotFound {
		t.Fatalf("before a fetch: %v", err)
	}
	dir, err := c.Fetch(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(c.Dir, "sentence-transformers", "tiny-test", testCommit); dir != want {
		t.Errorf("dir %s, want %s", dir, want)
	}
	for p, data := range hub.files {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v", p, len(got), err)
		}
	}
	ref, _ := os.ReadFile(filepath.Join(c.Dir, "sentence-transformers", "tiny-test", "refs", "main"))
	if strings.TrimSpace(string(ref)) != testCommit {
		t.Errorf("refs/main holds %q", ref)
	}
	hub.srv.Close() // offline from here
	if d, err := c.Local(repo); err != nil || d != dir {
		t.Fatalf("offline load: %s %v", d, err)
	}
	if d, err := c.Fetch(context.Background(), repo); err != nil || d != dir {
		t.Fatalf("offline fetch of a fetched model: %s %v", d, err)
	}
}

// TestFetchResumesCutTransfer: a transfer cut a third of the way resumes
// from where it stopped with a Range request, within the same fetch.
func TestFetchResumesCutTransfer(t *testing.T) {
	hub := newFakeHub(t)
	hub.cut["model.safetensors"] = true
	c := mustClient(t, hub.srv.URL)
	dir, err := c.Fetch(context.Background(), testRepoFiles(map[string]string{"model.safetensors": sha(hub.files["model.safetensors"])}))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if !bytes.Equal(got, hub.files["model.safetensors"]) {
		t.Fatalf("resumed file differs (%d bytes)", len(got))
	}
	want := "GET model.safetensors bytes=" + strconv.Itoa(len(hub.files["model.safetensors"])/3) + "-"
	if reqs := hub.requests(); !contains(reqs, want) {
		t.Errorf("no resumed request %q among %q", want, reqs)
	}
}

// TestFetchResumesAcrossCalls: a part left by an earlier process is
// resumed, not started over.
func TestFetchResumesAcrossCalls(t *testing.T) {
	hub := newFakeHub(t)
	c := mustClient(t, hub.srv.URL)
	data := hub.files["model.safetensors"]
	dir := filepath.Join(c.Dir, "sentence-transformers", "tiny-test", testCommit)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "model.safetensors.part"), data[:1000], 0o644)
	os.MkdirAll(filepath.Join(c.Dir, "sentence-transformers", "tiny-test", "refs"), 0o755)
	os.WriteFile(filepath.Join(c.Dir, "sentence-transformers", "tiny-test", "refs", "main"), []byte(testCommit), 0o644)
	if _, err := c.Fetch(context.Background(), testRepoFiles(nil)); err != nil {
		t.Fatal(err)
	}
	if reqs := hub.requests(); !contains(reqs, "GET model.safetensors bytes=1000-") {
		t.Errorf("not resumed: %q", reqs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if !bytes.Equal(got, data) {
		t.Fatal("resumed file differs")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestCopiedModelsLoadOffline: a models directory copied from a machine
// that fetched loads on one that never reached the hub.
func TestCopiedModelsLoadOffline(t *testing.T) {
	hub := newFakeHub(t)
	c := mustClient(t, hub.srv.URL)
	if _, err := c.Fetch(context.Background(), testRepoFiles(nil)); err != nil {
		t.Fatal(err)
	}
	other := mustClient(t, "http://127.0.0.1:1")
	other.Dir = filepath.Join(t.TempDir(), "models")
	if err := os.CopyFS(other.Dir, os.DirFS(c.Dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Local(testRepoFiles(nil)); err != nil {
		t.Fatal(err)
	}
}
