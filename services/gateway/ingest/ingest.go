// Package ingest walks files and folders for `openhuman-core ingest`: it
// respects .gitignore, skips binaries, oversized and secret files, detects
// each file's language, reads the repository and commit from git, and hands
// the files to the memory service in requests that fit the bus: small files
// in batches, a file larger than a request in parts, read as it is sent.
// The memory service chunks and stores them; this side only reads the
// disk, which may be on another host than the service. A file that fails
// is reported and skipped; the others are stored.
package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	// MaxRequestBytes is the largest request the bus carries: the NATS
	// connection's MaxPayload, which its server sets (default 1 MiB, as
	// NATS's). Batches and parts are sized to fit it, JSON escaping
	// included.
	MaxRequestBytes int
	// Failed, when set, is told of each file that could not be stored, as
	// the walk goes on.
	Failed func(Failure)
}

// Stats count what a walk did.
type Stats struct {
	Seen, Sent, Ignored, Binary, TooLarge, Unreadable int
	// BinaryNames, TooLargeNames and UnreadableNames name the files
	// skipped for each reason (a folder the walk could not read too).
	BinaryNames, TooLargeNames, UnreadableNames []string
	// Secret counts files skipped because their name says they hold
	// secrets; SecretNames lists them.
	Secret      int
	SecretNames []string
	// What the memory service did with the files sent.
	Stored, Unchanged, Empty, Chunks int
	// InParts counts files sent in parts.
	InParts int
	// Failures are the files that could not be stored.
	Failures []Failure
	// Redacted names the kinds of secrets removed before storing, sorted;
	// RedactedFiles says from which files.
	Redacted      []string
	RedactedFiles []RedactedFile
}

// RedactedFile is a file stored with secrets removed, and their kinds.
type RedactedFile struct {
	Path  string
	Kinds []string
}

func (s *Stats) binary(name string) {
	s.Binary++
	s.BinaryNames = append(s.BinaryNames, name)
}

func (s *Stats) tooLarge(name string) {
	s.TooLarge++
	s.TooLargeNames = append(s.TooLargeNames, name)
}

func (s *Stats) unreadable(name string) {
	s.Unreadable++
	s.UnreadableNames = append(s.UnreadableNames, name)
}

// redacted records that kinds of secrets were removed from the file at
// path; the parts of a file sent in parts add to one entry.
func (s *Stats) redacted(path string, kinds []string) {
	if len(kinds) == 0 {
		return
	}
	s.Redacted = mergeNames(s.Redacted, kinds)
	slices.Sort(s.Redacted)
	if n := len(s.RedactedFiles); n > 0 && s.RedactedFiles[n-1].Path == path {
		s.RedactedFiles[n-1].Kinds = mergeNames(s.RedactedFiles[n-1].Kinds, kinds)
		return
	}
	s.RedactedFiles = append(s.RedactedFiles, RedactedFile{Path: path, Kinds: append([]string(nil), kinds...)})
}

// Skipped counts the files not sent.
func (s Stats) Skipped() int {
	return s.Ignored + s.Binary + s.TooLarge + s.Unreadable + s.Secret
}

// Failure is a file that could not be stored, and why.
type Failure struct {
	Path   string
	Reason string
	// Partly: some of its parts were stored, beside its old chunks, until
	// it is ingested again in full.
	Partly bool
}

// Sender sends one ingest request, the files already encoded, and returns
// the memory service's reply for each file.
type Sender func(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error)

// Walk reads roots (folders or files) and sends what they hold. progress
// is called after each file with the counts so far. It fails only when the
// walk cannot go on (ctx ends, the memory service stops answering); a file
// that cannot be stored is in Stats.Failures.
func Walk(ctx context.Context, roots []string, opts Options, send Sender, progress func(Stats)) (Stats, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 512 << 10
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = 1 << 20
	}
	if opts.Workspace != "" {
		if err := contract.CheckWorkspace(opts.Workspace); err != nil {
			return Stats{}, contract.Errorf(contract.CodeInvalidRequest, "argument `workspace`: %v", err).With("field", "workspace")
		}
	}
	w := &walker{opts: opts, send: send, progress: progress}
	for _, root := range roots {
		if err := w.root(ctx, root); err != nil {
			return w.st, err
		}
	}
	return w.st, w.flush(ctx)
}

