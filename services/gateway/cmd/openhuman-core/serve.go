package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway/embedded"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpapi"
)

// listen checks that addr may be listened on with the tokens configured,
// and listens there; false when it cannot, having said why.
func (m *Main) listen(addr string) (net.Listener, bool) {
	if err := httpapi.CheckListen(addr, m.cfg.Auth.Tokens); err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return nil, false
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		hint := "another address: --addr HOST:PORT or OPENHUMAN_HTTP_ADDR"
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "something already listens there: stop it, or choose " + hint
		}
		fmt.Fprintf(m.Stderr, "openhuman-core: cannot listen on %s: %v (%s)\n", addr, err, hint)
		return nil, false
	}
	return ln, true
}

// servingURL is the base URL serve announces for ln, asked for as addr.
func servingURL(ln net.Listener, addr string) string {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsUnspecified() {
		return "http://" + ln.Addr().String()
	}
	// Every address of the host: named as asked (0.0.0.0), not as the
	// dual-stack socket reports itself ([::]).
	host, _, _ := net.SplitHostPort(addr)
	if host == "" {
		host = "0.0.0.0"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// shutDownServe lets the requests being handled finish within grace, then
// gives the services what is left of it.
func shutDownServe(srv *http.Server, sys *embedded.System, grace time.Duration, log *slog.Logger) {
	log.Info("shutting down: no new requests; those being handled may finish", "grace", grace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still running after the shutdown grace period were cut off: raise OPENHUMAN_SHUTDOWN_GRACE_SECONDS, "+
			"and the orchestrator's stop timeout with it, if they must finish", "grace", grace, "err", err)
	}
	// The services get what is left of the same grace period.
	if err := sys.Shutdown(shutdownCtx); err != nil {
		log.Warn("stopping the services", "err", err)
	}
}
