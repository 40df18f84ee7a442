package bus

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

// Connect dials the NATS server of cfg with its credentials and TLS. Once
// connected it keeps reconnecting forever: a service that loses NATS must
// come back by itself when NATS does. A first connection that fails is an
// error at once, saying what to fix: retrying credentials the server has
// refused would only hide the mistake. extra options come last (a custom
// inbox prefix, for a user whose permissions name one).
func Connect(cfg config.NATS, name string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, error) {
	auth, err := authOptions(cfg)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.URL, append(append(Options(name, log), auth...), extra...)...)
	if err != nil {
		return nil, connectError(cfg, err)
	}
	warnOpen(cfg, nc, log)
	return nc, nil
}

// warnOpen warns when a binary reached a NATS server other hosts can reach
// without credentials: signed call contexts keep anyone from posing as a
// caller, but on such a server any process may read every request and
// reply, answer in a service's place, or write to memory's stream.
func warnOpen(cfg config.NATS, nc *nats.Conn, log *slog.Logger) {
	if log == nil || cfg.AuthMethod() != "" || cfg.URL == "" {
		return
	}
	u, err := url.Parse(nc.ConnectedUrl())
	if err != nil {
		return
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
		return
	}
	log.Warn("connected to NATS without credentials on an address other hosts reach: any process that reaches it can read every call and answer, pose as a service or write to memory's stream; give each binary its own user (deploy/nats/auth.conf, deploy/README.md)",
		"nats", secrets.RedactURL(nc.ConnectedUrl()))
}

// Options are the connection options every openhuman connection uses.
func Options(name string, log *slog.Logger) []nats.Option {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("reconnected to NATS", "url", secrets.RedactURL(nc.ConnectedUrl()))
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			// After a reconnect the server refused twice (credentials
			// revoked or rotated), nats.go gives up: say so rather than
			// leave a process that looks alive and serves nothing.
			if err := nc.LastError(); authError(err) {
				log.Error("NATS refused the credentials again and the connection is closed for good: restart with valid credentials", "err", err)
			}
		}),
		nats.ErrorHandler(func(nc *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			refusePending(nc, err)
			log.Error("NATS error", "subject", subject, "err", err)
		}),
	}
}

// authOptions turns cfg's credentials and TLS settings into nats.go
// options. config.Load has made sure at most one method is set and every
// file exists.
func authOptions(cfg config.NATS) ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case cfg.User != "":
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	case cfg.Token != "":
		opts = append(opts, nats.Token(cfg.Token))
	case cfg.NKey != "":
		opt, err := nats.NkeyOptionFromSeed(cfg.NKey)
		if err != nil {
			return nil, fmt.Errorf("nats.nkey %s: %s: the file must hold a user nkey seed (SU...), such as `nsc generate nkey --user` writes", cfg.NKey, strings.TrimPrefix(err.Error(), "nats: "))
		}
		opts = append(opts, opt)
	case cfg.Creds != "":
		opts = append(opts, nats.UserCredentials(cfg.Creds))
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	if cfg.TLSCert != "" {
		opts = append(opts, nats.ClientCert(cfg.TLSCert, cfg.TLSKey))
	}
	return opts, nil
}

// connectError says why the first connection failed and which setting to
// look at. The URL in it carries no credentials.
func connectError(cfg config.NATS, err error) error {
	at := "NATS at " + secrets.RedactURL(cfg.URL)
	reason := strings.TrimPrefix(err.Error(), "nats: ")
	var unknownCA x509.UnknownAuthorityError
	switch {
	case authError(err):
		if cfg.AuthMethod() == "" {
			return fmt.Errorf("%s requires credentials (%s): set nats.user and nats.password, nats.token, nats.nkey or nats.creds", at, reason)
		}
		return fmt.Errorf("%s refused the credentials: %s; check %s", at, strings.ToLower(reason), cfg.AuthMethod())
	case errors.As(err, &unknownCA):
		return fmt.Errorf("%s: TLS: %s; set nats.tls_ca (OPENHUMAN_NATS_TLS_CA) to the CA that signed the server's certificate", at, reason)
	case errors.Is(err, nats.ErrSecureConnWanted):
		return fmt.Errorf("%s: %s: the server does not offer TLS; use a nats:// URL without nats.tls_ca, or enable TLS on the server", at, reason)
	case strings.HasPrefix(reason, "tls") || strings.Contains(reason, "tls: ") || strings.Contains(reason, "certificate"):
		// A server that wants a client certificate and gets none just
		// closes the connection: name the settings rather than the symptom.
		return fmt.Errorf("%s: TLS: %s; a server that requires client certificates needs nats.tls_cert and nats.tls_key, signed by a CA it trusts", at, reason)
	}
	return fmt.Errorf("connecting to %s: %s", at, reason)
}

func authError(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) ||
		errors.Is(err, nats.ErrAuthRevoked) || errors.Is(err, nats.ErrAccountAuthExpired)
}
