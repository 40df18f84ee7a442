// Package backup copies a home's databases (memory and the audit, with the
// audit's key) into one file while the server keeps serving, and puts
// them back into a home no server is running on. The file is a tar
// archive: manifest.json first (the format and its version, and each
// database's schema version), then each file. A consistent copy of a
// database in use is SQLite's VACUUM INTO (sqlitefile.Snapshot); a
// restore refuses a newer format or schema than this build knows, and a
// damaged database, before it touches the home.
package backup

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// Format names the archive; Version is the newest this build writes and
// reads.
const (
	Format  = "openhuman-backup"
	Version = 1
)

// File is one database or file of a home.
type File struct {
	// Name in the archive: memory.db, audit.db, audit.key.
	Name string
	// Path in the home.
	Path string
	// Schema is the newest schema version this build knows, for a
	// database; 0 for a plain file.
	Schema int
	// Optional files may be absent from the home (an audit never
	// written) and from the archive.
	Optional bool
}

// Manifest is manifest.json.
type Manifest struct {
	Format    string               `json:"format"`
	Version   int                  `json:"version"`
	CreatedAt string               `json:"created_at"`
	Files     map[string]FileEntry `json:"files"`
}

// FileEntry describes one file of the archive.
type FileEntry struct {
	Bytes  int64 `json:"bytes"`
	Schema int   `json:"schema,omitempty"`
}

// Write copies files into a backup at dest (written beside it, then
// renamed into place, so a cut-short backup never looks whole).
func Write(ctx context.Context, dest string, files []File) (*Manifest, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".openhuman-backup-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	man := &Manifest{Format: Format, Version: Version, CreatedAt: time.Now().UTC().Format(time.RFC3339), Files: map[string]FileEntry{}}
	var copies []string
	for _, f := range files {
		if _, err := os.Stat(f.Path); errors.Is(err, os.ErrNotExist) && f.Optional {
			continue
		} else if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no %s yet: nothing to back up", filepath.Dir(f.Path), f.Name)
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		out := filepath.Join(tmp, f.Name)
		var entry FileEntry
		if f.Schema > 0 {
			if entry.Schema, err = sqlitefile.Snapshot(ctx, f.Path, out); err != nil {
				return nil, err
			}
		} else if err := copyFile(f.Path, out); err != nil {
			return nil, err
		}
		st, err := os.Stat(out)
		if err != nil {
			return nil, err
		}
		entry.Bytes = st.Size()
		man.Files[f.Name] = entry
		copies = append(copies, f.Name)
	}
	part := dest + ".partial"
	err = writeTar(part, tmp, man, copies)
	if err == nil {
		err = os.Rename(part, dest)
	}
	if err != nil {
		os.Remove(part)
		return nil, err
	}
	return man, nil
}

func writeTar(path, dir string, man *Manifest, names []string) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	tw := tar.NewWriter(out)
	head, _ := json.MarshalIndent(man, "", "  ")
	if err := tw.WriteHeader(&tar.Header{Name: "manifest.json", Mode: 0o600, Size: int64(len(head)), ModTime: time.Now()}); err != nil {
		return err
	}
	if _, err := tw.Write(head); err != nil {
		return err
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		st, _ := f.Stat()
		err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: st.Size(), ModTime: st.ModTime()})
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	return out.Close()
}

// ErrNotEmpty says the home holds memory a restore would replace.
var ErrNotEmpty = errors.New("the home already holds memory")

