package clientaddr

import (
	"net/netip"
	"testing"
)

func TestResolve(t *testing.T) {
	trusted, err := ParseTrusted([]string{"10.0.0.0/8", "::1", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no header", "10.0.0.5", nil, "10.0.0.5"},
		{"a peer not trusted is its own client", "203.0.113.9", []string{"198.51.100.1"}, "203.0.113.9"},
		{"a trusted proxy's client", "10.0.0.5", []string{"198.51.100.1"}, "198.51.100.1"},
		{"the client's own entries are passed over", "10.0.0.5", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"a chain of trusted proxies", "10.0.0.5", []string{"198.51.100.1, 10.9.9.9", "10.1.1.1"}, "198.51.100.1"},
		{"every hop trusted", "10.0.0.5", []string{"10.1.1.1, 10.2.2.2"}, "10.1.1.1"},
		{"garbage stops at the last trusted hop", "10.0.0.5", []string{"198.51.100.1, not-an-address, 10.2.2.2"}, "10.2.2.2"},
		{"ports and brackets", "::1", []string{"[2001:db8::7]:4711"}, "2001:db8::7"},
		{"a mapped address is IPv4", "::ffff:127.0.0.1", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peer, _ := Parse(tc.peer)
			if got := trusted.Resolve(peer, tc.xff); got != netip.MustParseAddr(tc.want) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if got := (Trusted{}).Resolve(netip.MustParseAddr("10.0.0.5"), []string{"198.51.100.1"}); got.String() != "10.0.0.5" {
		t.Errorf("trusting none, the header moved the client to %s", got)
	}
}

func TestKey(t *testing.T) {
	for addr, want := range map[string]string{
		"198.51.100.7:5000":         "198.51.100.7",
		"127.0.0.1:1":               "loopback",
		"127.0.0.2:1":               "loopback",
		"[::1]:1":                   "loopback",
		"[2001:db8:1:2:3::9]:1":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:80": "2001:db8:1:2::/64",
		"[::ffff:198.51.100.7]:1":   "198.51.100.7",
		"pipe":                      "pipe",
	} {
		if got := Key(addr); got != want {
			t.Errorf("Key(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestParseTrusted(t *testing.T) {
	if _, err := ParseTrusted([]string{"10.0.0.0/8", "proxy"}); err == nil {
		t.Error("a host name was taken for a trusted proxy")
	}
}
