package sqlite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/oauthtest"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "oauth.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	oauthtest.TestStore(t, s)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("oauth.db is %v, want 0600", info.Mode().Perm())
	}
}
