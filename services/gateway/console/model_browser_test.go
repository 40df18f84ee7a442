package console_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// trickleHub serves a model's small files at once and its weights, said
// to be 4 MB, 16 KB every 50 ms: a fetch that is under way
// for as long as a test looks.
func trickleHub(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", "00112233445566778899aabbccddeeff00112233")
		if !strings.HasSuffix(r.URL.Path, "/model.safetensors") {
			w.Write([]byte("{}\n"))
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(4<<20))
		chunk := make([]byte, 16<<10)
		for range 256 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestToolsPageShowsTheModelFetch: with the minilm provider, the tools
// page shows the configured model and the reranker being fetched, with
// the bytes of the file that comes, and that memory embeds with its
// offline embedder and ranks without the reranker meanwhile.
func TestToolsPageShowsTheModelFetch(t *testing.T) {
	browsertest.Require(t)
	hub := trickleHub(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_EMBEDDINGS_PROVIDER=minilm", "OPENHUMAN_MODELS_HUB_URL="+hub.URL)
	p := newPerson(t, srv.URL)
	p.signIn(ownerToken)
	p.open("/console/tools")
	p.sees("Memory embeddings")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.bodyText(), "model.safetensors, ") {
		if time.Now().After(deadline) {
			t.Fatalf("the fetch never showed on the page: %s", p.bodyText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	body := strings.Join(strings.Fields(p.bodyText()), " ")
	for _, want := range []string{"Configured model sentence-transformers/all-MiniLM-L6-v2: fetching", "of 4194304 bytes",
		"Reranker cross-encoder/ms-marco-MiniLM-L6-v2: fetching", "memory ranks without it meanwhile",
		"memory embeds with its offline embedder meanwhile", "Model hash-glove"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q: %s", want, body)
		}
	}
	if err := chromedp.Do(p.ctx, chromedp.ScrollIntoView(`#embedding-h`)); err != nil {
		t.Fatal(err)
	}
	browsertest.Shot(t, p.ctx, "tools-model-fetch")
}
