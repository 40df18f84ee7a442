package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/readiness"
)

// TestReadyzSaysTheModelIsNotReady: with the minilm provider and a model
// hub that cannot be reached, the gateway is degraded, not unready
// (memory embeds with its offline embedder and ranks without the
// reranker), and /readyz and /metrics say that the fetches failed and
// when they are tried again.
func TestReadyzSaysTheModelIsNotReady(t *testing.T) {
	hub := httptest.NewServer(http.NotFoundHandler())
	hub.Close()
	env := map[string]string{"OPENHUMAN_EMBEDDINGS_PROVIDER": "minilm", "OPENHUMAN_MODELS_HUB_URL": hub.URL}
	ts := serveGateway(t, gatewaytest.StartIn(t, t.TempDir(), env, gateway.Options{}))
	deadline := time.Now().Add(30 * time.Second)
	var r readiness.Report
	var code int
	for {
		code, r = readyzChecked(t, ts.URL)
		e := r.MemoryStore.Embedding
		if e.Configured != nil && e.Configured.State == contract.ModelFailed && e.Reranker != nil && e.Reranker.State == contract.ModelFailed ||
			time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	m := r.MemoryStore.Embedding.Configured
	if code != http.StatusOK || r.Status != readiness.Degraded || m == nil || m.State != contract.ModelFailed || m.RetryAt == "" ||
		!strings.Contains(r.MemoryModel, "fetching sentence-transformers/all-MiniLM-L6-v2 failed (the model hub cannot be reached") ||
		!strings.HasPrefix(r.Services[contract.ServiceMemory], "degraded: fetching sentence-transformers/all-MiniLM-L6-v2 failed") {
		t.Fatalf("readyz %d %+v %+v", code, r, m)
	}
	if !strings.Contains(r.MemoryReranker, "fetching cross-encoder/ms-marco-MiniLM-L6-v2 failed") || !strings.Contains(r.MemoryReranker, "memory ranks without it meanwhile") {
		t.Errorf("the reranker in /readyz: %q", r.MemoryReranker)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`openhuman_memory_model_ready{repo="sentence-transformers/all-MiniLM-L6-v2"} 0`,
		`openhuman_memory_model_fetch_failures_total{repo="sentence-transformers/all-MiniLM-L6-v2"} `,
		`openhuman_memory_model_ready{repo="cross-encoder/ms-marco-MiniLM-L6-v2"} 0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
