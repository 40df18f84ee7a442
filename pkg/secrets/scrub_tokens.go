package secrets

import (
	"strconv"
	"strings"
)

// providerToken is a credential format a provider issues: a fixed prefix,
// then at least min characters of its alphabet (exactly min when exact),
// and, when shape is set, a body it accepts.
type providerToken struct {
	prefix string
	min    int
	exact  bool
	chars  func(byte) bool
	kind   string
	shape  func(body string) bool
}

func tokenChar(c byte) bool  { return isAlnum(c) || c == '_' || c == '-' }
func upperDigit(c byte) bool { return 'A' <= c && c <= 'Z' || isDigit(c) }
func lowerHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' }
func dottedChar(c byte) bool { return tokenChar(c) || c == '.' }
func paddedChar(c byte) bool { return tokenChar(c) || c == '=' }

var providerTokens = []providerToken{
	{"sk-", 20, false, tokenChar, "api_key", nil}, // OpenAI (sk-proj-, sk-svcacct-) and Anthropic (sk-ant-)
	{"sk_live_", 16, false, isAlnum, "api_key", nil},
	{"sk_test_", 16, false, isAlnum, "api_key", nil},
	{"rk_live_", 16, false, isAlnum, "api_key", nil},
	{"rk_test_", 16, false, isAlnum, "api_key", nil},
	{"whsec_", 16, false, isAlnum, "api_key", nil},
	{"ghp_", 30, false, isAlnum, "api_key", nil},
	{"gho_", 30, false, isAlnum, "api_key", nil},
	{"ghu_", 30, false, isAlnum, "api_key", nil},
	{"ghs_", 30, false, isAlnum, "api_key", nil},
	{"ghr_", 30, false, isAlnum, "api_key", nil},
	{"github_pat_", 40, false, tokenChar, "api_key", nil},
	{"glpat-", 20, false, tokenChar, "api_key", nil},
	{"xoxa-", 10, false, tokenChar, "api_key", nil},
	{"xoxb-", 10, false, tokenChar, "api_key", nil},
	{"xoxe-", 10, false, tokenChar, "api_key", nil},
	{"xoxp-", 10, false, tokenChar, "api_key", nil},
	{"xoxr-", 10, false, tokenChar, "api_key", nil},
	{"xoxs-", 10, false, tokenChar, "api_key", nil},
	{"xapp-", 10, false, tokenChar, "api_key", nil},
	{"npm_", 36, true, isAlnum, "api_key", nil},
	{"pypi-", 50, false, tokenChar, "api_key", nil},
	{"hf_", 30, false, isAlnum, "api_key", nil},      // Hugging Face
	{"AIza", 35, true, tokenChar, "api_key", nil},    // Google API key
	{"ya29.", 20, false, tokenChar, "api_key", nil},  // Google OAuth access token
	{"GOCSPX-", 20, false, tokenChar, "secret", nil}, // Google OAuth client secret
	{"SG.", 60, false, dottedChar, "api_key", nil},   // SendGrid: SG.<22>.<43>
	{"dop_v1_", 40, false, isAlnum, "api_key", nil},  // DigitalOcean personal,
	{"doo_v1_", 40, false, isAlnum, "api_key", nil},  // OAuth
	{"dor_v1_", 40, false, isAlnum, "api_key", nil},  // and refresh tokens
	{"SK", 32, true, lowerHex, "api_key", nil},       // Twilio API key
	{"AC", 32, true, lowerHex, "api_key", nil},       // and account SID
	{"key-", 32, true, isAlnum, "api_key", nil},      // Mailgun
	{"shpat_", 32, false, isAlnum, "api_key", nil},   // Shopify admin,
	{"shpca_", 32, false, isAlnum, "api_key", nil},   // custom app,
	{"shppa_", 32, false, isAlnum, "api_key", nil},   // private app
	{"shpss_", 32, false, isAlnum, "secret", nil},    // and shared secret
	{"ATATT", 50, false, paddedChar, "api_key", nil}, // Atlassian API token
	{"PMAK-", 40, false, tokenChar, "api_key", nil},  // Postman
	{"AKIA", 16, true, upperDigit, "aws_key", nil},
	{"ASIA", 16, true, upperDigit, "aws_key", nil},
	// HashiCorp Vault's service, batch and recovery tokens (1.10 on),
	// and the service tokens before them: "s." and 24 letters and digits,
	// which a name in code (s.handleIncomingRequests) holds only without
	// a digit or a change of case.
	{"hvs.", 24, false, dottedChar, "token", nil},
	{"hvb.", 24, false, dottedChar, "token", nil},
	{"hvr.", 24, false, dottedChar, "token", nil},
	{"s.", 24, true, isAlnum, "token", mixedAlnum},
}

// mixedAlnum reports letters of both cases and a digit.
func mixedAlnum(v string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(v); i++ {
		upper = upper || isUpper(v[i])
		lower = lower || isLower(v[i])
		digit = digit || isDigit(v[i])
	}
	return upper && lower && digit
}

