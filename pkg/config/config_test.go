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
