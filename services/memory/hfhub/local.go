package hfhub

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Local is what a fetch left of a repository on disk, for a person to
// read: which commit, where, and each file with what was recorded of it.
type Local struct {
	Repo   string
	Commit string // "" when the repository has not been fetched
	Dir    string
	Files  []LocalFile
}

// LocalFile is one file of a fetched repository. Err is nil when it
// matches the SHA-256 and size recorded when it was fetched.
type LocalFile struct {
	Path   string
	SHA256 string
	Size   int64
	Err    error
}

// Inspect reads what a fetch left of r without touching the network,
// hashing every file (Verify's work). NOT_FOUND when r was never fetched.
func (c *Client) Inspect(r Repo) (Local, error) {
	if err := r.check(); err != nil {
		return Local{Repo: r.Name}, err
	}
	commit, err := c.commit(r)
	if err != nil {
		return Local{Repo: r.Name}, err
	}
	l := Local{Repo: r.Name, Commit: commit, Dir: c.revDir(r, commit)}
	sums, err := readChecksums(l.Dir)
	if err != nil {
		return l, err
	}
	for _, f := range r.Files {
		lf := LocalFile{Path: f.Path, Err: sums.verify(l.Dir, f)}
		if rec, ok := sums.Files[f.Path]; ok {
			lf.SHA256, lf.Size = rec.SHA256, rec.Size
		}
		l.Files = append(l.Files, lf)
	}
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	return l, nil
}

// Remove deletes everything fetched of r, every revision; a repository
// that was never fetched is no error. Its owner's directory goes too when
// nothing else is left in it.
func (c *Client) Remove(r Repo) error {
	if err := r.check(); err != nil {
		return err
	}
	dir := c.repoDir(r)
	if err := os.RemoveAll(dir); err != nil {
		return contract.Errorf(contract.CodeEngine, "removing model %s: %v", r.Name, err)
	}
	// Fails, and is meant to, while another repository of the owner is there.
	_ = os.Remove(filepath.Dir(dir))
	return nil
}
