// Package ingest walks files and folders for `openhuman-core ingest`: it
// respects .gitignore, skips binaries and oversized files, detects each
// file's language, reads the repository and commit from git, and hands the
// files to the memory service in batches. The memory service chunks and
// stores them; this side only reads the disk, which may be on another host
// than the service.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// File is one file as the memory service's ingest method takes it.
type File = contract.IngestFile

// Options configure a walk. The zero value works.
type Options struct {
	// Workspace names every file's workspace (default: the root folder's name).
	Workspace string
	// MaxFileBytes skips larger files (default 512 KiB).
	MaxFileBytes int64
	// BatchBytes is the content sent per request (default 700 KiB: within
	// NATS's default 1 MiB message, JSON escaping included).
	BatchBytes int
}

// Stats count what a walk did.
type Stats struct {
	Seen, Sent, Ignored, Binary, TooLarge, Unreadable int
}

// Sender stores a batch and reports how many files were unchanged.
type Sender func(ctx context.Context, batch []File) error

// Walk reads roots (folders or files), and calls send with batches. progress
// is called after each file with the counts so far.
func Walk(ctx context.Context, roots []string, opts Options, send Sender, progress func(Stats)) (Stats, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 512 << 10
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 700 << 10
	}
	var st Stats
	var batch []File
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := send(ctx, batch); err != nil {
			return err
		}
		st.Sent += len(batch)
		batch, size = nil, 0
		return nil
	}
	add := func(f File) error {
		if size+len(f.Content) > opts.BatchBytes && len(batch) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, f)
		size += len(f.Content)
		return nil
	}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return st, err
		}
		info, err := os.Stat(abs)
		if err != nil {
			return st, fmt.Errorf("%s: %w", root, errors.Unwrap(err))
		}
		git := gitInfo(abs)
		if !info.IsDir() {
			st.Seen++
			f, why := readFile(abs, filepath.Base(abs), "file", opts, git, filepath.Base(filepath.Dir(abs)))
			if count(&st, why) {
				if err := add(f); err != nil {
					return st, err
				}
			}
			if progress != nil {
				progress(st)
			}
			continue
		}
		workspace := opts.Workspace
		if workspace == "" {
			workspace = filepath.Base(abs)
		}
		var sets []*ignoreSet
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			rel, _ := filepath.Rel(abs, path)
			rel = filepath.ToSlash(rel)
			if err != nil {
				st.Unreadable++
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return fs.SkipDir
				}
				if rel != "." && ignored(sets, rel, true) {
					st.Ignored++
					return fs.SkipDir
				}
				// This folder's .gitignore applies below it; sets from
				// folders the walk has left no longer match any path.
				if set := readIgnore(abs, rel); set != nil {
					if rel == "." {
						set.base = ""
					}
					sets = append(sets, set)
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			st.Seen++
			if ignored(sets, rel, false) {
				st.Ignored++
				return nil
			}
			f, why := readFile(path, rel, "folder", opts, git, workspace)
			if count(&st, why) {
				if err := add(f); err != nil {
					return err
				}
			}
			if progress != nil {
				progress(st)
			}
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	return st, flush()
}

// Reasons a file is skipped.
const (
	skipNone = iota
	skipBinary
	skipTooLarge
	skipUnreadable
)

func count(st *Stats, why int) bool {
	switch why {
	case skipBinary:
		st.Binary++
	case skipTooLarge:
		st.TooLarge++
	case skipUnreadable:
		st.Unreadable++
	default:
		return true
	}
	return false
}

func readFile(path, rel, kind string, opts Options, git repoInfo, workspace string) (File, int) {
	info, err := os.Stat(path)
	if err != nil {
		return File{}, skipUnreadable
	}
	if info.Size() > opts.MaxFileBytes {
		return File{}, skipTooLarge
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, skipUnreadable
	}
	if isBinary(data) {
		return File{}, skipBinary
	}
	f := File{
		SourceID: path, SourceKind: kind, DisplayName: rel, Content: string(data),
		Language: Language(path), Workspace: workspace, FilePath: rel,
		Repo: git.repo, Commit: git.commit, ModifiedMS: info.ModTime().UnixMilli(),
	}
	if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
		f.Folder = dir
	}
	if git.top != "" {
		if r, err := filepath.Rel(git.top, path); err == nil {
			f.FilePath = filepath.ToSlash(r)
		}
	}
	return f, skipNone
}

// isBinary looks at the start of a file: a NUL byte or text that is not
// UTF-8 means it is not text to remember.
func isBinary(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
		// Do not judge a multi-byte character cut at the edge.
		for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

type repoInfo struct{ top, repo, commit string }

// gitInfo reads the repository around path with git, when git and a
// repository are there.
func gitInfo(path string) repoInfo {
	dir := path
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		dir = filepath.Dir(path)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	top := git("rev-parse", "--show-toplevel")
	if top == "" {
		return repoInfo{}
	}
	r := repoInfo{top: top, commit: git("rev-parse", "HEAD"), repo: cleanRemote(git("config", "--get", "remote.origin.url"))}
	if r.repo == "" {
		r.repo = filepath.Base(top)
	}
	return r
}

// cleanRemote drops credentials and the .git suffix from a remote URL.
func cleanRemote(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if at := strings.LastIndex(u[i+3:], "@"); at >= 0 {
			u = u[:i+3] + u[i+3+at+1:]
		}
	}
	return strings.TrimSuffix(u, ".git")
}

// Language names a file's language from its name.
func Language(path string) string {
	base := strings.ToLower(filepath.Base(path))
	switch base {
	case "dockerfile":
		return "dockerfile"
	case "makefile", "gnumakefile":
		return "makefile"
	}
	if l, ok := languages[strings.TrimPrefix(filepath.Ext(base), ".")]; ok {
		return l
	}
	return "text"
}

var languages = map[string]string{
	"md": "markdown", "markdown": "markdown", "mdx": "markdown",
	"go": "go", "py": "python", "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript",
	"ts": "typescript", "tsx": "typescript", "rs": "rust", "java": "java", "kt": "kotlin", "kts": "kotlin",
	"c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "cs": "csharp", "rb": "ruby",
	"php": "php", "swift": "swift", "scala": "scala", "sh": "shell", "bash": "shell", "zsh": "shell",
	"sql": "sql", "lua": "lua", "ex": "elixir", "exs": "elixir", "hs": "haskell", "zig": "zig",
	"json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "xml": "xml", "html": "html", "css": "css",
	"txt": "text", "rst": "text", "adoc": "text", "org": "text",
}
