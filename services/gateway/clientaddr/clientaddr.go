// Package clientaddr finds the address of the client a request comes from,
// the one every limit keyed by a client (failed sign-ins, registrations,
// MCP sessions) and every log line naming one must count.
//
// It is the connection's address, unless the connection comes from a
// proxy the configuration trusts (http.trusted_proxies): then it is the
// right-most address of X-Forwarded-For that is not itself a trusted
// proxy. Each proxy appends the address it was connected from, so the
// right-most entries are written by proxies we trust and everything left
// of the first one we do not trust was written by the client. The header
// from a connection that is no trusted proxy is ignored: anyone can write
// it. RFC 7239's Forwarded is not read; every common proxy sets
// X-Forwarded-For.
//
// net/netip does all the parsing there is. The libraries that do this
// (chi's middleware.RealIP among them) believe the header from anyone or
// take its left-most address, which the client writes; the rule above is
// a dozen lines.
package clientaddr

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// Trusted is the proxies whose forwarding headers are believed. The zero
// value trusts none.
type Trusted struct {
	prefixes []netip.Prefix
}

// ParseTrusted reads http.trusted_proxies (config.Load has checked it).
func ParseTrusted(list []string) (Trusted, error) {
	var t Trusted
	for _, s := range list {
		p, err := config.ParseTrustedProxy(s)
		if err != nil {
			return Trusted{}, fmt.Errorf("trusted proxy %q: %w", s, err)
		}
		t.prefixes = append(t.prefixes, p)
	}
	return t, nil
}

// Empty reports whether no proxy is trusted.
func (t Trusted) Empty() bool { return len(t.prefixes) == 0 }

// contains reports whether a is a trusted proxy.
func (t Trusted) contains(a netip.Addr) bool {
	for _, p := range t.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Resolve is the client address of a request that came over a connection
// from peer carrying the given X-Forwarded-For header lines.
func (t Trusted) Resolve(peer netip.Addr, forwardedFor []string) netip.Addr {
	if !t.contains(peer) || len(forwardedFor) == 0 {
		return peer
	}
	hops := strings.Split(strings.Join(forwardedFor, ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			// Not an address: whoever wrote it is not to be believed,
			// and the last trusted hop is the one that passed it on.
			return client
		}
		client = a
		if !t.contains(a) {
			return a
		}
	}
	return client // every hop a proxy of ours: the left-most is the client
}

// parseHop reads one X-Forwarded-For entry: an address, perhaps with a
// port, an IPv6 one perhaps in brackets.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return normal(ap.Addr()), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return normal(a), true
}

// normal drops what makes one host's address compare unequal to itself:
// an IPv4 address mapped into IPv6, and a zone.
func normal(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }

// Parse reads a request's RemoteAddr ("host:port", or a bare address);
// ok is false when it holds no address (a test's made-up request, a unix
// socket).
func Parse(remoteAddr string) (netip.Addr, bool) {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return normal(a), true
}

// loopback is the key of every loopback address: all of 127.0.0.0/8 and
// ::1 is this host, and any local process may connect from any of them.
const loopback = "loopback"

// Key is what a limit counts a request against: its client address, with
// every loopback address one key (see loopback) and an IPv6 address its
// /64, the block one host is given and may pick any address of. A
// RemoteAddr that holds no address is its own key.
func Key(remoteAddr string) string {
	a, ok := Parse(remoteAddr)
	switch {
	case !ok:
		return remoteAddr
	case a.IsLoopback():
		return loopback
	case a.Is6():
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}
