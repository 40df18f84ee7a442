package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// maxBodyBytesInFlight bounds http.max_body_bytes_in_flight: past a few
// GiB of bodies the process is no longer protected by it.
const maxBodyBytesInFlight = 16 << 30

// validateEdge checks the settings of the HTTP edge's limits.
func (h HTTP) validateEdge() error {
	for _, p := range h.TrustedProxies {
		if _, err := ParseTrustedProxy(p); err != nil {
			return fmt.Errorf("http.trusted_proxies %q: %v; "+
				"list the proxy in front of serve by address or CIDR range, such as 10.0.0.5, 172.18.0.0/16 or ::1", p, err)
		}
	}
	if n := h.MaxBodyBytesInFlight; n < MaxRequestBodyBytes || n > maxBodyBytesInFlight {
		return fmt.Errorf("http.max_body_bytes_in_flight %d: use %d (4 MiB, one body of the largest kind) to %d (16 GiB); default 67108864 (64 MiB)",
			n, MaxRequestBodyBytes, maxBodyBytesInFlight)
	}
	return nil
}

// ParseTrustedProxy reads one entry of http.trusted_proxies: an address
// (a range of one) or a CIDR range. An address with a zone is refused: a
// forwarded-for check compares addresses without one.
func ParseTrustedProxy(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not a CIDR range")
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("not an IP address")
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}
