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
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/sqlitefile"
)

// ErrNotEmpty says the home holds memory a restore would replace.
var ErrNotEmpty = errors.New("the home already holds memory")

// ErrTooLarge says a backup's files come to more than a restore may write.
var ErrTooLarge = errors.New("more than a restore may write")

// DefaultMaxBytes bounds a restore whose options name no limit.
const DefaultMaxBytes int64 = 8 << 30

// RestoreOptions say how a restore may change the home.
type RestoreOptions struct {
	// Replace lets the restore replace the memory the home holds.
	Replace bool
	// MaxBytes bounds the bytes the restore writes, all files together
	// (0: DefaultMaxBytes). A backup whose manifest claims more is refused
	// before anything is written.
	MaxBytes int64
}

func (o RestoreOptions) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// Restore puts the backup at src into the home's files. It refuses, and
// leaves the home as it was, when another process has one of its
// databases open, when the home holds one already (unless opts.Replace),
// and when the backup is of a newer format or schema, damaged, larger
// than opts.MaxBytes, or lacks a file that is not optional. Files are
// extracted beside the home's and renamed into place only once all are
// whole and checked.
func Restore(ctx context.Context, src string, files []File, opts RestoreOptions) (_ *Manifest, rerr error) {
	if err := checkHome(files, opts.Replace); err != nil {
		return nil, err
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
	man, err := extract(src, tmp, files, opts.maxBytes())
	if err != nil {
		return nil, err
	}
	if err := checkExtracted(ctx, src, tmp, man, files); err != nil {
		return nil, err
	}
	return man, moveIntoPlace(tmp, man, files)
}

// checkHome refuses a home whose databases are open or, unless replace,
// already there.
func checkHome(files []File, replace bool) error {
	if len(files) == 0 {
		return errors.New("nothing to restore")
	}
	for _, f := range files {
		if f.Schema == 0 {
			continue
		}
		busy, err := sqlitefile.InUse(f.Path)
		if err != nil {
			return err
		}
		if busy {
			return fmt.Errorf("%s is open in a running openhuman-core (or service): stop it, then restore: %w", f.Path, sqlitefile.ErrInUse)
		}
		if _, err := os.Stat(f.Path); err == nil && !replace {
			return fmt.Errorf("%s exists: restore into an empty home, or pass --force to replace what it holds: %w", f.Path, ErrNotEmpty)
		}
	}
	return nil
}

// checkExtracted refuses a backup that lacks a file that is not optional,
// or holds a damaged database or one newer than this build knows.
func checkExtracted(ctx context.Context, src, dir string, man *Manifest, files []File) error {
	for _, f := range files {
		if _, ok := man.Files[f.Name]; !ok {
			if f.Optional {
				continue
			}
			return fmt.Errorf("%s holds no %s: it is not a whole backup", src, f.Name)
		}
		if f.Schema == 0 {
			continue
		}
		v, err := sqlitefile.Inspect(ctx, filepath.Join(dir, f.Name))
		if err != nil {
			return fmt.Errorf("%s of %s: %w", f.Name, src, err)
		}
		if v > f.Schema {
			return fmt.Errorf("%s of %s is schema version %d, newer than this openhuman-core knows (%d): restore it with a newer one", f.Name, src, v, f.Schema)
		}
	}
	return nil
}

// moveIntoPlace renames the extracted files over the home's.
func moveIntoPlace(dir string, man *Manifest, files []File) error {
	for _, f := range files {
		if _, ok := man.Files[f.Name]; !ok {
			continue
		}
		// A WAL left by the database replaced would be replayed into the
		// restored one.
		for _, stale := range []string{f.Path, f.Path + "-wal", f.Path + "-shm"} {
			if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		if err := os.Rename(filepath.Join(dir, f.Name), f.Path); err != nil {
			return err
		}
	}
	return nil
}

// extract reads the archive into dir: its manifest first, then only the
// files it names that are among files. What the manifest claims is
// checked before any file is written, and each file is copied only up to
// the size it claims, so an archive cannot make a restore write more than
// limit, nor more than the archive itself holds.
func extract(src, dir string, files []File, limit int64) (*Manifest, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(in)
	man, err := readManifest(src, tr)
	if err != nil {
		return nil, err
	}
	wanted := func(name string) bool {
		_, listed := man.Files[name]
		return listed && slices.ContainsFunc(files, func(f File) bool { return f.Name == name })
	}
	if err := checkClaims(src, man, wanted, st.Size(), limit); err != nil {
		return nil, err
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is cut short or damaged: %w", src, err)
		}
		if !wanted(h.Name) {
			continue
		}
		if err := extractFile(src, tr, h, dir, man.Files[h.Name].Bytes); err != nil {
			return nil, err
		}
	}
	for name := range man.Files {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil && wanted(name) {
			return nil, fmt.Errorf("%s lists %s but does not hold it: the backup is cut short", src, name)
		}
	}
	return man, nil
}

func readManifest(src string, tr *tar.Reader) (*Manifest, error) {
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
	return &man, nil
}

// checkClaims refuses a manifest whose wanted files come to more than
// limit, or to more than the archive's size: a backup stores its files
// whole, uncompressed, so a claim past the archive's end is a lie.
func checkClaims(src string, man *Manifest, wanted func(string) bool, archive, limit int64) error {
	var total int64
	for name, f := range man.Files {
		if !wanted(name) {
			continue
		}
		if f.Bytes < 0 || f.Bytes > archive {
			return fmt.Errorf("%s: its manifest says %s is %d bytes, but the backup is %d bytes: it is damaged or was not written by openhuman-core backup", src, name, f.Bytes, archive)
		}
		total += f.Bytes
	}
	if total > archive {
		return fmt.Errorf("%s: its manifest claims %d bytes of files, but the backup is %d bytes: it is damaged or was not written by openhuman-core backup", src, total, archive)
	}
	if total > limit {
		return fmt.Errorf("%s holds %d bytes of files, %w (%d bytes)", src, total, ErrTooLarge, limit)
	}
	return nil
}

// extractFile copies the entry h of tr into dir, refusing an entry that
// is not a plain file of the size its manifest says: a sparse entry would
// unfold into far more than the archive holds.
func extractFile(src string, tr *tar.Reader, h *tar.Header, dir string, want int64) (rerr error) {
	if h.Typeflag != tar.TypeReg || sparse(h) || h.Size != want {
		return fmt.Errorf("%s: %s is not stored as the plain file of %d bytes its manifest says: the backup is damaged or was not written by openhuman-core backup", src, h.Name, want)
	}
	path := filepath.Join(dir, h.Name)
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if rerr != nil {
			os.Remove(path)
		}
	}()
	n, err := io.Copy(out, io.LimitReader(tr, want+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s is cut short or damaged: %w", src, err)
	}
	if n != want {
		return fmt.Errorf("%s: %s is %d bytes, its manifest says %d: the backup is damaged", src, h.Name, n, want)
	}
	return nil
}

// sparse reports a PAX entry carrying GNU's sparse map, which archive/tar
// reads as a plain file.
func sparse(h *tar.Header) bool {
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}