// tick reports the counts so far to the progress function, if any.
func (w *walker) tick() {
	if w.progress != nil {
		w.progress(w.st)
	}
}

// root ingests one path named on the command line, a file or a folder. A
// path that cannot be read is a failure counted; the error is one that
// ends the whole walk.
func (w *walker) root(ctx context.Context, root string) error {
	abs, err := filepath.Abs(root)
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(abs); err == nil && !info.IsDir() && !info.Mode().IsRegular() {
			err = errNotRegular
		}
	}
	if err != nil {
		w.st.Seen++
		w.fail(Failure{Path: root, Reason: pathError(err)})
		w.tick()
		return nil
	}
	git := gitInfo(abs)
	if info, _ := os.Stat(abs); !info.IsDir() {
		// A file named on the command line is ingested even when its
		// name says it holds secrets: they are scrubbed before storing.
		w.st.Seen++
		workspace, err := workspaceOf(w.opts, filepath.Dir(abs))
		if err != nil {
			w.fail(Failure{Path: root, Reason: err.Error()})
		} else if err := w.file(ctx, abs, filepath.Base(abs), "file", git, workspace); err != nil {
			return err
		}
		w.tick()
		return nil
	}
	workspace, err := workspaceOf(w.opts, abs)
	if err != nil {
		w.st.Seen++
		w.fail(Failure{Path: root, Reason: err.Error()})
		w.tick()
		return nil
	}
	return w.folder(ctx, abs, git, workspace)
}

// folder ingests the files under abs that neither .gitignore nor their
// names (secret files) keep out.
func (w *walker) folder(ctx context.Context, abs string, git repoInfo, workspace string) error {
	var sets []*ignoreSet
	return filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, _ := filepath.Rel(abs, path)
		rel = filepath.ToSlash(rel)
		if err != nil {
			w.st.unreadable(rel)
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
				w.st.Ignored++
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
		w.st.Seen++
		switch {
		case ignored(sets, rel, false):
			w.st.Ignored++
		case isSecretFile(rel):
			w.st.Secret++
			w.st.SecretNames = append(w.st.SecretNames, rel)
		default:
			if err := w.file(ctx, path, rel, "folder", git, workspace); err != nil {
				return err
			}
		}
		w.tick()
		return nil
	})
}

// file reads one file and sends it, in the current batch or in parts.
// workspaceOf is the workspace of what is ingested from dir: the one
// asked for, else dir's name, which must then be a workspace name.
func workspaceOf(opts Options, dir string) (string, error) {
	if opts.Workspace != "" {
		return opts.Workspace, nil
	}
	name := filepath.Base(dir)
	if err := contract.CheckWorkspace(name); err != nil {
		return "", fmt.Errorf("the folder's name cannot be its workspace (%v): pass --workspace NAME", err)
	}
	return name, nil
}

func (w *walker) file(ctx context.Context, path, rel, kind string, git repoInfo, workspace string) error {
	info, err := os.Stat(path)
	if err != nil {
		w.st.unreadable(rel)
		return nil
	}
	if info.Size() > w.opts.MaxFileBytes {
		w.st.tooLarge(rel)
		return nil
	}
	f := File{
		SourceID: path, SourceKind: kind, DisplayName: rel,
		Language: Language(path), Workspace: workspace, FilePath: rel,
		Repo: git.repo, Commit: git.commit,
		// A time before 1970 (an archive's placeholder) is no time.
		ModifiedMS: max(0, info.ModTime().UnixMilli()),
	}
	if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
		f.Folder = dir
	}
	if git.top != "" {
		if r, err := filepath.Rel(git.top, path); err == nil {
			f.FilePath = filepath.ToSlash(r)
		}
	}
	return w.add(ctx, f, info.Size())
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
