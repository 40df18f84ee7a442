package search

import (
	"net/url"
	"sort"
	"strings"
)

// NormalizeURL makes the same page one key: lowercase host without "www.",
// no fragment, no default port, no tracking parameters (utm_*, gclid,
// fbclid), sorted query, no trailing slash on the path.
func NormalizeURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.ToLower(strings.TrimSpace(raw))
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimPrefix(host, "www.")
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || lk == "gclid" || lk == "fbclid" {
			q.Del(k)
		}
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		vs := q[k]
		sort.Strings(vs)
		for j, v := range vs {
			if i > 0 || j > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	out := host + path
	if b.Len() > 0 {
		out += "?" + b.String()
	}
	return out
}

// dedupe keeps the first result of each normalized URL, in order.
func dedupe(results []Result) []Result {
	seen := map[string]bool{}
	out := results[:0:0]
	for _, r := range results {
		key := NormalizeURL(r.URL)
		if r.URL == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r)
	}
	return out
}
