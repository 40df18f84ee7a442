package hfhub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// checksumsFile sits beside a revision's files and records each file's
// hash as first fetched.
const checksumsFile = "checksums.json"

type checksums struct {
	Repo   string         `json:"repo"`
	Commit string         `json:"commit"`
	Files  map[string]sum `json:"files"`
}

type sum struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

func readChecksums(dir string) (*checksums, error) {
	b, err := os.ReadFile(filepath.Join(dir, checksumsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, contract.Errorf(contract.CodeNotFound, "no model has been fetched into %s", dir)
	}
	if err != nil {
		return nil, contract.Errorf(contract.CodeEngine, "reading the model's checksums: %v", err)
	}
	var c checksums
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, contract.Errorf(contract.CodeEngine, "the model's checksums in %s are damaged: %v", dir, err)
	}
	return &c, nil
}

// verify checks f against what was recorded for it and against its pin.
func (c *checksums) verify(dir string, f File) error {
	rec, ok := c.Files[f.Path]
	if !ok {
		return contract.Errorf(contract.CodeNotFound, "model file %s has not been fetched", f.Path)
	}
	if f.SHA256 != "" && f.SHA256 != rec.SHA256 {
		return contract.Errorf(contract.CodeEngine, "model file %s: pinned sha256 %s, fetched %s", f.Path, f.SHA256, rec.SHA256)
	}
	got, size, err := hashFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
	if err != nil {
		return err
	}
	if got != rec.SHA256 || size != rec.Size {
		return contract.Errorf(contract.CodeEngine, "model file %s changed since it was fetched: expected sha256 %s (%d bytes), found %s (%d bytes)",
			f.Path, rec.SHA256, rec.Size, got, size)
	}
	return nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", 0, contract.Errorf(contract.CodeNotFound, "model file %s is missing", path)
	}
	if err != nil {
		return "", 0, contract.Errorf(contract.CodeEngine, "reading a model file: %v", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, contract.Errorf(contract.CodeEngine, "reading model file %s: %v", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// writeAtomic writes data to path through a temporary file and a rename,
// so that a reader sees the old content or the new, never a part.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return contract.Errorf(contract.CodeEngine, "creating the models directory: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return contract.Errorf(contract.CodeEngine, "writing %s: %v", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return contract.Errorf(contract.CodeEngine, "writing %s: %v", path, err)
	}
	return nil
}
