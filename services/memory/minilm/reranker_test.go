package minilm

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
)

// rerankerOptions serve the tiny model as the reranker, with figures.
func rerankerOptions(t *testing.T, hubURL string, figures []bert.PairFigure) Options {
	o := testOptions(t, hubURL, nil, io.Discard)
	o.Reranker, o.RerankerFigures, o.RerankerTracker = o.Repo, figures, NewTracker()
	return o
}

// TestRerankerReadyOnceFetched: the reranker answers UNAVAILABLE while
// its model is fetched, then, in the same process, scores each passage
// as the model does, in their order; the next start loads it from disk.
func TestRerankerReadyOnceFetched(t *testing.T) {
	files := tinyModel(t)
	h := startHub(t, &hub{files: files, hold: make(chan struct{})})
	figs := ownFigures(t, files, true)
	o := rerankerOptions(t, h.srv.URL, figs)
	r, fetching := OpenReranker(context.Background(), o)
	if r == nil {
		t.Fatal("no reranker while its model is fetched")
	}
	_, err := r.Rerank(context.Background(), figs[0].A, []string{figs[0].B})
	close(h.hold)
	if contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("before its model is there: %v, want UNAVAILABLE", err)
	}
	if err := wait(t, fetching); err != nil {
		t.Fatal(err)
	}
	if st := r.State(); !r.Ready() || st == nil || st.State != contract.ModelReady || st.Detail != testRepo.Name+" is loaded, self-checked, and reranks" {
		t.Fatalf("after the fetch: ready %v, %+v", r.Ready(), st)
	}
	passages := []string{figs[1].B, figs[0].B, figs[1].B}
	scores, err := r.Rerank(context.Background(), figs[0].A, passages)
	if err != nil || len(scores) != 3 || scores[0] != figs[1].Want || scores[1] != figs[0].Want || scores[2] != scores[0] {
		t.Fatalf("%v %v, want %v", scores, err, figs)
	}
	h.srv.Close()
	before := h.requests()
	next, fetching := OpenReranker(context.Background(), o)
	if err := wait(t, fetching); err != nil || !next.Ready() || h.requests() != before {
		t.Fatalf("the next start fetched again or is not ready: %v", err)
	}
	if got, err := next.Rerank(context.Background(), figs[0].A, nil); err != nil || len(got) != 0 {
		t.Fatalf("no passages: %v %v", got, err)
	}
}

// TestRerankerRefusedStaysUnavailable: a model that misses its figures
// is refused after its fetch, says so in its state, and never scores.
func TestRerankerRefusedStaysUnavailable(t *testing.T) {
	h := newHub(t, tinyModel(t))
	o := rerankerOptions(t, h.srv.URL, bert.RerankerFigures)
	r, fetching := OpenReranker(context.Background(), o)
	if err := wait(t, fetching); err == nil {
		t.Fatal("a model that misses the published figures was taken")
	}
	st := r.State()
	if r.Ready() || st == nil || st.State != contract.ModelRefused || st.LastError == "" {
		t.Fatalf("refused: ready %v, %+v", r.Ready(), st)
	}
	_, err := r.Rerank(context.Background(), "q", []string{"p"})
	if contract.ErrorCode(err) != contract.CodeUnavailable || contract.ErrorMessage(err) != "the reranker "+testRepo.Name+" is not ready: refused" {
		t.Fatalf("%v", err)
	}
}

// TestRerankerHubDown: with the hub down the reranker is there at once,
// unavailable, and says when the next fetch is.
func TestRerankerHubDown(t *testing.T) {
	h := newHub(t, tinyModel(t))
	h.srv.Close()
	o := rerankerOptions(t, h.srv.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	r, fetching := OpenReranker(ctx, o)
	for st := r.State(); st == nil || st.State != contract.ModelFailed; st = r.State() {
		select {
		case err := <-fetching:
			t.Fatalf("the fetch ended before it failed once: %v", err)
		default:
			time.Sleep(time.Millisecond)
		}
	}
	if st := r.State(); st.RetryAt == "" || st.Failures == 0 {
		t.Errorf("failed: %+v", st)
	}
	if _, err := r.Rerank(ctx, "q", []string{"p"}); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Errorf("%v", err)
	}
	cancel()
	if err := wait(t, fetching); err == nil {
		t.Fatal("a fetch from a hub that is down succeeded")
	}
}

// TestTestsNeverReachTheHub: in a test binary, options that point at the
// public hub fetch nothing: memory is as offline, and models pull says
// why.
func TestTestsNeverReachTheHub(t *testing.T) {
	o := Options{Dir: t.TempDir(), Log: testOptions(t, "", nil, io.Discard).Log}
	r, fetching := OpenReranker(context.Background(), o)
	if err := wait(t, fetching); contract.ErrorCode(err) != contract.CodeUnavailable || r.Ready() || r.State() != nil {
		t.Fatalf("a fetch from the public hub was tried (%v), or a state set: %+v", err, r.State())
	}
	if _, err := Pull(context.Background(), o, nil); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("pull from the public hub: %v", err)
	}
}
