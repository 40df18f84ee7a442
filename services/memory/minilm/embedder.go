package minilm

import (
	"context"
	"path"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
)

// Embedder is the sentence model behind memory's Embedder interface.
type Embedder struct {
	enc   *bert.Encoder
	model string
}

var _ memory.Embedder = (*Embedder)(nil)

// Model names the model and its commit: another revision is another
// vector space.
func (e *Embedder) Model() string { return e.model }

// Embed runs the model on each text in turn, stopping when ctx ends.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if ctx.Err() != nil {
			return nil, contract.Errorf(contract.CodeUnavailable, "embedding stopped: %v", ctx.Err())
		}
		v, err := e.enc.Embed(t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// OpenEmbedder returns the sentence model when it is on disk and passes
// its self-check, else fallback. When it is missing (and models are on),
// a background fetch, ending with ctx, brings it; the channel says how
// that ended (nil when none was started), and LoadEmbedder then loads it.
func OpenEmbedder(ctx context.Context, o Options, fallback memory.Embedder) (memory.Embedder, <-chan error) {
	if o.Off {
		return fallback, nil
	}
	repo, figures := o.repoAndFigures(SentenceRepo, bert.EmbedderFigures)
	enc, dir, fetching := open(ctx, o, repo, bert.DefaultMaxTokens, func(e *bert.Encoder) error { return e.CheckEmbedder(figures) }, o.Tracker)
	if enc == nil {
		o.log().Info("memory embeds with its offline embedder until the sentence model is there", "embedder", fallback.Model())
		return fallback, fetching
	}
	return &Embedder{enc: enc, model: modelName(repo, dir)}, nil
}

// OpenEmbedderLater is OpenEmbedder for a service that must not wait for
// a model: a sentence model already on disk is not loaded now but left to
// LoadEmbedder, and onDisk says so, with a channel that has ended well.
// Otherwise it is OpenEmbedder, which then only starts a fetch.
func OpenEmbedderLater(ctx context.Context, o Options, fallback memory.Embedder) (e memory.Embedder, fetched <-chan error, onDisk bool) {
	if o.Off {
		return fallback, nil, false
	}
	repo, _ := o.repoAndFigures(SentenceRepo, bert.EmbedderFigures)
	if !o.client().Fetched(repo) {
		e, fetched = OpenEmbedder(ctx, o, fallback)
		return e, fetched, false
	}
	o.Tracker.start(repo, contract.ModelFetched)
	o.Tracker.set(func(s *contract.ModelState) { s.FilesDone = s.Files })
	done := make(chan error, 1)
	done <- nil
	return fallback, done, true
}

// LoadEmbedder loads the sentence model a background fetch of OpenEmbedder
// brought and runs its self-check, telling o.Tracker: the embedder memory
// hands over to while it runs. ENGINE when the model is refused.
func LoadEmbedder(o Options) (memory.Embedder, error) {
	repo, figures := o.repoAndFigures(SentenceRepo, bert.EmbedderFigures)
	enc, dir, err := loadFetched(o, repo, bert.DefaultMaxTokens, func(e *bert.Encoder) error { return e.CheckEmbedder(figures) }, o.Tracker)
	if err != nil {
		return nil, err
	}
	return &Embedder{enc: enc, model: modelName(repo, dir)}, nil
}

// modelName is the repository's name and commit: another revision is
// another vector space.
func modelName(repo hfhub.Repo, dir string) string {
	return path.Base(repo.Name) + "@" + filepath.Base(dir)[:12]
}
