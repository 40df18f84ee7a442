package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// runModels handles the models memory runs itself (docs/models.md):
// pull them on a machine that reaches the hub, list and verify what is
// on disk, remove them. It goes through memory's wiring (memorymain),
// which reaches the package that owns the models and their self-checks,
// and starts no service.
func (m *Main) runModels(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	all := fs.Bool("all", false, "rm: every model")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	words := fs.Args()
	if len(words) == 0 {
		return m.usageError(errors.New("models needs pull, list, verify or rm"))
	}
	verb, rest := words[0], words[1:]
	if verb != "rm" && (len(rest) > 0 || *all) {
		return m.usageError(fmt.Errorf("models %s takes no arguments, got %q", verb, rest))
	}
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	o := m.modelOptions(cfg.Memory.Embeddings)
	switch verb {
	case "pull":
		return m.modelsPull(ctx, o, cfg.Memory.Embeddings)
	case "list":
		m.printModels(memorymain.ListModels(o), false)
		return exitOK
	case "verify":
		return m.modelsVerify(o)
	case "rm":
		return m.modelsRemove(o, rest, *all)
	}
	return m.usageError(fmt.Errorf("models %q: use pull, list, verify or rm", verb))
}

// modelOptions are memory's model options from configuration.
func (m *Main) modelOptions(e config.Embeddings) memorymain.ModelOptions {
	o := memorymain.ModelOptionsFor(e)
	if m.tuneModels != nil {
		m.tuneModels(&o)
	}
	return o
}

func (m *Main) modelsPull(ctx context.Context, o memorymain.ModelOptions, e config.Embeddings) int {
	if e.Models == "off" {
		fmt.Fprintln(m.Stderr, "note: models are off (OPENHUMAN_MODELS=off): memory will not load what is pulled until they are on")
	}
	fmt.Fprintf(m.Stderr, "pulling from %s into %s\n", memorymain.ModelHub(o), o.Dir)
	p := &pullProgress{w: m.Stderr}
	dirs, err := memorymain.PullModels(ctx, o, p.report)
	for _, d := range dirs {
		fmt.Fprintln(m.Stdout, "pulled", d)
	}
	if err != nil {
		fmt.Fprintf(m.Stderr, "openhuman-core: models pull: %s (run it again to resume)\n", contract.ErrorMessage(err))
		return exitFailure
	}
	if e.Provider != "minilm" {
		fmt.Fprintln(m.Stderr, "memory ranks with the reranker; it embeds with the sentence model with OPENHUMAN_EMBEDDINGS_PROVIDER=minilm ([memory.embeddings] provider = \"minilm\", the default)")
	}
	return exitOK
}

func (m *Main) modelsVerify(o memorymain.ModelOptions) int {
	sts := memorymain.VerifyModels(o)
	m.printModels(sts, true)
	failed := 0
	for _, s := range sts {
		if s.Err != nil || !s.Fetched {
			failed++
			fmt.Fprintf(m.Stderr, "openhuman-core: %s %s failed verification: %s\n", s.Role, s.Model.Repo.Name, modelProblem(s))
		}
	}
	if failed > 0 {
		return exitFailure
	}
	return exitOK
}

func (m *Main) modelsRemove(o memorymain.ModelOptions, names []string, all bool) int {
	switch {
	case all && len(names) > 0:
		return m.usageError(errors.New("models rm takes names or --all, not both"))
	case !all && len(names) == 0:
		return m.usageError(errors.New("models rm needs a model: embedder, reranker, a repository models list shows, or --all"))
	}
	if all {
		names = []string{""}
	}
	for _, n := range names {
		removed, err := memorymain.RemoveModels(o, n)
		if err != nil {
			fmt.Fprintln(m.Stderr, "openhuman-core: models rm:", contract.ErrorMessage(err))
			return exitFailure
		}
		for _, r := range removed {
			fmt.Fprintf(m.Stdout, "removed %s %s\n", r.Role, r.Repo.Name)
		}
	}
	return exitOK
}
