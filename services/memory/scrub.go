package memory

import (
	"regexp"
	"sort"
)

// secretPatterns find credentials people paste by accident. Each match is
// replaced by [REDACTED:<kind>] before anything is stored or indexed, so a
// secret never reaches the database, the index or a search result.
var secretPatterns = []struct {
	kind string
	re   *regexp.Regexp
	keep int // leading submatch kept (the "password=" part), 0 for none
}{
	{"private_key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), 0},
	{"url_password", regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(@)`), 1},
	{"bearer_token", regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`), 1},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), 0},
	{"api_key", regexp.MustCompile(`\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_live_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,})\b`), 0},
	{"password", regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|aws_secret_access_key)\b["']?\s*[:=]\s*["']?)[^\s"',;]{4,}`), 1},
}

// Scrub removes secrets from text. It returns the cleaned text and the kinds
// of secret it removed, sorted, one entry per kind.
func Scrub(text string) (string, []string) {
	found := map[string]bool{}
	for _, p := range secretPatterns {
		text = p.re.ReplaceAllStringFunc(text, func(m string) string {
			found[p.kind] = true
			prefix := ""
			if p.keep > 0 {
				sub := p.re.FindStringSubmatch(m)
				prefix = sub[p.keep]
				if p.kind == "url_password" {
					return prefix + "[REDACTED:" + p.kind + "]" + sub[2]
				}
			}
			return prefix + "[REDACTED:" + p.kind + "]"
		})
	}
	kinds := make([]string, 0, len(found))
	for k := range found {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return text, kinds
}
