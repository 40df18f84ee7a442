package memory

import "strings"

// providerToken is a credential format a provider issues: a fixed prefix,
// then at least min characters of its alphabet (exactly min when exact).
type providerToken struct {
	prefix string
	min    int
	exact  bool
	chars  func(byte) bool
	kind   string
}

func tokenChar(c byte) bool  { return isAlnum(c) || c == '_' || c == '-' }
func upperDigit(c byte) bool { return 'A' <= c && c <= 'Z' || isDigit(c) }

var providerTokens = []providerToken{
	{"sk-", 20, false, tokenChar, "api_key"}, // OpenAI (sk-proj-, sk-svcacct-) and Anthropic (sk-ant-)
	{"sk_live_", 16, false, isAlnum, "api_key"},
	{"sk_test_", 16, false, isAlnum, "api_key"},
	{"rk_live_", 16, false, isAlnum, "api_key"},
	{"rk_test_", 16, false, isAlnum, "api_key"},
	{"whsec_", 16, false, isAlnum, "api_key"},
	{"ghp_", 30, false, isAlnum, "api_key"},
	{"gho_", 30, false, isAlnum, "api_key"},
	{"ghu_", 30, false, isAlnum, "api_key"},
	{"ghs_", 30, false, isAlnum, "api_key"},
	{"ghr_", 30, false, isAlnum, "api_key"},
	{"github_pat_", 40, false, tokenChar, "api_key"},
	{"glpat-", 20, false, tokenChar, "api_key"},
	{"xoxa-", 10, false, tokenChar, "api_key"},
	{"xoxb-", 10, false, tokenChar, "api_key"},
	{"xoxe-", 10, false, tokenChar, "api_key"},
	{"xoxp-", 10, false, tokenChar, "api_key"},
	{"xoxr-", 10, false, tokenChar, "api_key"},
	{"xoxs-", 10, false, tokenChar, "api_key"},
	{"xapp-", 10, false, tokenChar, "api_key"},
	{"npm_", 36, true, isAlnum, "api_key"},
	{"AIza", 35, true, tokenChar, "api_key"},
	{"AKIA", 16, true, upperDigit, "aws_key"},
	{"ASIA", 16, true, upperDigit, "aws_key"},
}

// tokenStarts are the first bytes of providerTokens' prefixes and of a JWT.
var tokenStarts = func() (t [256]bool) {
	for _, p := range providerTokens {
		t[p.prefix[0]] = true
	}
	t['e'] = true
	return t
}()

// findProviderTokens finds known credential formats and JWTs in one pass
// over the starts of words: "task-" does not hold "sk-".
func findProviderTokens(text string, spans []span) []span {
	for i := 0; i < len(text); i++ {
		if !tokenStarts[text[i]] || i > 0 && isAlnum(text[i-1]) {
			continue
		}
		if strings.HasPrefix(text[i:], "eyJ") {
			if end := jwtEnd(text, i); end > 0 {
				spans = append(spans, span{i, end, "jwt"})
			}
			continue
		}
		for _, p := range providerTokens {
			if !strings.HasPrefix(text[i:], p.prefix) {
				continue
			}
			end := i + len(p.prefix)
			for end < len(text) && p.chars(text[end]) {
				end++
			}
			if n := end - i - len(p.prefix); n >= p.min && (!p.exact || n == p.min) {
				spans = append(spans, span{i, end, p.kind})
			}
			// What was read is one word; no token starts inside it that
			// this one would not have covered ("sk-sk-sk-…" is read once).
			i = end - 1
			break
		}
	}
	return spans
}

// jwtEnd returns where the JWT starting at i ends, or 0: three base64url
// segments of at least 8 characters, the first two JSON objects ("eyJ").
func jwtEnd(text string, i int) int {
	at := i
	for seg := range 3 {
		if seg < 2 && !strings.HasPrefix(text[at:], "eyJ") {
			return 0
		}
		start := at
		for at < len(text) && tokenChar(text[at]) {
			at++
		}
		if at-start < 8 {
			return 0
		}
		if seg < 2 {
			if at >= len(text) || text[at] != '.' {
				return 0
			}
			at++
		}
	}
	return at
}

// findAWSSecrets finds secret access keys that no key names: 40 characters
// of base64 in a text that holds an access key id or says "aws". Mixed
// case is required, which a hex digest (a commit) never has.
func findAWSSecrets(text, lower string, spans []span) []span {
	if !strings.Contains(lower, "aws") && !strings.Contains(text, "AKIA") && !strings.Contains(text, "ASIA") {
		return spans
	}
	b64 := func(c byte) bool { return isAlnum(c) || c == '/' || c == '+' }
	for i := 0; i < len(text); {
		if !b64(text[i]) {
			i++
			continue
		}
		start := i
		var upper, low, other bool
		for ; i < len(text) && b64(text[i]); i++ {
			c := text[i]
			upper = upper || 'A' <= c && c <= 'Z'
			low = low || 'a' <= c && c <= 'z'
			other = other || !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z')
		}
		if i-start == 40 && upper && low && other && (i == len(text) || text[i] != '=') {
			spans = append(spans, span{start, i, "aws_key"})
		}
	}
	return spans
}

// findCards finds payment card numbers: 13–19 digits, whole or in groups
// of three or more split by one kind of separator, starting with 2–6 (the
// networks' ranges; millisecond timestamps start with 1) and passing the
// Luhn check, which order and phone numbers fail nine times in ten.
func findCards(text string, spans []span) []span {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) || i > 0 && (isAlnum(text[i-1]) || text[i-1] == '.' || text[i-1] == ',') {
			continue
		}
		end, digits, ok := cardRun(text, i)
		if ok && digits >= 13 && digits <= 19 && text[i] >= '2' && text[i] <= '6' && luhn(text[i:end]) {
			spans = append(spans, span{i, end, "card_number"})
		}
		i = end
	}
	return spans
}

// cardRun reads digit groups from i and reports where they end, how many
// digits they hold, and whether they are shaped like a card number.
func cardRun(text string, i int) (end, digits int, ok bool) {
	var sep byte
	ok = true
	group := 0
	for end = i; end < len(text); end++ {
		c := text[end]
		if isDigit(c) {
			digits++
			group++
			continue
		}
		if (c == ' ' || c == '-') && end+1 < len(text) && isDigit(text[end+1]) && (sep == 0 || sep == c) {
			sep = c
			ok = ok && group >= 3
			group = 0
			continue
		}
		break
	}
	if end < len(text) && (isAlnum(text[end]) || text[end] == '.' && end+1 < len(text) && isDigit(text[end+1])) {
		ok = false
	}
	return end, digits, ok && (sep == 0 || group >= 3)
}

func luhn(s string) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		d := int(s[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
