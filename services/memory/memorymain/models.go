package memorymain

import (
	"context"
	"io"
	"log/slog"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
	"github.com/openhuman-go/openhuman-go/services/memory/minilm"
)

// The models memory runs itself (docs/models.md), as a command line
// manages them apart from any running service: pulled on a machine that
// reaches the hub, listed and verified on disk, removed. Memory's minilm
// package owns them and their self-checks; these names are its wiring,
// so that a binary that embeds memory reaches them through here.

// ModelOptions say where the models live and which hub they come from
// (tests replace the models and their figures through them).
type ModelOptions = minilm.Options

// Model is one model memory can run: its role, repository and figures.
type Model = minilm.Model

// ModelStatus is one model as found on disk.
type ModelStatus = minilm.Status

// ModelProgress is how far one file of a pull has come.
type ModelProgress = hfhub.Progress

// ModelOptionsFor are the model options of configured embeddings, with
// the fetcher's own log lines kept off the command's stderr, which
// carries progress lines instead.
func ModelOptionsFor(e config.Embeddings) ModelOptions {
	return ModelOptions{Dir: e.ModelsDir, HubURL: e.ModelsHubURL, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// ModelHub is the address of the hub o pulls from.
func ModelHub(o ModelOptions) string {
	if o.HubURL == "" {
		return hfhub.DefaultBaseURL
	}
	return o.HubURL
}

// PullModels fetches every model not on disk whole, telling progress
// (when set) of each file's bytes, and returns the folders of those
// fetched (minilm.Pull).
func PullModels(ctx context.Context, o ModelOptions, progress func(ModelProgress)) ([]string, error) {
	return minilm.Pull(ctx, o, progress)
}

// ListModels says what is on disk of each model, checking the files'
// checksums.
func ListModels(o ModelOptions) []ModelStatus { return minilm.List(o) }

// VerifyModels is ListModels with each model's self-check run too.
func VerifyModels(o ModelOptions) []ModelStatus { return minilm.Verify(o) }

// RemoveModels removes the model named (a role or a repository; "" for
// every one) and returns those removed.
func RemoveModels(o ModelOptions, name string) ([]Model, error) { return minilm.Remove(o, name) }
