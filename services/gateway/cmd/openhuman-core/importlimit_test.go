package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// coreWith runs openhuman-core on home with extra environment and stdin.
func coreWith(t *testing.T, home string, env []string, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), args...)
	cmd.Env = testEnv(home, env...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// storedBytes is the text and tags memory holds in home: what an import
// wrote, whatever it answered.
func storedBytes(t *testing.T, home string) int64 {
	t.Helper()
	path := filepath.Join(home, "memory.db")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT COALESCE(SUM(LENGTH(text) + LENGTH(tags)), 0) FROM items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// bigExport is an export of about 3 MiB: 30 documents of 100 KiB.
func bigExport(t *testing.T) []byte {
	var b bytes.Buffer
	for i := range 30 {
		text := fmt.Sprintf("Document %d. ", i) + strings.Repeat(fmt.Sprintf("Line %d of a long report about the garden. ", i), 3000)
		line, _ := json.Marshal(map[string]any{"v": 1, "kind": "document", "text": text[:100<<10]})
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// graphBomb is a server-memory graph of a few dozen KiB that unfolds into
// some MiB of records: one entity whose long name and type each of its
// thousands of short observations repeats.
func graphBomb() []byte {
	obs := make([]string, 6000)
	for i := range obs {
		obs[i] = fmt.Sprintf("o%d", i)
	}
	line, _ := json.Marshal(map[string]any{"type": "entity", "name": strings.Repeat("N", 190), "entityType": strings.Repeat("T", 190), "observations": obs})
	return append(line, '\n')
}

// An import past memory.max_import_mb is refused, naming the setting, and
// memory holds at most the limit: nothing when it could be known before
// storing (an export file's size, another tool's file that unfolds into
// more than its size), no more than the limit from a stream.
func TestImportLimit(t *testing.T) {
	const limit = 1 << 20
	env := []string{"OPENHUMAN_MEMORY_MAX_IMPORT_MB=1"}
	export := bigExport(t)
	bomb := graphBomb()
	dir := t.TempDir()
	exportFile, bombFile := filepath.Join(dir, "big.jsonl"), filepath.Join(dir, "memory.jsonl")
	for path, data := range map[string][]byte{exportFile: export, bombFile: bomb} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		in    int   // bytes of the file
		most  int64 // what memory may hold after
	}{
		{name: "an export file larger than the limit", args: []string{exportFile}, in: len(export)},
		{name: "a graph that unfolds past the limit", args: []string{"--from", "server-memory", bombFile}, in: len(bomb)},
		{name: "an export streamed past the limit", stdin: export, args: []string{"-"}, in: len(export), most: limit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			_, errs, code := coreWith(t, home, env, bytes.NewReader(tc.stdin), append([]string{"import"}, tc.args...)...)
			stored := storedBytes(t, home)
			if stored > tc.most {
				t.Errorf("memory holds %d bytes of text and tags after the import; want at most %d (%d bytes in)", stored, tc.most, tc.in)
			}
			if code != exitFailure {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailure, errs)
			}
			mustContain(t, errs, "the 1 MiB an import may store: raise memory.max_import_mb in config.toml, or set OPENHUMAN_MEMORY_MAX_IMPORT_MB")
		})
	}
	t.Run("under the default limit both import", func(t *testing.T) {
		home := t.TempDir()
		mustContain(t, mustCore(t, home, "import", "--from", "server-memory", bombFile), "imported 6000 items: 6000 stored")
	})
}
