package clientaddr

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
)

type peerKey struct{}

// PeerFromContext is the address of the connection a request came over,
// when Middleware replaced RemoteAddr with the client it forwarded for;
// ok is false when the two are the same.
func PeerFromContext(ctx context.Context) (string, bool) {
	p, ok := ctx.Value(peerKey{}).(string)
	return p, ok
}

// Middleware puts the client address in every request's RemoteAddr (with
// port 0 when a proxy forwarded for it: the client's port is not known),
// so that everything after it, limits, logs and the OAuth server alike,
// reads the one address; the connection's stays in the context
// (PeerFromContext). With no trusted proxy, RemoteAddr is left as it is.
// The first X-Forwarded-For from a connection that is not trusted is
// logged once: behind a proxy that is not listed, every client shares its
// address.
func Middleware(t Trusted, log *slog.Logger) func(http.Handler) http.Handler {
	var once sync.Once
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			peer, ok := Parse(r.RemoteAddr)
			fwd := r.Header.Values("X-Forwarded-For")
			if !ok || len(fwd) == 0 {
				next.ServeHTTP(w, r)
				return
			}
			if !t.contains(peer) {
				once.Do(func() {
					log.Warn("a request came with X-Forwarded-For from an address http.trusted_proxies does not list: it counts as that address. "+
						"Behind a reverse proxy, list it in http.trusted_proxies (OPENHUMAN_HTTP_TRUSTED_PROXIES), or every client shares its limits",
						"peer", peer.String())
				})
				next.ServeHTTP(w, r)
				return
			}
			client := t.Resolve(peer, fwd)
			if client == peer {
				next.ServeHTTP(w, r)
				return
			}
			r2 := r.WithContext(context.WithValue(r.Context(), peerKey{}, r.RemoteAddr))
			r2.RemoteAddr = netip.AddrPortFrom(client, 0).String()
			next.ServeHTTP(w, r2)
		})
	}
}
