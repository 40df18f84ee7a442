package secrets

import "strings"

// A key names a secret when its last word does (DB_PASSWORD, apiKey,
// client-secret, spring.datasource.password), not when the word only
// qualifies another (password_policy, token_url, max_tokens). The words
// are looked for in the lowercased text; each hit is grown to the whole
// key around it. "pw" finds pwd as well; "pass" finds the German passwort.
var secretKeyHints = []string{"pass", "pw", "secret", "token", "key", "auth", "pin", "dsn", "kennwort"}

// keyKind says what a key's value is, from its last two words; "" when it
// is not a secret.
func keyKind(last, prev string) string {
	switch last {
	case "password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "passwort", "kennwort":
		return "password"
	case "pin", "pincode":
		return "pin"
	case "token":
		return "token"
	case "secret", "clientsecret":
		return "secret"
	case "auth":
		return "credential"
	case "apikey", "accesskey", "secretkey":
		return "api_key"
	case "privatekey":
		return "private_key"
	case "dsn":
		return "dsn" // only its user:password@ part is a secret
	case "base":
		if prev == "key" {
			return "secret" // Rails' SECRET_KEY_BASE, and any *_KEY_BASE
		}
	case "key":
		switch prev {
		case "api", "access", "secret", "signing", "encryption", "master", "license", "auth", "app", "application", "account":
			return "api_key"
		case "private":
			return "private_key"
		}
	}
	// A word run together (dbpassword, accesstoken) ends with the secret
	// word; only long ones count, or "bypass" and "compass" would.
	for _, suffix := range []string{"password", "passwd", "passphrase", "token", "secret", "apikey"} {
		if len(last) > len(suffix) && strings.HasSuffix(last, suffix) {
			return keyKind(suffix, "")
		}
	}
	return ""
}

func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// keyWords splits a key into words at _, -, . and case changes
// (dbPassword, APIKey) and returns the last two, lowercased.
func keyWords(key string) (last, prev string) {
	start := 0
	for i := 0; i <= len(key); i++ {
		switch {
		case i == len(key) || key[i] == '_' || key[i] == '-' || key[i] == '.':
			if i > start {
				prev, last = last, key[start:i]
			}
			start = i + 1
		case i > start && isUpper(key[i]) && (isLower(key[i-1]) || isDigit(key[i-1]) ||
			i+1 < len(key) && isUpper(key[i-1]) && isLower(key[i+1])):
			prev, last = last, key[start:i]
			start = i
		}
	}
	return lowerASCII(last), lowerASCII(prev)
}

// keyEndsWith reports whether key, read without its separators and in
// lowercase, ends with suffix: private_key_id, privateKeyId and
// private-key-id all end with "privatekeyid".
func keyEndsWith(key, suffix string) bool {
	j := len(suffix)
	for i := len(key) - 1; i >= 0 && j > 0; i-- {
		c := key[i]
		if c == '_' || c == '-' || c == '.' {
			continue
		}
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != suffix[j-1] {
			return false
		}
		j--
	}
	return j == 0
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// findAssignments finds values given to secret keys: KEY=value, export
// KEY="value", key: value (YAML), "key": "value" (JSON), key := "value",
// --key value and --key=value, and prose ("my password is hunter2", "the
// password for the NAS is 7391-ALPHA", "pin is 1234").
func findAssignments(text, lower string, spans []span) []span {
	// A key holding two hints (SECRET_TOKEN) is read twice; its spans
	// are the same and merge.
	for _, hint := range secretKeyHints {
		done := 0 // end of the last key read: a hint inside it is the same key
		indexAll(lower, hint, func(i int) {
			if i < done {
				return
			}
			ks, ke := i, i+len(hint)
			for ks > 0 && isKeyByte(text[ks-1]) {
				ks--
			}
			for ke < len(text) && isKeyByte(text[ke]) {
				ke++
			}
			done = ke
			if sp, ok := assignment(text, ks, ke); ok {
				spans = append(spans, sp)
			}
		})
	}
	return spans
}

// wordFollows reports whether a word (a letter) comes after i on the same
// line before any punctuation that ends a clause.
func wordFollows(text string, i int) bool {
	i = skipBlanks(text, i)
	return i < len(text) && (isLower(text[i]) || isUpper(text[i]))
}

// checkedValue is the span of text[vs:ve] when it holds a secret.
func checkedValue(text string, vs, ve int, kind string, mode int, quoted bool) (span, bool) {
	if vs == ve || !secretValue(text[vs:ve], kind, mode, quoted) {
		return span{}, false
	}
	return span{vs, ve, kind}, true
}

// value reads the value at i: quoted (to the closing quote on its line,
// escapes allowed, \" inside JSON strings too) or a bare token.
func value(text string, i int) (start, end int, quoted bool) {
	if i >= len(text) {
		return i, i, false
	}
	q := ""
	if isQuote(text[i]) {
		q = text[i : i+1]
	} else if text[i] == '\\' && i+1 < len(text) && isQuote(text[i+1]) {
		q = text[i : i+2]
	}
	if q != "" {
		start = i + len(q)
		for j := start; j < len(text) && text[j] != '\n'; j++ {
			if strings.HasPrefix(text[j:], q) && (len(q) == 2 || text[j-1] != '\\') {
				return start, j, true
			}
		}
		i = start
	}
	end = i
	for end < len(text) && !strings.ContainsRune(" \t\r\n\"'`,;<>", rune(text[end])) && !nextParam(text, end) {
		end++
	}
	// Sentence punctuation after a value is not part of it.
	for end > i && strings.IndexByte(".:!?)]}", text[end-1]) >= 0 {
		end--
	}
	return i, end, false
}

// nextParam reports "&name=" at i: the next parameter of a query string,
// where an & inside a password would not be followed by a name and "=".
func nextParam(text string, i int) bool {
	if text[i] != '&' {
		return false
	}
	j := i + 1
	for j < len(text) && (isAlnum(text[j]) || text[j] == '_' || text[j] == '.' || text[j] == '-') {
		j++
	}
	return j > i+1 && j < len(text) && text[j] == '='
}

// lastOnLine reports that the token at i is all that is left of its line
// but for a comment.
func lastOnLine(text string, i int) bool {
	_, end, _ := value(text, i)
	rest := text[end:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.HasPrefix(rest, "#")
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// atLineStart reports that only indentation, a list dash or "export"
// precedes i on its line: a YAML mapping or a .env line, not a sentence.
// It reads back from i, never the whole line: a long line with many keys
// would otherwise be read once per key.
func atLineStart(text string, i int) bool {
	blanks := func() {
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
			i--
		}
	}
	blanks()
	if strings.HasSuffix(text[:i], "export") {
		i -= len("export")
		blanks()
	}
	if i > 0 && text[i-1] == '-' {
		i--
		blanks()
	}
	return i == 0 || text[i-1] == '\n'
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
