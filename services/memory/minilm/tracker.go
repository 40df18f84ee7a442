package minilm

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
)

// Model metrics. The names are a contract: dashboards depend on them. The
// last error's text is in memory.store_health and /readyz, not a label.
var (
	modelReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "openhuman_memory_model_ready",
		Help: "1 while a model memory runs itself is in use (the sentence embedder, the reranker), 0 while it is fetched, failed or refused (memory embeds with its offline embedder, ranks without the reranker).",
	}, []string{"repo"})
	modelFetchedBytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_memory_model_fetched_bytes_total",
		Help: "Bytes of model files fetched from the model hub.",
	}, []string{"repo"})
	modelFetchFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "openhuman_memory_model_fetch_failures_total",
		Help: "Fetches of a model that failed (each is retried later).",
	}, []string{"repo"})
)

func init() { prometheus.MustRegister(modelReady, modelFetchedBytes, modelFetchFailures) }

// Tracker follows the configured model from the start: fetched, failed,
// refused or ready, with each file's bytes while it comes. OpenEmbedder
// keeps it up to date when Options.Tracker is set; memory's store health
// reads it.
// Its zero value is ready to use.
type Tracker struct {
	mu   sync.Mutex
	s    contract.ModelState
	seen map[string]int64 // bytes of each file already counted
	// reranker: it follows the cross-encoder (OpenReranker sets it),
	// which its sentences say.
	reranker bool
}

// NewTracker returns a tracker with no state yet.
func NewTracker() *Tracker { return &Tracker{} }

// State is a copy of the model's state, nil before OpenEmbedder set one
// (and for a nil tracker).
func (t *Tracker) State() *contract.ModelState {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.s.State == "" {
		return nil
	}
	s := t.s
	s.Detail = detail(s, t.reranker)
	return &s
}

func (t *Tracker) set(f func(s *contract.ModelState)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f(&t.s)
	ready := 0.0
	if t.s.Ready() {
		ready = 1
	}
	modelReady.WithLabelValues(t.s.Repo).Set(ready)
}

// start is the state of repo when memory starts.
func (t *Tracker) start(repo hfhub.Repo, state string) {
	t.set(func(s *contract.ModelState) {
		*s = contract.ModelState{Repo: repo.Name, State: state, Files: len(repo.Files)}
	})
}

func (t *Tracker) refused(err error) {
	t.set(func(s *contract.ModelState) { s.State, s.LastError = contract.ModelRefused, contract.ErrorMessage(err) })
}

func (t *Tracker) ready() {
	t.set(func(s *contract.ModelState) { s.State, s.LastError = contract.ModelReady, "" })
}

func (t *Tracker) fetched() {
	t.set(func(s *contract.ModelState) {
		s.State, s.File, s.FileBytes, s.FileSize, s.FilesDone, s.RetryAt = contract.ModelFetched, "", 0, 0, s.Files, ""
	})
}

// progress counts a file's new bytes: a resumed file's first report says
// what was on disk already, which this process did not fetch.
func (t *Tracker) progress(p hfhub.Progress) {
	t.set(func(s *contract.ModelState) {
		if t.seen == nil {
			t.seen = map[string]int64{}
		}
		prev, ok := t.seen[p.File]
		if ok && p.Done > prev {
			s.FetchedBytes += p.Done - prev
			modelFetchedBytes.WithLabelValues(p.Repo).Add(float64(p.Done - prev))
		}
		t.seen[p.File] = p.Done
		if s.State == contract.ModelFailed && p.Done > prev {
			s.Failures, s.RetryAt = 0, ""
		}
		s.State, s.File, s.FileBytes, s.FileSize = contract.ModelFetching, p.File, p.Done, p.Total
		if p.Total > 0 && p.Done == p.Total && (!ok || prev != p.Done) {
			s.FilesDone = min(s.FilesDone+1, s.Files)
		}
	})
}

func (t *Tracker) retrying(err error, wait time.Duration) {
	t.set(func(s *contract.ModelState) {
		s.State, s.Failures, s.LastError = contract.ModelFailed, s.Failures+1, contract.ErrorMessage(err)
		s.RetryAt = time.Now().Add(wait).UTC().Format(time.RFC3339)
		modelFetchFailures.WithLabelValues(s.Repo).Inc()
	})
}

// detail says the state in a sentence, of the embedder or the reranker.
func detail(s contract.ModelState, reranker bool) string {
	fallback, fetched, ready := "; memory embeds with its offline embedder meanwhile",
		" is fetched; memory loads and self-checks it, then embeds with it", " is loaded, self-checked, and embeds"
	if reranker {
		fallback, fetched, ready = "; memory ranks without it meanwhile",
			" is fetched; it is loaded and self-checked next", " is loaded, self-checked, and reranks"
	}
	switch s.State {
	case contract.ModelFetching:
		of := ""
		if s.FileSize > 0 {
			of = fmt.Sprintf(" of %d", s.FileSize)
		}
		return fmt.Sprintf("fetching %s: file %d of %d, %s, %d%s bytes", s.Repo, min(s.FilesDone+1, s.Files), s.Files, s.File, s.FileBytes, of) + fallback
	case contract.ModelFailed:
		times := ""
		if s.Failures > 1 {
			times = fmt.Sprintf(" %d times in a row", s.Failures)
		}
		return fmt.Sprintf("fetching %s failed%s (%s); the next attempt is at %s", s.Repo, times, s.LastError, s.RetryAt) + fallback +
			": check OPENHUMAN_MODELS_HUB_URL, or pull the model where the hub can be reached (openhuman-core models pull) and copy the models folder"
	case contract.ModelFetched:
		return s.Repo + fetched + fallback
	case contract.ModelRefused:
		return s.Repo + " is refused: " + s.LastError + fallback + ": openhuman-core models verify says more, models rm and pull fetch it again"
	case contract.ModelReady:
		return s.Repo + ready
	}
	return s.Repo + ": " + s.State
}
