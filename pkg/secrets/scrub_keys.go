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

// How sure the context is that what follows is a value, not prose.
const (
	lenient = iota // KEY=value, a YAML line, a JSON member, --key value
	strict         // prose, a colon mid-sentence: only what looks like a secret
	// literal is lenient where no value is code: a .env line or a YAML
	// line's one value is taken as written, so a dotted one
	// (my.secret.pass, hello.World1) is a value, not a name being read,
	// unless it starts where code's names of settings do (process.env.X).
	literal
)

// assignment reads the key at text[ks:ke] and the value given to it.
func assignment(text string, ks, ke int) (span, bool) {
	// Flags and dotted paths keep their dashes and dots out of the key.
	cli := strings.HasPrefix(text[ks:ke], "--")
	for ks < ke && (text[ks] == '-' || text[ks] == '.') {
		ks++
	}
	for ke > ks && (text[ke-1] == '-' || text[ke-1] == '.') {
		ke--
	}
	key := text[ks:ke]
	// $DB_PASSWORD and ${DB_PASSWORD:-x} refer to a secret, they hold none.
	if key == "" || ks > 0 && (text[ks-1] == '$' || text[ks-1] == '{') {
		return span{}, false
	}
	last, prev := keyWords(key)
	if last == "key" && prev == "" {
		prev = wordBefore(text, ks) // "the API key is ..."
	}
	kind := keyKind(last, prev)
	if kind == "" && last == "id" && prev == "key" && keyEndsWith(key, "privatekeyid") {
		kind = "private_key" // a Google Cloud service account's key file
	}
	if kind == "" || last == "pwd" && prev == "" {
		// PWD alone is the shell's working directory; DB_PWD is a password.
		return span{}, false
	}
	// "pass" and "auth" alone are words of test logs and change logs
	// ("PASS: addr2line", "auth: precompute names") far more often than
	// keys; alone they count only as KEY=value.
	bare := prev == "" && (last == "pass" || last == "auth")
	if vs, ve, ok := markupValue(text, ks, ke); ok {
		return checkedValue(text, vs, ve, kind, lenient, true)
	}
	quotedKey := ks > 0 && isQuote(text[ks-1])
	at := ke
	for at < len(text) && at < ke+2 && (isQuote(text[at]) || text[at] == '\\') {
		at++
	}
	sep := skipBlanks(text, at)
	mode := lenient
	env := false      // a .env or shell line: the value runs to the end of it
	declared := false // Go's :=, whose secret would be a quoted literal
	noun := false     // "the secret to good bread is patience": a word is no value
	switch {
	case bare && !hasAnyPrefix(text[sep:], ":=", "="), strings.HasPrefix(text[sep:], "=="):
		// (== compares in code; it gives nothing.)
		return span{}, false
	case hasAnyPrefix(text[sep:], ":=", "=>", "="):
		env = sep == ke && !cli && text[sep] == '=' && sep+1 < len(text) && text[sep+1] > ' ' && atLineStart(text, ks)
		declared = strings.HasPrefix(text[sep:], ":=")
		sep += 1 + boolInt(hasAnyPrefix(text[sep:], ":=", "=>"))
	case strings.HasPrefix(text[sep:], ":") && !strings.HasPrefix(text[sep:], "://") && !strings.HasPrefix(text[sep:], "::"):
		// user:password@ in a URL is the URL scanner's.
		if ks > 0 && text[ks-1] == '/' {
			return span{}, false
		}
		sep++
		if atLineStart(text, ks) {
			if vs, ve, block, ok := yamlBlock(text, ks, sep); ok {
				return checkedValue(text, vs, ve, kind, lenient, block)
			}
		}
		// A YAML line gives one value; words after it make a sentence
		// ("Token: the bucket refills").
		if !quotedKey && (!atLineStart(text, ks) || !lastOnLine(text, skipBlanks(text, sep))) {
			mode = strict
		} else if !quotedKey {
			mode = literal
		}
	case cli && sep > ke && sep < len(text) && text[sep] != '-':
		// A flag named in prose is followed by a word of the sentence
		// ("--passphrase with --quick-gen-key"), not its value.
		if vs, ve, _ := value(text, sep); isProseWord(strings.ToLower(text[vs:ve])) || text[sep] == '(' {
			return span{}, false
		}
	default:
		if vs, ok := netrcValue(text, ks, ke, last); ok {
			sep = vs
			break
		}
		if sp, ok := madeUpValue(text, ke, kind); ok {
			return sp, true
		}
		var ok bool
		if sep, ok = proseValue(text, ke, last, prev); !ok {
			return span{}, false
		}
		if end := passphraseEnd(text, skipBlanks(text, sep), kind); end > 0 {
			return span{skipBlanks(text, sep), end, kind}, true
		}
		mode, noun = strict, last == "secret"
	}
	if env {
		mode = literal
	}
	if kind == "credential" {
		mode = strict
	}
	vs, ve, quoted := value(text, skipBlanks(text, sep))
	if !quoted && (declared || isConstantName(text[vs:ve])) {
		// In code an unquoted value is a name (tok, _EMPTY_, DEFAULT_PASS).
		return span{}, false
	}
	if noun && !quoted && isPlainWord(text[vs:ve]) {
		// A secret in prose is more often the key to something than a
		// credential; one given there looks made up (x9y8z7w6).
		return span{}, false
	}
	if !env && !quoted && wordFollows(text, ve) && !looksRandom(text[vs:ve]) {
		// A plain word with more words after it on the line is a
		// sentence going on ("token is then kept", "auth: precompute
		// names", "JPOOL_PASS = one processing pass"), not a secret;
		// a secret in a sentence looks made up (hunter2, s3cr3t!).
		return span{}, false
	}
	sp, ok := checkedValue(text, vs, ve, kind, mode, quoted)
	switch {
	case !ok:
	case kind == "dsn":
		return dsnPassword(text, vs, ve)
	case env && !quoted:
		sp.end = envValueEnd(text, ve)
	}
	return sp, ok
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
