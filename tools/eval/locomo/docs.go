package locomo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/ingest"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The mixed memory: a person's conversation in a memory that also holds a
// folder of manuals they ingested. The manuals are real documentation
// nobody here wrote (manual pages and Python's library reference, from
// Debian packages), which scripts/eval-corpus.sh renders into a folder of
// text files; they are ingested once, the way `openhuman-core ingest
// <folder>` does, into a SQLite file that is cached and copied for each
// conversation.

const corpusScript = "scripts/eval-corpus.sh"

// Corpus returns the folder of documents scripts/eval-corpus.sh made
// (OPENHUMAN_EVAL_CORPUS, else ~/.cache/openhuman-go/eval/corpus, holding
// docs/ and STAMP) and its version. The error says how to make it.
func Corpus() (dir, stamp string, err error) {
	root := os.Getenv("OPENHUMAN_EVAL_CORPUS")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", "", err
		}
		root = filepath.Join(home, ".cache", "openhuman-go", "eval", "corpus")
	}
	b, err := os.ReadFile(filepath.Join(root, "STAMP"))
	if err != nil {
		return "", "", fmt.Errorf("no documents for the mixed memory at %s (%v): %s makes them", root, err, corpusScript)
	}
	return filepath.Join(root, "docs"), strings.TrimSpace(string(b)), nil
}

// DocsMemory returns the path of a cached SQLite file holding the
// documents under the corpus's folders sub (all of it when empty), every
// chunk with its vector of emb, building it when missing. The file's name
// is a hash of the corpus's version, the folders, the embedder and the Go
// sources of everything that decides what is stored, so that a stale one
// is never used. repo is the project's root.
func DocsMemory(ctx context.Context, repo, corpus, stamp string, sub []string, emb memory.Embedder) (string, error) {
	key, err := docsKey(repo, stamp, sub, emb.Model())
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(corpus)), "memory")
	path := filepath.Join(dir, "docs-"+key+".db")
	if _, err := os.Stat(path); err == nil {
		now := time.Now()
		return path, os.Chtimes(path, now, now)
	}
	prune(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Built beside its final name and renamed: a run stopped halfway, or
	// two at once, never leaves a partial file under that name.
	tmp, err := os.MkdirTemp(dir, "building-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	built := filepath.Join(tmp, "docs.db")
	n, err := ingestDocs(ctx, built, corpus, sub, emb)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path+".chunks", []byte(strconv.Itoa(n)), 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(built, path)
}

// Chunks is how many chunks the documents' memory at path holds.
func Chunks(path string) (int, error) {
	b, err := os.ReadFile(path + ".chunks")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(b))
}

// prune removes the documents' memories no run has used for a week: each
// change to memory's code leaves one behind, some hundred megabytes.
func prune(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, "docs-*.db"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > 7*24*time.Hour {
			os.Remove(p)
			os.Remove(p + ".chunks")
		}
	}
}

// ingestDocs ingests the folders and returns how many chunks they made.
func ingestDocs(ctx context.Context, path, corpus string, sub []string, emb memory.Embedder) (int, error) {
	m, err := OpenMemory(path, emb, nil)
	if err != nil {
		return 0, err
	}
	chunks := 0
	roots := []string{corpus}
	if len(sub) > 0 {
		roots = nil
		for _, s := range sub {
			roots = append(roots, filepath.Join(corpus, s))
		}
	}
	send := func(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error) {
		p := memory.IngestParams{Files: make([]contract.IngestFile, len(files))}
		for i, raw := range files {
			if err := json.Unmarshal(raw, &p.Files[i]); err != nil {
				return nil, err
			}
		}
		res, err := m.Svc.Ingest(ctx, p, Caller)
		if err != nil {
			return nil, err
		}
		for _, f := range res.Files {
			chunks += f.Chunks
		}
		return res.Files, nil
	}
	st, err := ingest.Walk(ctx, roots, ingest.Options{Workspace: "manuals"}, send, nil)
	if err == nil && len(st.Failures) > 0 {
		err = fmt.Errorf("%d documents could not be stored, %s first: %s", len(st.Failures), st.Failures[0].Path, st.Failures[0].Reason)
	}
	if err == nil {
		err = m.AwaitVectors(ctx)
	}
	return chunks, errors.Join(err, m.Close())
}

// docsKey hashes what decides the documents' memory: the corpus, the
// folders, the embedder, and the Go sources (tests aside) of memory, the
// shared packages, the folder walk and this file's package.
func docsKey(repo, stamp string, sub []string, model string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", stamp, strings.Join(sub, ","), model)
	for _, d := range []string{"services/memory", "pkg", "services/gateway/ingest", "tools/eval/locomo"} {
		err := filepath.WalkDir(filepath.Join(repo, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			fmt.Fprintf(h, "%s\x00", strings.TrimPrefix(p, repo))
			_, err = io.Copy(h, f)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Repo returns the project's root above dir: the folder holding go.work.
func Repo(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.work above %s", dir)
		}
	}
}

// OpenMixed opens a copy of the documents' memory at docs in dir, for one
// conversation to be stored in.
func OpenMixed(dir, docs string, emb memory.Embedder, p *retrieval.Profile) (*Memory, error) {
	path := filepath.Join(dir, "mixed.db")
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(docs + suffix); suffix != "" && err != nil {
			continue
		}
		if err := copyFile(path+suffix, docs+suffix); err != nil {
			return nil, err
		}
	}
	return OpenMemory(path, emb, p)
}
