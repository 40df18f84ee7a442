// Package hfhub fetches model files from the Hugging Face Hub once, into a
// local directory, and checks them on every load after: a model is read
// from disk, never from the network on a search's path.
//
// Files land in <dir>/<repo>/<commit>/<path>. A revision that is not a
// commit (such as "main") is resolved by the first fetch, from the commit
// the hub names in X-Repo-Commit, and recorded in <dir>/<repo>/refs, so
// that later loads read the same files offline. Each file is downloaded
// to a ".part" file, resumed with an HTTP Range request when a transfer
// was cut, hashed (SHA-256), compared with its pin when it has one, and
// renamed into place. The hashes of the first fetch are recorded in
// checksums.json beside the files and checked on every load.
package hfhub

import (
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// DefaultBaseURL is the Hugging Face Hub.
const DefaultBaseURL = "https://huggingface.co"

// Repo names a model repository's files at one revision.
type Repo struct {
	// Name is the repository, "owner/name".
	Name string
	// Revision is a commit (40 hex digits) or a branch or tag, which the
	// first fetch pins to its commit.
	Revision string
	Files    []File
}

// File is one file of a repository, with its SHA-256 (hex) when known.
type File struct {
	Path   string
	SHA256 string
}

// Client fetches repositories into Dir. The zero value of each other
// field is a working default.
type Client struct {
	// Dir holds the models: $OPENHUMAN_HOME/models.
	Dir string
	// BaseURL is the hub's address (DefaultBaseURL).
	BaseURL string
	// HTTP makes the requests (defaultHTTP).
	HTTP *http.Client
	// Stall ends a transfer after this long without a byte (a minute),
	// keeping what came for the next attempt to resume.
	Stall time.Duration
	Log   *slog.Logger
	// Progress, when set, is told of each file's bytes as they come: done
	// of total (total 0 when the hub did not say). Called from the
	// fetching goroutine; it must not block.
	Progress func(Progress)
	// Retrying, when set, is told of each failed attempt of FetchRetrying
	// and how long it waits before the next.
	Retrying func(err error, wait time.Duration)
}

// Progress is how far the transfer of one file has come.
type Progress struct {
	Repo, File  string
	Done, Total int64
}

var (
	commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)
	nameRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	refRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

func (c *Client) base() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c *Client) log() *slog.Logger {
	if c.Log == nil {
		return slog.Default()
	}
	return c.Log
}

// defaultHTTP gives up on a hub that does not connect or answer within
// seconds, and sets no overall deadline: a large file takes as long as it
// takes while bytes keep coming. One for every client, so that
// connections are reused.
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	TLSHandshakeTimeout:   10 * time.Second,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
}}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTP
}

// check refuses names that could leave Dir.
func (r Repo) check() error {
	if !nameRe.MatchString(r.Name) || strings.Contains(r.Name, "..") {
		return contract.Errorf(contract.CodeInvalidRequest, "model repository %q is not owner/name", r.Name)
	}
	if !refRe.MatchString(r.Revision) || strings.Contains(r.Revision, "..") {
		return contract.Errorf(contract.CodeInvalidRequest, "model revision %q is not a commit, branch or tag", r.Revision)
	}
	if len(r.Files) == 0 {
		return contract.Errorf(contract.CodeInvalidRequest, "model repository %s: no files named", r.Name)
	}
	for _, f := range r.Files {
		clean := filepath.ToSlash(filepath.Clean(f.Path))
		if f.Path == "" || clean != f.Path || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") || clean == ".." {
			return contract.Errorf(contract.CodeInvalidRequest, "model file %q is not a plain relative path", f.Path)
		}
	}
	return nil
}

// Local returns the directory of r's files when an earlier fetch left
// them all, each with the hash it was fetched with (and its pin). It never
// touches the network. NOT_FOUND: not fetched yet; ENGINE: a file is
// missing or changed since.
func (c *Client) Local(r Repo) (string, error) {
	if err := r.check(); err != nil {
		return "", err
	}
	commit, err := c.commit(r)
	if err != nil {
		return "", err
	}
	dir := c.revDir(r, commit)
	sums, err := readChecksums(dir)
	if err != nil {
		return "", err
	}
	for _, f := range r.Files {
		if err := sums.verify(dir, f); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Fetched reports whether a fetch recorded r's files whole, without
// reading them: Local checks them.
func (c *Client) Fetched(r Repo) bool {
	if r.check() != nil {
		return false
	}
	commit, err := c.commit(r)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(c.revDir(r, commit), checksumsFile))
	return err == nil
}

// commit is r's commit: its revision, or the one a fetch recorded for it.
func (c *Client) commit(r Repo) (string, error) {
	if commitRe.MatchString(r.Revision) {
		return r.Revision, nil
	}
	b, err := os.ReadFile(c.refPath(r))
	if os.IsNotExist(err) {
		return "", contract.Errorf(contract.CodeNotFound, "model %s@%s has not been fetched", r.Name, r.Revision)
	}
	if err != nil {
		return "", contract.Errorf(contract.CodeEngine, "reading the model's pinned revision: %v", err)
	}
	commit := strings.TrimSpace(string(b))
	if !commitRe.MatchString(commit) {
		return "", contract.Errorf(contract.CodeEngine, "%s does not hold a commit", c.refPath(r))
	}
	return commit, nil
}

func (c *Client) repoDir(r Repo) string {
	return filepath.Join(c.Dir, filepath.FromSlash(r.Name))
}

func (c *Client) refPath(r Repo) string {
	return filepath.Join(c.repoDir(r), "refs", r.Revision)
}

func (c *Client) revDir(r Repo, commit string) string {
	return filepath.Join(c.repoDir(r), commit)
}
