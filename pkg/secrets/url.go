package secrets

import (
	"net/url"
	"strings"
)

// RedactURL is a URL (a NATS or Redis server, or a comma-separated list of
// them) without any user, password or token in it, for logs and error
// messages: every binary prints the servers it reaches this way.
func RedactURL(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		u, err := url.Parse(p)
		if err != nil {
			// Unparsable: cut what could be userinfo rather than echo it.
			if at := strings.LastIndex(p, "@"); at >= 0 {
				scheme, _, found := strings.Cut(p, "://")
				p = p[at+1:]
				if found {
					p = scheme + "://" + p
				}
			}
			parts[i] = p
			continue
		}
		u.User = nil
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
