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