// tokensByStart holds providerTokens by the first byte of their prefix,
// so a word is compared with the few formats that can start it.
var tokensByStart = func() (t [256][]providerToken) {
	for _, p := range providerTokens {
		t[p.prefix[0]] = append(t[p.prefix[0]], p)
	}
	return t
}()

// findProviderTokens finds known credential formats and JWTs in one pass
// over the starts of words: "task-" does not hold "sk-".
func findProviderTokens(text string, spans []span) []span {
	for i := 0; i < len(text); i++ {
		if tokensByStart[text[i]] == nil && text[i] != 'e' || i > 0 && isAlnum(text[i-1]) {
			continue
		}
		if strings.HasPrefix(text[i:], "eyJ") {
			if end := jwtEnd(text, i); end > 0 {
				spans = append(spans, span{i, end, "jwt"})
			}
			continue
		}
		for _, p := range tokensByStart[text[i]] {
			if !strings.HasPrefix(text[i:], p.prefix) {
				continue
			}
			end := i + len(p.prefix)
			for end < len(text) && p.chars(text[end]) {
				end++
			}
			for end > i+len(p.prefix) && text[end-1] == '.' {
				end-- // a dotted token ending a sentence
			}
			if n := end - i - len(p.prefix); n >= p.min && (!p.exact || n == p.min) && (p.shape == nil || p.shape(text[i+len(p.prefix):end])) {
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

// findTelegramTokens finds bot tokens: the bot's 8–10 digit id, a colon
// and 35 characters that start with "AA" (34 in Telegram's own example).
func findTelegramTokens(text string, spans []span) []span {
	indexAll(text, ":AA", func(i int) {
		start := i
		for start > 0 && i-start < 10 && isDigit(text[start-1]) {
			start--
		}
		end := i + 1
		for end < len(text) && tokenChar(text[end]) {
			end++
		}
		// What precedes the id does not matter: glued to a word, the
		// token is as good as alone.
		if i-start >= 8 && (end-i-1 == 35 || end-i-1 == 34) {
			spans = append(spans, span{start, end, "api_key"})
		}
	})
	return spans
}

// webhookPaths are the URLs whose path is the credential: whoever holds
// one can post into the channel.
var webhookPaths = []struct{ host, path string }{
	{"hooks.slack.com", "/services/"},
	{"discord.com", "/api/webhooks/"},
	{"discordapp.com", "/api/webhooks/"},
}

// findWebhooks finds the path of a Slack or Discord webhook URL; the host
// and the route stay, so the note still says where it posted.
func findWebhooks(text, lower string, spans []span) []span {
	for _, w := range webhookPaths {
		indexAll(lower, w.host+w.path, func(i int) {
			start := i + len(w.host) + len(w.path)
			end := start
			for end < len(text) && (tokenChar(text[end]) || text[end] == '/') {
				end++
			}
			if end-start >= 20 {
				spans = append(spans, span{start, end, "webhook"})
			}
		})
	}
	return spans
}

// findTwilioTokens finds auth tokens, 32 lowercase hex characters, in a
// text that names Twilio: no prefix sets them apart from an MD5 digest, so
// the mention of the provider must.
func findTwilioTokens(text, lower string, spans []span) []span {
	if !strings.Contains(lower, "twilio") {
		return spans
	}
	for i := 0; i < len(text); {
		if !isAlnum(text[i]) {
			i++
			continue
		}
		start, hex := i, true
		for ; i < len(text) && isAlnum(text[i]); i++ {
			hex = hex && lowerHex(text[i])
		}
		if hex && i-start == 32 {
			spans = append(spans, span{start, i, "api_key"})
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
// of three or more split by one kind of separator, with a card network's
// prefix and length, passing the Luhn check, and not part of a path, a
// version or an id (after /, @, +, ~, _, #). Luhn alone passes one long
// number in ten: timestamps, ids in URLs and build numbers.
func findCards(text string, spans []span) []span {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) || i > 0 && (isAlnum(text[i-1]) || strings.IndexByte(".,/@+~_#-", text[i-1]) >= 0) {
			continue
		}
		end, digits, ok := cardRun(text, i)
		if ok && digits >= 13 && digits <= 19 && cardNetwork(text[i:end], digits) && luhn(text[i:end]) {
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

// cardNetwork reports whether the number s, of n digits, has the prefix
// and length of a card network: Visa, Mastercard, American Express,
// Discover, JCB, Diners Club or UnionPay.
func cardNetwork(s string, n int) bool {
	var d []byte
	for i := 0; i < len(s) && len(d) < 6; i++ {
		if isDigit(s[i]) {
			d = append(d, s[i])
		}
	}
	p := func(k int) int { v, _ := strconv.Atoi(string(d[:k])); return v }
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19
	case p(2) >= 51 && p(2) <= 55, p(4) >= 2221 && p(4) <= 2720:
		return n == 16
	case p(2) == 34 || p(2) == 37:
		return n == 15
	case p(4) == 6011, p(3) >= 644 && p(3) <= 649, p(2) == 65, p(2) == 62, p(4) >= 3528 && p(4) <= 3589:
		return n >= 16
	case p(2) == 36 || p(2) == 38 || p(3) >= 300 && p(3) <= 305:
		return n == 14
	}
	return false
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
