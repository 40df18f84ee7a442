package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	t.Run("zero config is valid", func(t *testing.T) {
		home := t.TempDir()
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.NATS.URL != "" || !c.Memory.On() || c.Memory.Path != filepath.Join(home, "memory.db") || c.Tools.TimeoutSeconds != 30 || c.File != "" {
			t.Errorf("defaults: %+v", c)
		}
	})
	t.Run("home from env", func(t *testing.T) {
		home := t.TempDir()
		c, err := Load("", env(map[string]string{"OPENHUMAN_HOME": home}))
		if err != nil || c.Home != home {
			t.Fatalf("home %q, %v", c.Home, err)
		}
	})
	t.Run("file then env", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[nats]\nurl = \"nats://file:4222\"\n[memory]\nenabled = false\n[log]\nlevel = \"debug\"\n")
		c, err := Load(home, env(map[string]string{"OPENHUMAN_NATS_URL": "nats://env:4222"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.NATS.URL != "nats://env:4222" || c.Memory.On() || c.Log.Level != "debug" || c.File == "" {
			t.Errorf("got %+v", c)
		}
	})
	for _, tc := range []struct {
		name, file, want string
		env              map[string]string
	}{
		{name: "unknown key", file: "[nats]\nurll = \"x\"\n", want: "unknown key nats.urll"},
		{name: "bad toml", file: "[nats\n", want: "config.toml"},
		{name: "bad level", file: "[log]\nlevel = \"loud\"\n", want: "log.level"},
		{name: "bad url", env: map[string]string{"OPENHUMAN_NATS_URL": "localhost"}, want: "nats.url"},
		{name: "bad bool", env: map[string]string{"OPENHUMAN_MEMORY_ENABLED": "perhaps"}, want: "OPENHUMAN_MEMORY_ENABLED"},
		{name: "bad timeout", env: map[string]string{"OPENHUMAN_TOOL_TIMEOUT_SECONDS": "-3"}, want: "tools.timeout_seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				write(t, home, tc.file)
			}
			_, err := Load(home, env(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func write(t *testing.T, home, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCapabilityProviders(t *testing.T) {
	home := t.TempDir()
	write(t, home, `
[[capability_providers]]
id = "Acme Tools"
display_name = "Acme Tools"
source_uri = "https://example.com/openhuman/acme-tools"
source_digest = "sha256:abc123"
trust_state = "trusted"
enabled = true

[[capability_providers]]
id = "beta"
enabled = true
`)
	c, err := Load(home, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.CapabilityProviders) != 2 || c.CapabilityProviders[0].ID != "acme-tools" || !c.CapabilityProviders[0].Eligible() {
		t.Errorf("got %+v", c.CapabilityProviders)
	}
	if c.CapabilityProviders[1].TrustState != "untrusted" || c.CapabilityProviders[1].Eligible() {
		t.Errorf("an entry without trust_state must default to untrusted: %+v", c.CapabilityProviders[1])
	}

	for name, tc := range map[string]struct{ file, want string }{
		"duplicate after normalization": {"[[capability_providers]]\nid = \"Acme Tools\"\n[[capability_providers]]\nid = \"acme--tools\"\n", `#2: id "acme-tools" is a duplicate of #1`},
		"empty id":                      {"[[capability_providers]]\nid = \"!!\"\n", "#1: id is empty"},
		"bad trust":                     {"[[capability_providers]]\nid = \"x\"\ntrust_state = \"maybe\"\n", `trust_state "maybe"`},
		"bad http addr":                 {"[http]\naddr = \"9300\"\n", "http.addr"},
		"bad metrics addr":              {"[metrics]\naddr = \"everywhere\"\n", "metrics.addr"},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tc.file)
			if _, err := Load(home, env(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
