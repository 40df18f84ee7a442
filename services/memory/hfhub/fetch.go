package hfhub

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Fetch returns the directory of r's files, downloading those an earlier
// fetch did not leave whole (and any that no longer match their recorded
// hash). A hub that cannot be reached fails the call at once with
// UNAVAILABLE; a file that does not match its pin fails it with ENGINE and
// is not kept.
func (c *Client) Fetch(ctx context.Context, r Repo) (string, error) {
	if dir, err := c.Local(r); err == nil {
		return dir, nil
	} else if contract.ErrorCode(err) == contract.CodeInvalidRequest {
		return "", err
	}
	commit, err := c.commit(r)
	if contract.ErrorCode(err) == contract.CodeNotFound {
		commit, err = c.resolve(ctx, r)
	}
	if err != nil {
		return "", err
	}
	dir := c.revDir(r, commit)
	sums, err := readChecksums(dir)
	if contract.ErrorCode(err) == contract.CodeNotFound {
		sums, err = &checksums{Repo: r.Name, Commit: commit, Files: map[string]sum{}}, nil
	}
	if err != nil {
		return "", err
	}
	for _, f := range r.Files {
		if err := c.fetchFile(ctx, r, commit, dir, f, sums); err != nil {
			return "", err
		}
	}
	b, _ := json.MarshalIndent(sums, "", "  ")
	if err := writeAtomic(filepath.Join(dir, checksumsFile), b); err != nil {
		return "", err
	}
	return dir, nil
}

// fetchFile downloads f unless it is in place with its recorded hash, and
// records its hash.
func (c *Client) fetchFile(ctx context.Context, r Repo, commit, dir string, f File, sums *checksums) error {
	if sums.verify(dir, f) == nil {
		return nil
	}
	pin := f.SHA256
	if rec, ok := sums.Files[f.Path]; ok && pin == "" {
		// Fetched before with this hash: the same commit must give it again.
		pin = rec.SHA256
	}
	start := time.Now()
	u := c.fileURL(r.Name, commit, f.Path)
	s, err := c.download(ctx, u, filepath.Join(dir, filepath.FromSlash(f.Path)), pin, Progress{Repo: r.Name, File: f.Path})
	if err != nil {
		return err
	}
	sums.Files[f.Path] = s
	c.log().Info("model file fetched", "repo", r.Name, "commit", commit, "file", f.Path, "bytes", s.Size, "sha256", s.SHA256, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

func (c *Client) fileURL(repo, rev, path string) string {
	return c.base() + "/" + repo + "/resolve/" + url.PathEscape(rev) + "/" + path
}

// resolve asks the hub which commit r's revision names (the X-Repo-Commit
// of a HEAD request for its first file, before any redirect to a file
// store) and records it, pinning the revision from then on.
func (c *Client) resolve(ctx context.Context, r Repo) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, c.fileURL(r.Name, r.Revision, r.Files[0].Path), nil)
	if err != nil {
		return "", contract.Errorf(contract.CodeInvalidRequest, "model hub address: %v", err)
	}
	hc := *c.http()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return "", unreachable(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return "", statusError(resp, r.Files[0].Path)
	}
	commit := strings.ToLower(resp.Header.Get("X-Repo-Commit"))
	if !commitRe.MatchString(commit) {
		return "", contract.Errorf(contract.CodeEngine, "the model hub did not name the commit of %s@%s (X-Repo-Commit %q): pin a commit instead", r.Name, r.Revision, commit)
	}
	if err := writeAtomic(c.refPath(r), []byte(commit+"\n")); err != nil {
		return "", err
	}
	c.log().Info("model revision pinned", "repo", r.Name, "revision", r.Revision, "commit", commit)
	return commit, nil
}

func unreachable(err error) error {
	if errors.Is(err, context.Canceled) {
		return contract.Errorf(contract.CodeUnavailable, "fetching a model was cancelled")
	}
	return contract.Errorf(contract.CodeUnavailable, "the model hub cannot be reached: %v", err)
}

func statusError(resp *http.Response, path string) error {
	code := contract.CodeUnavailable
	if resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
		code = contract.CodeEngine
	}
	return contract.Errorf(code, "the model hub answered %s for %s", resp.Status, path)
}

// Backoff spaces failed fetches: Min first, doubling up to Max.
type Backoff struct{ Min, Max time.Duration }

// FetchRetrying fetches r until it succeeds or ctx ends, waiting b between
// failures. It is for a background goroutine: whatever needs the model
// uses something else until it returns. A request the hub refuses for
// good (ENGINE, INVALID_REQUEST: a wrong pin, a missing file) is retried
// too, at the slower pace, as the hub or the configuration may change.
func (c *Client) FetchRetrying(ctx context.Context, r Repo, b Backoff) (string, error) {
	wait := max(b.Min, time.Millisecond)
	for {
		dir, err := c.Fetch(ctx, r)
		if err == nil {
			return dir, nil
		}
		if ctx.Err() != nil {
			return "", unreachable(context.Canceled)
		}
		c.log().Warn("fetching a model failed; retrying", "repo", r.Name, "in", wait, "err", contract.ErrorMessage(err))
		if c.Retrying != nil {
			c.Retrying(err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", unreachable(context.Canceled)
		case <-t.C:
		}
		wait = min(2*wait, max(b.Max, b.Min))
	}
}