// Restore puts the backup at src into the home's files. It refuses, and
// leaves the home as it was, when another process has one of its
// databases open, when the home holds one already (unless replace), and
// when the backup is of a newer format or schema, damaged, or lacks a
// file that is not optional.
func Restore(ctx context.Context, src string, files []File, replace bool) (_ *Manifest, rerr error) {
	for _, f := range files {
		if f.Schema == 0 {
			continue
		}
		busy, err := sqlitefile.InUse(f.Path)
		if err != nil {
			return nil, err
		}
		if busy {
			return nil, fmt.Errorf("%s is open in a running openhuman-core (or service): stop it, then restore: %w", f.Path, sqlitefile.ErrInUse)
		}
		if _, err := os.Stat(f.Path); err == nil && !replace {
			return nil, fmt.Errorf("%s exists: restore into an empty home, or pass --force to replace what it holds: %w", f.Path, ErrNotEmpty)
		}
	}
	if len(files) == 0 {
		return nil, errors.New("nothing to restore")
	}
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: name a file that openhuman-core backup wrote", src)
	} else if err != nil {
		return nil, err
	}
	// A new home is made as the server makes one, for its owner only;
	// made for a restore that is then refused, it is taken away again,
	// so that nothing shows a home where none was.
	home := filepath.Dir(files[0].Path)
	_, statErr := os.Stat(home)
	if _, err := sqlitefile.PrivateDir(home); err != nil {
		return nil, err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		defer func() {
			if rerr != nil {
				os.Remove(home)
			}
		}()
	}
	tmp, err := os.MkdirTemp(home, ".openhuman-restore-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	man, err := extract(src, tmp, files)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		got := filepath.Join(tmp, f.Name)
		if _, ok := man.Files[f.Name]; !ok {
			if f.Optional {
				continue
			}
			return nil, fmt.Errorf("%s holds no %s: it is not a whole backup", src, f.Name)
		}
		if f.Schema > 0 {
			v, err := sqlitefile.Inspect(ctx, got)
			if err != nil {
				return nil, fmt.Errorf("%s of %s: %w", f.Name, src, err)
			}
			if v > f.Schema {
				return nil, fmt.Errorf("%s of %s is schema version %d, newer than this openhuman-core knows (%d): restore it with a newer one", f.Name, src, v, f.Schema)
			}
		}
	}
	for _, f := range files {
		got := filepath.Join(tmp, f.Name)
		if _, ok := man.Files[f.Name]; !ok {
			continue
		}
		// A WAL left by the database replaced would be replayed into the
		// restored one.
		for _, stale := range []string{f.Path, f.Path + "-wal", f.Path + "-shm"} {
			if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
		if err := os.Rename(got, f.Path); err != nil {
			return nil, err
		}
	}
	return man, nil
}

// extract reads the archive into dir: its manifest first, then only the
// files it names that are among files.
func extract(src, dir string, files []File) (*Manifest, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	tr := tar.NewReader(in)
	h, err := tr.Next()
	if err != nil || h.Name != "manifest.json" {
		return nil, fmt.Errorf("%s is not an openhuman-core backup (no manifest.json first)", src)
	}
	var man Manifest
	if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&man); err != nil || man.Format != Format {
		return nil, fmt.Errorf("%s is not an openhuman-core backup (its manifest names no %s format)", src, Format)
	}
	if man.Version > Version {
		return nil, fmt.Errorf("%s is backup format version %d, newer than this openhuman-core restores (%d): restore it with a newer one", src, man.Version, Version)
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is cut short or damaged: %w", src, err)
		}
		if _, listed := man.Files[h.Name]; !listed || !slices.ContainsFunc(files, func(f File) bool { return f.Name == h.Name }) {
			continue
		}
		out, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		n, err := io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s is cut short or damaged: %w", src, err)
		}
		if n != man.Files[h.Name].Bytes {
			return nil, fmt.Errorf("%s: %s is %d bytes, its manifest says %d: the backup is damaged", src, h.Name, n, man.Files[h.Name].Bytes)
		}
	}
	for name := range man.Files {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil && slices.ContainsFunc(files, func(f File) bool { return f.Name == name }) {
			return nil, fmt.Errorf("%s lists %s but does not hold it: the backup is cut short", src, name)
		}
	}
	return &man, nil
}

func copyFile(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
