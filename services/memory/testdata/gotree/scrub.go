package memory

import (
	"regexp"
	"sort"
	"strings"
)

// secretPatterns find credentials people paste by accident. Each match is
// replaced by [REDACTED:<kind>] before anything is stored or indexed, so a
// secret never reaches the database, the index or a search result.
var secretPatterns = []struct {
	kind string
	re   *regexp.Regexp
	keep int // leading submatch kept (the "password=" part), 0 for none
	// hints are substrings (lowercased) without which the pattern cannot
	// match: a cheap test that spares most texts the regular expression.
	hints []string
}{
	{"private_key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), 0, []string{"private key"}},
	{"url_password", regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(@)`), 1, []string{"://"}},
	{"bearer_token", regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`), 1, []string{"bearer"}},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), 0, []string{"eyj"}},
	{"api_key", regexp.MustCompile(`\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_live_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,})\b`), 0,
		[]string{"sk-", "sk_", "rk_live_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "aiza", "akia", "glpat-"}},
	{"password", regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|aws_secret_access_key)\b["']?\s*[:=]\s*["']?)[^\s"',;]{4,}`), 1,
		[]string{"password", "passwd", "pwd", "secret", "key", "token"}},
}

// Scrub removes secrets from text. It returns the cleaned text and the kinds
// of secret it removed, sorted, one entry per kind.
func Scrub(text string) (string, []string) {
	found := map[string]bool{}
	lower := strings.ToLower(text)
	for _, p := range secretPatterns {
		if !containsAny(lower, p.hints) {
			continue
		}
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
	if len(found) == 0 {
		return text, nil
	}
	kinds := make([]string, 0, len(found))
	for k := range found {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return text, kinds
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
