// Package minilm runs the sentence model all-MiniLM-L6-v2 as memory's
// embedder, and the cross-encoder ms-marco-MiniLM-L6-v2 as a reranker, in
// process. Both are fetched once from the model hub (hfhub) and checked
// against their published figures (bert) before use; until then, and
// whenever they are off, missing or refused, memory keeps the offline
// embedder it falls back on.
//
// A memory service embeds with one model all its life, so that a vector
// space never changes under a search or a batch being embedded: a
// sentence model that arrives while memory runs is loaded (LoadEmbedder)
// and memory hands over to a service built on it (memorymain), which
// embeds every item anew. The reranker keeps no vectors, and scores from
// the moment its model is checked.
package minilm

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
)

// modelFiles are what the forward pass reads of a repository.
var modelFiles = []hfhub.File{{Path: bert.ConfigFile}, {Path: bert.VocabFile}, {Path: bert.WeightsFile}}

// The repositories, at "main": the first fetch pins the commit it found.
var (
	SentenceRepo = hfhub.Repo{Name: "sentence-transformers/all-MiniLM-L6-v2", Revision: "main", Files: modelFiles}
	RerankerRepo = hfhub.Repo{Name: "cross-encoder/ms-marco-MiniLM-L6-v2", Revision: "main", Files: modelFiles}
)

// Options say where models come from and go. The zero value of each but
// Dir is a working default.
type Options struct {
	// Dir holds the models ($OPENHUMAN_HOME/models).
	Dir string
	// HubURL is the model hub (hfhub.DefaultBaseURL).
	HubURL string
	// Off leaves models alone: nothing is fetched or loaded.
	Off bool
	// Backoff spaces the attempts of a background fetch (a minute,
	// doubling to an hour).
	Backoff hfhub.Backoff
	Log     *slog.Logger
	// Repo and Figures replace the published model and its figures (tests).
	Repo    *hfhub.Repo
	Figures []bert.PairFigure
	// Tracker, when set, follows the embedder from fetch to use, for
	// memory's store health; RerankerTracker the reranker.
	Tracker         *Tracker
	RerankerTracker *Tracker
	// Reranker and RerankerFigures replace the published cross-encoder and
	// its figures (tests).
	Reranker        *hfhub.Repo
	RerankerFigures []bert.PairFigure
}

// reachable is nil unless this is a test binary and the hub is not on
// this machine: tests never reach the public hub (a local server stands
// in for it), so a test that did not turn models off finds only what is
// on disk, and memory behaves as offline.
func (o Options) reachable() error {
	if !testing.Testing() {
		return nil
	}
	base := o.HubURL
	if base == "" {
		base = hfhub.DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err == nil {
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return contract.Errorf(contract.CodeUnavailable, "a test fetches models from a hub on loopback only, not %s", base)
}

func (o Options) log() *slog.Logger {
	if o.Log == nil {
		return slog.Default()
	}
	return o.Log
}

func (o Options) client() *hfhub.Client {
	return &hfhub.Client{Dir: o.Dir, BaseURL: o.HubURL, Log: o.log()}
}

// trackedClient is client, telling tr (when set) of its progress.
func (o Options) trackedClient(tr *Tracker) *hfhub.Client {
	c := o.client()
	if tr != nil {
		c.Progress, c.Retrying = tr.progress, tr.retrying
	}
	return c
}

func (o Options) backoff() hfhub.Backoff {
	if o.Backoff.Min <= 0 {
		return hfhub.Backoff{Min: time.Minute, Max: time.Hour}
	}
	return o.Backoff
}

// open returns the encoder of repo when it is on disk, whole, and
// reproduces its figures (check). When it is missing or damaged, a
// background fetch brings it, and the channel says how that ended; a model that loads but fails its figures is refused and not
// fetched again, as the same files would fail again.
func open(ctx context.Context, o Options, repo hfhub.Repo, maxTokens int, check func(*bert.Encoder) error, tr *Tracker) (*bert.Encoder, string, <-chan error) {
	dir, err := o.client().Local(repo)
	if err != nil {
		if r := o.reachable(); r != nil {
			o.log().Debug("a model is not fetched", "repo", repo.Name, "why", contract.ErrorMessage(r))
			return nil, "", nil
		}
		if contract.ErrorCode(err) != contract.CodeNotFound {
			o.log().Warn("a model on disk is damaged; fetching it again", "repo", repo.Name, "err", contract.ErrorMessage(err))
		}
		tr.start(repo, contract.ModelFetching)
		return nil, "", fetchLater(ctx, o, repo, tr)
	}
	start := time.Now()
	e, err := bert.Load(dir)
	if err == nil {
		e.MaxTokens = maxTokens
		err = check(e)
	}
	if err != nil {
		o.log().Error("a model is refused; memory goes on without it", "repo", repo.Name, "dir", dir, "err", contract.ErrorMessage(err))
		tr.start(repo, contract.ModelRefused)
		tr.refused(err)
		return nil, "", nil
	}
	tr.start(repo, contract.ModelReady)
	o.log().Info("model loaded and self-checked", "repo", repo.Name, "dir", dir, "took", time.Since(start).Round(time.Millisecond))
	return e, dir, nil
}

// loadFetched loads repo from disk once a fetch brought it, and checks
// it, telling tr (when set) it is ready or refused.
func loadFetched(o Options, repo hfhub.Repo, maxTokens int, check func(*bert.Encoder) error, tr *Tracker) (*bert.Encoder, string, error) {
	start := time.Now()
	dir, err := o.client().Local(repo)
	var enc *bert.Encoder
	if err == nil {
		enc, err = bert.Load(dir)
	}
	if err == nil {
		enc.MaxTokens = maxTokens
		err = check(enc)
	}
	if err != nil {
		o.log().Error("a fetched model is refused; memory goes on without it", "repo", repo.Name, "err", contract.ErrorMessage(err))
		tr.refused(err)
		return nil, "", err
	}
	tr.ready()
	o.log().Info("model fetched, loaded and self-checked", "repo", repo.Name, "dir", dir, "took", time.Since(start).Round(time.Millisecond))
	return enc, dir, nil
}

// fetchLater fetches repo in the background until it is on disk; nothing
// waits for it.
func fetchLater(ctx context.Context, o Options, repo hfhub.Repo, tr *Tracker) <-chan error {
	done := make(chan error, 1)
	go func() {
		o.log().Info("fetching a model in the background", "repo", repo.Name, "hub", o.HubURL)
		dir, err := o.trackedClient(tr).FetchRetrying(ctx, repo, o.backoff())
		if err == nil {
			tr.fetched()
			o.log().Info("model fetched", "repo", repo.Name, "dir", dir)
		}
		done <- err
	}()
	return done
}

// repoAndFigures are the published ones unless the options replace them.
func (o Options) repoAndFigures(repo hfhub.Repo, figures []bert.PairFigure) (hfhub.Repo, []bert.PairFigure) {
	if o.Repo != nil {
		repo = *o.Repo
	}
	if o.Figures != nil {
		figures = o.Figures
	}
	return repo, figures
}
