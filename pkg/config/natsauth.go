package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// authMethods names each way of authenticating that n sets, in the words
// of its keys. nats.go would take one of several without a word, so more
// than one is a mistake to report, not a choice to make.
func (n NATS) authMethods() []string {
	var out []string
	if n.User != "" || n.Password != "" {
		out = append(out, "nats.user/nats.password")
	}
	if n.Token != "" {
		out = append(out, "nats.token")
	}
	if n.NKey != "" {
		out = append(out, "nats.nkey")
	}
	if n.Creds != "" {
		out = append(out, "nats.creds")
	}
	if n.urlHasCredentials() {
		out = append(out, "the credentials in nats.url")
	}
	return out
}

// AuthMethod names the keys of the credentials n sends, "" when it sends
// none: what a person whose credentials were refused should check.
func (n NATS) AuthMethod() string {
	if m := n.authMethods(); len(m) > 0 {
		return m[0]
	}
	return ""
}

func (n NATS) urlHasCredentials() bool {
	for _, s := range strings.Split(n.URL, ",") {
		if u, err := url.Parse(strings.TrimSpace(s)); err == nil && u.User != nil {
			return true
		}
	}
	return false
}

// validate checks the credentials and TLS settings. A file is checked now
// so that a typo in its path is reported at start with its key, not as a
// refusal from the server.
func (n NATS) validate() error {
	if m := n.authMethods(); len(m) > 1 {
		return fmt.Errorf("nats: %s and %s are two ways to authenticate to NATS: keep the one the server expects and remove the other", m[0], m[1])
	}
	if n.User != "" && n.Password == "" {
		return fmt.Errorf("nats.user %q has no password: set nats.password (OPENHUMAN_NATS_PASSWORD)", n.User)
	}
	if n.User == "" && n.Password != "" {
		return fmt.Errorf("nats.password is set but nats.user is not: set nats.user (OPENHUMAN_NATS_USER)")
	}
	if (n.TLSCert == "") != (n.TLSKey == "") {
		return fmt.Errorf("nats.tls_cert and nats.tls_key go together: set both (OPENHUMAN_NATS_TLS_CERT, OPENHUMAN_NATS_TLS_KEY) or neither")
	}
	for _, f := range []struct{ key, env, path string }{
		{"nats.nkey", "OPENHUMAN_NATS_NKEY", n.NKey},
		{"nats.creds", "OPENHUMAN_NATS_CREDS", n.Creds},
		{"nats.tls_ca", "OPENHUMAN_NATS_TLS_CA", n.TLSCA},
		{"nats.tls_cert", "OPENHUMAN_NATS_TLS_CERT", n.TLSCert},
		{"nats.tls_key", "OPENHUMAN_NATS_TLS_KEY", n.TLSKey},
	} {
		if f.path == "" {
			continue
		}
		file, err := os.Open(f.path)
		if err != nil {
			return fmt.Errorf("%s %q: %v: set %s (or %s) to a file this process can read", f.key, f.path, unwrapPath(err), f.key, f.env)
		}
		st, err := file.Stat()
		file.Close()
		if err == nil && st.IsDir() {
			return fmt.Errorf("%s %q is a directory: name the file in it", f.key, f.path)
		}
	}
	return nil
}

// unwrapPath drops the path os.Open repeats in its error.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
