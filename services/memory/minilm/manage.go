package minilm

import (
	"context"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
)

// Model is one model memory can run, as the models command handles it:
// a repository and the self-check it must pass before use.
type Model struct {
	// Role is "embedder" or "reranker".
	Role    string
	Repo    hfhub.Repo
	Figures []bert.PairFigure
}

// Models are the models o configures: the sentence embedder and the
// reranker (tests replace them through Repo and Reranker).
func (o Options) Models() []Model {
	repo, figs := o.repoAndFigures(SentenceRepo, bert.EmbedderFigures)
	rrepo, rfigs := o.rerankerRepo()
	return []Model{{Role: roleEmbedder, Repo: repo, Figures: figs}, {Role: roleReranker, Repo: rrepo, Figures: rfigs}}
}

// rerankerRepo is the published cross-encoder and its figures unless the
// options replace them.
func (o Options) rerankerRepo() (hfhub.Repo, []bert.PairFigure) {
	repo, figs := RerankerRepo, bert.RerankerFigures
	if o.Reranker != nil {
		repo = *o.Reranker
	}
	if o.RerankerFigures != nil {
		figs = o.RerankerFigures
	}
	return repo, figs
}

const (
	roleEmbedder = "embedder"
	roleReranker = "reranker"
)

// check runs m's self-check on the encoder of its files.
func (m Model) check(e *bert.Encoder) error {
	if m.Role == roleReranker {
		e.MaxTokens = rerankerMaxTokens
		return e.CheckReranker(m.Figures)
	}
	e.MaxTokens = bert.DefaultMaxTokens
	return e.CheckEmbedder(m.Figures)
}

// Pull fetches every configured model that is not on disk whole,
// telling progress (when set) of each file's bytes; models already there
// are left as they are. It stops at the first model that cannot be
// fetched, returning the directories of those that were.
func Pull(ctx context.Context, o Options, progress func(hfhub.Progress)) ([]string, error) {
	if err := o.reachable(); err != nil {
		return nil, err
	}
	c := o.client()
	c.Progress = progress
	var dirs []string
	for _, m := range o.Models() {
		dir, err := c.Fetch(ctx, m.Repo)
		if err != nil {
			return dirs, contract.Errorf(contract.ErrorCode(err), "%s %s: %s", m.Role, m.Repo.Name, contract.ErrorMessage(err))
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

// Status is what is on disk of one model.
type Status struct {
	Model
	hfhub.Local
	// Fetched is false when nothing of the model is on disk.
	Fetched bool
	// Err is nil when every file matches what was recorded when it was
	// fetched and, after Verify, the model passes its self-check.
	Err error
}

// List says what is on disk of each configured model, checking each
// file's hash (a second or so for MiniLM's 90 MB) but loading nothing.
func List(o Options) []Status {
	c := o.client()
	var out []Status
	for _, m := range o.Models() {
		l, err := c.Inspect(m.Repo)
		s := Status{Model: m, Local: l, Fetched: contract.ErrorCode(err) != contract.CodeNotFound}
		s.Err = err
		if err == nil {
			s.Err = filesErr(l)
		}
		out = append(out, s)
	}
	return out
}

// filesErr names the files that do not match their record.
func filesErr(l hfhub.Local) error {
	var bad []string
	for _, f := range l.Files {
		if f.Err != nil {
			bad = append(bad, contract.ErrorMessage(f.Err))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return contract.Errorf(contract.CodeEngine, "%s", strings.Join(bad, "; "))
}

// Verify is List, then loads each fetched model whose files are whole
// and runs its self-check, as memory does before using it.
func Verify(o Options) []Status {
	out := List(o)
	for i, s := range out {
		if !s.Fetched || s.Err != nil {
			continue
		}
		e, err := bert.Load(s.Dir)
		if err == nil {
			err = s.Model.check(e)
		}
		if err != nil {
			out[i].Err = contract.Errorf(contract.CodeEngine, "self-check: %s", contract.ErrorMessage(err))
		}
	}
	return out
}

// Remove deletes the model whose role or repository is name, or every
// configured model when name is "". NOT_FOUND when name is neither.
func Remove(o Options, name string) ([]Model, error) {
	c := o.client()
	var removed []Model
	for _, m := range o.Models() {
		if name != "" && name != m.Role && name != m.Repo.Name {
			continue
		}
		if err := c.Remove(m.Repo); err != nil {
			return removed, err
		}
		removed = append(removed, m)
	}
	if len(removed) == 0 {
		return nil, contract.Errorf(contract.CodeNotFound, "no model is named %q: name the embedder, the reranker, or a repository openhuman-core models list shows", name)
	}
	return removed, nil
}
