package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

// A forgotten learning leaves nothing in the home a reader of its files
// could recover it from, or confirm a guess of it with: not its text, not
// its id (a fingerprint of the text), not the text's SHA-256, in any file
// (memory.db and its WAL and shared memory, audit.db, ...).
func TestForgetLeavesNoTrace(t *testing.T) {
	home := t.TempDir()
	gw := gatewaytest.StartIn(t, home, nil, gateway.Options{})
	const text = "Quillfeather keeps the orrery manual in the third drawer of the walnut desk."
	// Something else stays, so the files are not simply empty.
	if _, err := learn(gw, "The user prefers tabs over spaces."); err != nil {
		t.Fatal(err)
	}
	raw, err := learn(gw, text)
	if err != nil {
		t.Fatal(err)
	}
	var learned struct{ ID string }
	if err := json.Unmarshal(raw, &learned); err != nil || learned.ID == "" {
		t.Fatalf("learn answered %s", raw)
	}
	args, _ := json.Marshal(map[string]any{"ids": []string{learned.ID}})
	if _, err := gw.CallTool(context.Background(), "memory.forget", args, contract.CallContext{Source: "mcp:cursor"}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(text))
	traces := map[string][]byte{
		"text": []byte(text), "a distinctive word": []byte("Quillfeather"), "id": []byte(learned.ID),
		"sha256 (hex)": []byte(hex.EncodeToString(sum[:])), "sha256": sum[:],
	}
	files := 0
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for what, trace := range traces {
			if strings.Contains(string(b), string(trace)) {
				t.Errorf("%s holds the forgotten item's %s", filepath.Base(path), what)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"memory.db", "audit.db", "audit.key"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Errorf("%s is not where the test looks: %v", f, err)
		}
	}
	t.Logf("%d files searched", files)
}
