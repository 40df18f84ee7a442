package oauth

import (
	"net/netip"
	"strings"
)

// A redirect URI ends up in headers: Location when the person is sent
// back, and its origin in the consent page's Content-Security-Policy
// (form-action), where a host holding ";" would start a directive of the
// client's choosing. Go's url.Parse lets a host hold RFC 3986's
// sub-delimiters (;,'()*+!$&=) and a path hold spaces and quotes, so the
// registration check narrows both to what every header's grammar takes.

// uriChars reports whether s holds only RFC 3986 characters: unreserved,
// reserved and percent.
func uriChars(s string) bool {
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			return false
		}
	}
	return true
}

// hostName reports whether h (a URL's Hostname: no port, no brackets) is
// a DNS name of letters, digits and hyphens between dots, or an IP
// address without a zone: what a CSP host-source and every browser take.
func hostName(h string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == ""
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := range len(label) {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
