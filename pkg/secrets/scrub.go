// Package secrets finds secrets in text (passwords, tokens, keys, card
// numbers, in the forms people paste them) and removes them, for the
// services that store or show what they were given: memory before it
// stores anything, agents before it parks a call for approval.
package secrets

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Scrub removes secrets from text before anything is stored, indexed or
// embedded, so a secret never reaches the database, the index or a search
// result. Each secret becomes [REDACTED:<kind>]; the key that introduced it
// stays (DB_PASSWORD=[REDACTED:password]), so the fact that there is one is
// still worth remembering. It returns the cleaned text and the kinds
// removed, sorted, one entry per kind.
//
// Detection is a few literal scans rather than one large regular
// expression: Scrub runs on every chunk of every ingested file, and a scan
// for "pass" or "ghp_" costs a fraction of what a regexp pass over the same
// text does (BenchmarkScrub).
func Scrub(text string) (string, []string) {
	var kinds []string
	// A removal can bring parts of the text together that form a secret
	// only now; repeating until nothing is found makes scrubbing twice
	// the same as once. Clean text, the common case, takes one round.
	for range 4 {
		spans := findSecrets(text)
		if len(spans) == 0 {
			break
		}
		var written []string
		text, written = redact(text, spans)
		kinds = MergeKinds(kinds, written)
	}
	sort.Strings(kinds)
	return text, kinds
}

// span is a part of the text that is a secret.
type span struct {
	start, end int
	kind       string
}

// RedactedPrefix begins every marker Scrub writes.
const RedactedPrefix = "[REDACTED"

func marker(kind string) string { return RedactedPrefix + ":" + kind + "]" }

// finder is one scan for a kind of secret: it appends the spans it finds
// in text (lower is text in lowercase ASCII, offsets shared).
type finder func(text, lower string, spans []span) []span

// finders are the scans findSecrets runs, in order, by name: each has its
// rows in the tests, and a scan left out of this table is a format no
// longer found.
var finders = []struct {
	name string
	find finder
}{
	{"pem", findPEM},
	{"url_password", findURLPasswords},
	{"authorization", findAuthorization},
	{"cookie", findCookies},
	{"provider_token", textOnly(findProviderTokens)},
	{"telegram", textOnly(findTelegramTokens)},
	{"webhook", findWebhooks},
	{"twilio", findTwilioTokens},
	{"aws_secret", findAWSSecrets},
	{"assignment", findAssignments},
	{"command_line", findCommandLinePasswords},
	{"seed_phrase", findSeedPhrases},
	{"card", textOnly(findCards)},
}

// textOnly adapts a scan that needs no lowercase copy.
func textOnly(f func(text string, spans []span) []span) finder {
	return func(text, _ string, spans []span) []span { return f(text, spans) }
}

func findSecrets(text string) []span {
	lower := lowerASCII(text)
	var spans []span
	for _, f := range finders {
		spans = f.find(text, lower, spans)
	}
	return spans
}

// redact replaces spans, merging those that overlap, and returns the kinds
// its markers name: a span inside another (a GitHub token given as a
// "token" value) is the outer one's kind only.
func redact(text string, spans []span) (string, []string) {
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	b.Grow(len(text))
	var kinds []string
	at := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
		}
		b.WriteString(text[at:cur.start])
		b.WriteString(marker(cur.kind))
		kinds = MergeKinds(kinds, []string{cur.kind})
		at = cur.end
	}
	b.WriteString(text[at:])
	return b.String(), kinds
}

// lowerASCII lowercases A–Z only, so that offsets in the result are
// offsets in s.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// indexAll calls fn with every offset of sub in s.
func indexAll(s, sub string, fn func(i int)) {
	for at := 0; ; {
		i := strings.Index(s[at:], sub)
		if i < 0 {
			return
		}
		fn(at + i)
		at += i + len(sub)
	}
}

