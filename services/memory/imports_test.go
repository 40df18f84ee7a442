package memory_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/openhuman-go/openhuman-go/"

// importsOf is the non-test imports of the package in dir.
func importsOf(t *testing.T, dir string) []string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := build.Default.ImportDir(abs, 0)
	if err != nil {
		t.Fatal(err)
	}
	return pkg.Imports
}

// standard reports whether path is of the standard library: its first
// element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// The memory package is the domain: it imports the standard library,
// pkg/contract, pkg/secrets (scrubbing what is stored is a rule of the
// domain) and memory's own packages of pure text and ranking, never an
// adapter (storage, bus, replication, an embedding service) or the
// engine's internals (the indexes, WordNet, GloVe), which retrieval and
// the embedders wrap.
func TestDomainImports(t *testing.T) {
	allowed := map[string]bool{"pkg/contract": true, "pkg/secrets": true}
	for _, sub := range []string{"answer", "chunking", "entities", "lexicon", "retrieval"} {
		allowed["services/memory/"+sub] = true
	}
	for _, imp := range importsOf(t, ".") {
		if !standard(imp) && !allowed[strings.TrimPrefix(imp, module)] {
			t.Errorf("the memory domain imports %s", imp)
		}
	}
}

// The text packages are pure text: the standard library, pkg/contract
// (their errors), pkg/secrets and each other, nothing of items, storage
// or search.
func TestTextPackagesArePureText(t *testing.T) {
	text := map[string]bool{"answer": true, "chunking": true, "entities": true, "lexicon": true}
	for sub := range text {
		for _, imp := range importsOf(t, sub) {
			rel := strings.TrimPrefix(imp, module)
			other, isMemory := strings.CutPrefix(rel, "services/memory/")
			switch {
			case standard(imp), rel == "pkg/contract", rel == "pkg/secrets", rel == "pkg/editdistance":
			case isMemory && (text[other] || other == "textkeys"):
			default:
				t.Errorf("%s imports %s", sub, imp)
			}
		}
	}
}
