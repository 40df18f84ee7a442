package audit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A resulting id is derived from content (a memory item's id fingerprints
// its text), so the audit never stores one as it is: whoever held the
// trail could hash a guessed sentence and learn that it had been stored,
// even after it was forgotten. Rows keep an HMAC of it instead, keyed by a
// secret that lives beside the trail (KeyFile) and never leaves it; with
// the key, an operator can still find the row of a known id
// (Pseudonym(key, id)).

// KeyFile is the name of the key's file, in the directory of the audit file.
const KeyFile = "audit.key"

// pseudonymPrefix marks an HMAC, so that a migration tells it from the
// plain ids rows held before.
const pseudonymPrefix = "hmac:"

// keyBytes is the key's length: SHA-256's block is longer, its output no
// shorter, so 32 random bytes are as strong as the HMAC gets.
const keyBytes = 32

// Pseudonym is the HMAC-SHA256 of id under key as rows keep it, or "" for
// no id or no key: without a key nothing derived from content is kept.
func Pseudonym(key []byte, id string) string {
	if id == "" || len(key) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return pseudonymPrefix + hex.EncodeToString(m.Sum(nil)[:16])
}

// IsPseudonym reports whether a stored resulting id is an HMAC.
func IsPseudonym(s string) bool { return strings.HasPrefix(s, pseudonymPrefix) }

// LoadKey reads the key at path, creating it with crypto/rand on first
// use, readable by its owner only. Several processes may start at once:
// the key is written to a temporary file and linked into place, so each
// either creates it or reads the one another created, never half a key.
func LoadKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the directory of the audit key: %w", err)
	}
	key = make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generating the audit key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), KeyFile+".*")
	if err != nil {
		return nil, fmt.Errorf("writing the audit key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing the audit key %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return readKey(path) // another process was first
	} else if err != nil {
		return nil, fmt.Errorf("writing the audit key %s: %w", path, err)
	}
	return key, nil
}

func readKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("the audit key %s is readable by others and cannot be made private: %w", path, err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != keyBytes {
		return nil, fmt.Errorf("the audit key %s is not %d hex-encoded bytes: restore it from a backup, or delete it to start a new one (rows written before then can no longer be matched to ids)", path, keyBytes)
	}
	return key, nil
}