var (
	// A PEM block, or the part of one a chunk boundary left: its start
	// without an end, or base64 lines and its end without a start.
	// PGP's armour says "PRIVATE KEY BLOCK".
	rePEM     = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.\\-]*)`)
	rePEMTail = regexp.MustCompile(`(?:[A-Za-z0-9+/=]{16,}(?:\\n|\r?\n))+-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)
	// An Authorization header's credentials, with or without a scheme.
	// The credentials end where quoting, markup or a bracket begins: a
	// redaction must not swallow the rest of a code span or a sentence.
	reAuthorization = regexp.MustCompile(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(bearer|basic|token|bot|apikey|digest)\s+)?([^\s"'\x60,;<>()\[\]{}]{8,})`)
	reBearer        = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})`)
)

func findPEM(text, lower string, spans []span) []span {
	if !strings.Contains(lower, "private key-----") && !strings.Contains(lower, "private key block-----") {
		return spans
	}
	for _, re := range []*regexp.Regexp{rePEM, rePEMTail} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			spans = append(spans, span{m[0], m[1], "private_key"})
		}
	}
	return spans
}

// findURLPasswords finds scheme://user:password@host and keeps the user,
// which may be empty (redis://:password@host). People paste passwords with
// "@" and "/" unescaped, so the password ends at the last "@" before the
// host, and a "/" ends the authority only once an "@" has been seen; a
// port (host:8080/path) is never a password. The look is bounded: no
// authority is 256 bytes long, and a long line must not be read once per
// "://" in it.
func findURLPasswords(text, lower string, spans []span) []span {
	indexAll(lower, "://", func(i int) {
		if i == 0 || !isAlnum(text[i-1]) {
			return // no scheme
		}
		colon, at := -1, -1
	scan:
		for j := i + 3; j < min(len(text), i+256); j++ {
			c := text[j]
			if c <= ' ' || strings.IndexByte("\"'`<>", c) >= 0 {
				break scan
			}
			switch {
			case colon < 0 && c == ':':
				if isPort(text, j+1) {
					return
				}
				colon = j
			case colon < 0 && strings.IndexByte("@/?#", c) >= 0:
				return // a user without a password, or no user at all
			case colon >= 0 && c == '@':
				at = j
			case at >= 0 && strings.IndexByte("/?#", c) >= 0:
				break scan // the host's path
			}
		}
		if colon >= 0 && at > colon+1 && !strings.HasPrefix(text[colon+1:], RedactedPrefix) {
			spans = append(spans, span{colon + 1, at, "url_password"})
		}
	})
	return spans
}

// isPort reports digits at i that end the authority (host:8080/path),
// rather than begin a password (user:1234@host).
func isPort(text string, i int) bool {
	j := i
	for j < len(text) && isDigit(text[j]) {
		j++
	}
	return j > i && (j == len(text) || text[j] <= ' ' || strings.IndexByte("/?#\"'`<>),;]", text[j]) >= 0)
}

func findAuthorization(text, lower string, spans []span) []span {
	if strings.Contains(lower, "authorization") {
		for _, m := range reAuthorization.FindAllStringSubmatchIndex(text, -1) {
			kind := "authorization"
			if m[2] >= 0 && strings.EqualFold(text[m[2]:m[3]], "bearer") {
				kind = "bearer_token"
			}
			if v := text[m[4]:m[5]]; !strings.HasPrefix(v, RedactedPrefix) && !isPlaceholder(v) {
				spans = append(spans, span{m[4], m[5], kind})
			}
		}
	}
	if strings.Contains(lower, "bearer") {
		for _, m := range reBearer.FindAllStringSubmatchIndex(text, -1) {
			if !isPlaceholder(text[m[2]:m[3]]) {
				spans = append(spans, span{m[2], m[3], "bearer_token"})
			}
		}
	}
	return spans
}

// findCookies finds the values of a Cookie or Set-Cookie header and keeps
// their names: a session cookie opens an account as a password does. Of
// Set-Cookie only the first pair is a cookie; the rest are its attributes
// (Path=/, Expires=…).
func findCookies(text, lower string, spans []span) []span {
	indexAll(lower, "cookie", func(i int) {
		set := strings.HasSuffix(lower[:i], "set-")
		if i > 0 && (isAlnum(text[i-1]) || text[i-1] == '-' && !set) {
			return
		}
		j := i + len("cookie")
		if j < len(text) && isQuote(text[j]) {
			j++ // a header in JSON: "Cookie": "…"
		}
		j = skipBlanks(text, j)
		if j >= len(text) || text[j] != ':' {
			return
		}
		j = skipBlanks(text, j+1)
		if j < len(text) && isQuote(text[j]) {
			j++
		}
		for pairs := 0; j < len(text) && (pairs == 0 || !set); pairs++ {
			name := j
			for j < len(text) && (tokenChar(text[j]) || text[j] == '.') {
				j++
			}
			if j == name || j >= len(text) || text[j] != '=' {
				return
			}
			vs, ve := j+1, j+1
			for ve < len(text) && text[ve] != ';' && text[ve] != '\n' && text[ve] != '\r' && !isQuote(text[ve]) {
				ve++
			}
			for ve > vs && text[ve-1] == ' ' {
				ve--
			}
			if ve > vs && !strings.HasPrefix(text[vs:], RedactedPrefix) {
				spans = append(spans, span{vs, ve, "cookie"})
			}
			j = ve
			if j >= len(text) || text[j] != ';' {
				return
			}
			j = skipBlanks(text, j+1)
		}
	})
	return spans
}

// MergeKinds adds to a the kinds of b it lacks, for a write that scrubs
// several fields and reports their kinds together.
func MergeKinds(a, b []string) []string {
	for _, k := range b {
		if !slices.Contains(a, k) {
			a = append(a, k)
		}
	}
	return a
}
