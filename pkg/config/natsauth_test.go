package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNATSCredentials(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "user.nk")
	if err := os.WriteFile(seed, []byte("SU..."), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.creds")

	t.Run("each method alone loads", func(t *testing.T) {
		for _, e := range []map[string]string{
			{"OPENHUMAN_NATS_USER": "gateway", "OPENHUMAN_NATS_PASSWORD": "s3cret"},
			{"OPENHUMAN_NATS_TOKEN": "t0ken"},
			{"OPENHUMAN_NATS_NKEY": seed},
			{"OPENHUMAN_NATS_CREDS": seed},
			{"OPENHUMAN_NATS_URL": "nats://gateway:s3cret@127.0.0.1:4222"},
			{"OPENHUMAN_NATS_TLS_CA": seed, "OPENHUMAN_NATS_TLS_CERT": seed, "OPENHUMAN_NATS_TLS_KEY": seed, "OPENHUMAN_NATS_TOKEN": "t"},
		} {
			c, err := Load(t.TempDir(), env(e))
			if err != nil {
				t.Errorf("%v: %v", e, err)
				continue
			}
			if c.NATS.AuthMethod() == "" {
				t.Errorf("%v: no method reported", e)
			}
		}
	})

	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"two methods", map[string]string{"OPENHUMAN_NATS_USER": "u", "OPENHUMAN_NATS_PASSWORD": "p", "OPENHUMAN_NATS_TOKEN": "t"},
			[]string{"nats.user/nats.password and nats.token are two ways", "remove the other"}},
		{"nkey and creds", map[string]string{"OPENHUMAN_NATS_NKEY": seed, "OPENHUMAN_NATS_CREDS": seed},
			[]string{"nats.nkey and nats.creds"}},
		{"user in the URL and a token", map[string]string{"OPENHUMAN_NATS_URL": "nats://u:p@h:4222", "OPENHUMAN_NATS_TOKEN": "t"},
			[]string{"nats.token and the credentials in nats.url"}},
		{"user without password", map[string]string{"OPENHUMAN_NATS_USER": "u"},
			[]string{`nats.user "u" has no password`, "OPENHUMAN_NATS_PASSWORD"}},
		{"password without user", map[string]string{"OPENHUMAN_NATS_PASSWORD": "hunter2"},
			[]string{"nats.user is not", "OPENHUMAN_NATS_USER"}},
		{"missing creds file", map[string]string{"OPENHUMAN_NATS_CREDS": missing},
			[]string{"nats.creds", missing, "no such file", "OPENHUMAN_NATS_CREDS"}},
		{"missing nkey file", map[string]string{"OPENHUMAN_NATS_NKEY": missing},
			[]string{"nats.nkey", "no such file"}},
		{"missing CA", map[string]string{"OPENHUMAN_NATS_TLS_CA": missing},
			[]string{"nats.tls_ca", "no such file"}},
		{"directory as CA", map[string]string{"OPENHUMAN_NATS_TLS_CA": dir},
			[]string{"nats.tls_ca", "is a directory"}},
		{"cert without key", map[string]string{"OPENHUMAN_NATS_TLS_CERT": seed},
			[]string{"nats.tls_cert and nats.tls_key go together"}},
		{"bad URL with a password", map[string]string{"OPENHUMAN_NATS_URL": "u:hunter2@localhost"},
			[]string{"nats.url", "localhost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(t.TempDir(), env(tc.env))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), `"p"`) {
				t.Errorf("error %q repeats a password", err)
			}
		})
	}

	t.Run("from the file", func(t *testing.T) {
		home := t.TempDir()
		write(t, home, "[nats]\nurl = \"tls://nats:4222\"\nuser = \"memory\"\npassword = \"pw\"\ntls_ca = \""+seed+"\"\n")
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.NATS.User != "memory" || c.NATS.Password != "pw" || c.NATS.TLSCA != seed || c.NATS.AuthMethod() != "nats.user/nats.password" {
			t.Errorf("got %+v", c.NATS)
		}
	})
}
