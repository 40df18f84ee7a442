package hfhub

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestLoadRefusesChangedFile: a file changed after its fetch is refused
// on load, with the expected and found hashes; a fetch replaces it.
func TestLoadRefusesChangedFile(t *testing.T) {
	hub := newFakeHub(t)
	c := mustClient(t, hub.srv.URL)
	repo := testRepoFiles(nil)
	dir, err := c.Fetch(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.safetensors")
	b, _ := os.ReadFile(path)
	b[100] ^= 1
	os.WriteFile(path, b, 0o644)
	_, err = c.Local(repo)
	want := "expected sha256 " + sha(hub.files["model.safetensors"])
	if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want ENGINE with %q", err, want)
	}
	if _, err := c.Fetch(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Local(repo); err != nil {
		t.Fatalf("after the fetch: %v", err)
	}
}

// TestFetchRefusesWrongContent: a file whose hash is not its pin (a wrong
// pin, or a hub serving damaged bytes) is refused and not kept.
func TestFetchRefusesWrongContent(t *testing.T) {
	t.Run("wrong pin", func(t *testing.T) {
		hub := newFakeHub(t)
		c := mustClient(t, hub.srv.URL)
		checkRefused(t, c, testRepoFiles(map[string]string{"vocab.txt": strings.Repeat("ab", 32)}), "vocab.txt")
	})
	t.Run("damaged on the hub", func(t *testing.T) {
		hub := newFakeHub(t)
		pin := sha(hub.files["model.safetensors"])
		hub.files["model.safetensors"] = append([]byte("x"), hub.files["model.safetensors"][1:]...)
		c := mustClient(t, hub.srv.URL)
		checkRefused(t, c, testRepoFiles(map[string]string{"model.safetensors": pin}), "model.safetensors")
	})
}

func checkRefused(t *testing.T, c *Client, repo Repo, file string) {
	t.Helper()
	_, err := c.Fetch(context.Background(), repo)
	if contract.ErrorCode(err) != contract.CodeEngine || !strings.Contains(err.Error(), "expected sha256") {
		t.Fatalf("got %v", err)
	}
	dir := filepath.Join(c.Dir, filepath.FromSlash(repo.Name), testCommit)
	for _, name := range []string{file, file + ".part", checksumsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was kept", name)
		}
	}
	if _, err := c.Local(repo); err == nil {
		t.Error("a refused model loads")
	}
}

// TestHubDownFailsFast: with nothing listening, a fetch fails at once
// with UNAVAILABLE, and a model fetched before still loads.
func TestHubDownFailsFast(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c := mustClient(t, srv.URL)
	start := time.Now()
	_, err := c.Fetch(context.Background(), testRepoFiles(nil))
	if contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestFetchRetryingBacksOff: while the hub fails, attempts come at
// doubling intervals; when it answers, the fetch completes; cancelling
// stops the wait at once.
func TestFetchRetryingBacksOff(t *testing.T) {
	hub := newFakeHub(t)
	var mu sync.Mutex
	var attempts []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodHead {
			attempts = append(attempts, time.Now())
		}
		down := len(attempts) <= 3
		mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		hub.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := mustClient(t, srv.URL)
	if _, err := c.FetchRetrying(context.Background(), testRepoFiles(nil), Backoff{Min: 20 * time.Millisecond, Max: time.Second}); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 4 {
		t.Fatalf("%d attempts", len(attempts))
	}
	for i := 2; i < len(attempts); i++ {
		prev, gap := attempts[i-1].Sub(attempts[i-2]), attempts[i].Sub(attempts[i-1])
		if gap < prev*3/2 {
			t.Errorf("attempt %d came %s after the last, the one before %s: not backing off", i, gap, prev)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	c2 := mustClient(t, down.URL)
	done := make(chan error)
	go func() {
		_, err := c2.FetchRetrying(ctx, testRepoFiles(nil), Backoff{Min: time.Hour, Max: time.Hour})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if contract.ErrorCode(err) != contract.CodeUnavailable {
			t.Errorf("cancelled: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("cancelling did not stop the retries")
	}
}

func TestRepoNamesStayInside(t *testing.T) {
	c := mustClient(t, "http://127.0.0.1:1")
	for _, r := range []Repo{
		{Name: "../etc", Revision: "main", Files: []File{{Path: "x"}}},
		{Name: "a/b", Revision: "../main", Files: []File{{Path: "x"}}},
		{Name: "a/b", Revision: "main", Files: []File{{Path: "../x"}}},
		{Name: "a/b", Revision: "main", Files: []File{{Path: "/x"}}},
		{Name: "a/b", Revision: "main"},
	} {
		if _, err := c.Fetch(context.Background(), r); contract.ErrorCode(err) != contract.CodeInvalidRequest {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

// TestStalledTransferEnds: a hub that stops sending mid-file does not
// hold the fetch: it ends with UNAVAILABLE, keeping the bytes that came
// for the next attempt to resume.
func TestStalledTransferEnds(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", testCommit)
		w.Header().Set("Content-Length", "1000")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(make([]byte, 300))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := mustClient(t, srv.URL)
	c.Stall = 100 * time.Millisecond
	repo := Repo{Name: testRepo, Revision: "main", Files: []File{{Path: "config.json"}}}
	start := time.Now()
	_, err := c.Fetch(context.Background(), repo)
	if contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	part, _ := os.Stat(filepath.Join(c.Dir, filepath.FromSlash(testRepo), testCommit, "config.json.part"))
	if part == nil || part.Size() != 300 {
		t.Errorf("the part kept %v", part)
	}
}
