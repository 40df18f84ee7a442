package secrets

import "strings"

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

// secretKey is a key that names a secret, as found in the text.
type secretKey struct {
	ks, ke     int    // the key, without a flag's dashes or a path's dots
	last, prev string // its last two words, lowercased
	kind       string // what its value is (keyKind)
	cli        bool   // written as a --flag
	// "pass" and "auth" alone are words of test logs and change logs
	// ("PASS: addr2line", "auth: precompute names") far more often than
	// keys; alone they count only as KEY=value.
	bare bool
}

// valueContext is what the separator after a key says about the value.
type valueContext struct {
	sep      int  // where the value may start (blanks before it are skipped)
	mode     int  // lenient, strict or literal
	env      bool // a .env or shell line: the value runs to the end of it
	declared bool // Go's :=, whose secret would be a quoted literal
	noun     bool // "the secret to good bread is patience": a word is no value
}

// verdict is an answer reached before the value is read; nil when the
// value decides.
type verdict struct {
	sp span
	ok bool
}

func decided(sp span, ok bool) *verdict { return &verdict{sp, ok} }

func refused() *verdict { return &verdict{} }

// assignment reads the key at text[ks:ke] and the value given to it.
func assignment(text string, ks, ke int) (span, bool) {
	k, ok := readSecretKey(text, ks, ke)
	if !ok {
		return span{}, false
	}
	if vs, ve, ok := markupValue(text, k.ks, k.ke); ok {
		return checkedValue(text, vs, ve, k.kind, lenient, true)
	}
	vc, v := k.separator(text)
	if v != nil {
		return v.sp, v.ok
	}
	return k.judge(text, vc)
}

// readSecretKey reads the key at text[ks:ke]; false when it names no secret.
func readSecretKey(text string, ks, ke int) (secretKey, bool) {
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
		return secretKey{}, false
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
		return secretKey{}, false
	}
	bare := prev == "" && (last == "pass" || last == "auth")
	return secretKey{ks: ks, ke: ke, last: last, prev: prev, kind: kind, cli: cli, bare: bare}, true
}

// separator reads what joins the key to its value (=, :=, =>, :, a flag's
// blank, or prose).
func (k secretKey) separator(text string) (valueContext, *verdict) {
	at := k.ke
	for at < len(text) && at < k.ke+2 && (isQuote(text[at]) || text[at] == '\\') {
		at++
	}
	sep := skipBlanks(text, at)
	vc := valueContext{sep: sep, mode: lenient}
	switch {
	case k.bare && !hasAnyPrefix(text[sep:], ":=", "="), strings.HasPrefix(text[sep:], "=="):
		// (== compares in code; it gives nothing.)
		return vc, refused()
	case hasAnyPrefix(text[sep:], ":=", "=>", "="):
		vc.env = sep == k.ke && !k.cli && text[sep] == '=' && sep+1 < len(text) && text[sep+1] > ' ' && atLineStart(text, k.ks)
		vc.declared = strings.HasPrefix(text[sep:], ":=")
		vc.sep += 1 + boolInt(hasAnyPrefix(text[sep:], ":=", "=>"))
	case strings.HasPrefix(text[sep:], ":") && !strings.HasPrefix(text[sep:], "://") && !strings.HasPrefix(text[sep:], "::"):
		return k.afterColon(text, vc)
	case k.cli && sep > k.ke && sep < len(text) && text[sep] != '-':
		// A flag named in prose is followed by a word of the sentence
		// ("--passphrase with --quick-gen-key"), not its value.
		if vs, ve, _ := value(text, sep); isProseWord(strings.ToLower(text[vs:ve])) || text[sep] == '(' {
			return vc, refused()
		}
	default:
		return k.inProse(text, vc)
	}
	return vc, nil
}

// afterColon reads key: value, a YAML line or block, or a colon in a sentence.
func (k secretKey) afterColon(text string, vc valueContext) (valueContext, *verdict) {
	// user:password@ in a URL is the URL scanner's.
	if k.ks > 0 && text[k.ks-1] == '/' {
		return vc, refused()
	}
	vc.sep++
	if atLineStart(text, k.ks) {
		if vs, ve, block, ok := yamlBlock(text, k.ks, vc.sep); ok {
			return vc, decided(checkedValue(text, vs, ve, k.kind, lenient, block))
		}
	}
	// A YAML line gives one value; words after it make a sentence
	// ("Token: the bucket refills").
	quotedKey := k.ks > 0 && isQuote(text[k.ks-1])
	if !quotedKey && (!atLineStart(text, k.ks) || !lastOnLine(text, skipBlanks(text, vc.sep))) {
		vc.mode = strict
	} else if !quotedKey {
		vc.mode = literal
	}
	return vc, nil
}

// inProse reads a key with no separator: a .netrc line, or a sentence
// ("my password is hunter2").
func (k secretKey) inProse(text string, vc valueContext) (valueContext, *verdict) {
	if vs, ok := netrcValue(text, k.ks, k.ke, k.last); ok {
		vc.sep = vs
		return vc, nil
	}
	if sp, ok := madeUpValue(text, k.ke, k.kind); ok {
		return vc, decided(sp, true)
	}
	sep, ok := proseValue(text, k.ke, k.last, k.prev)
	if !ok {
		return vc, refused()
	}
	vc.sep = sep
	if end := passphraseEnd(text, skipBlanks(text, sep), k.kind); end > 0 {
		return vc, decided(span{skipBlanks(text, sep), end, k.kind}, true)
	}
	vc.mode, vc.noun = strict, k.last == "secret"
	return vc, nil
}

// judge reads the value at vc.sep and decides whether it is a secret.
func (k secretKey) judge(text string, vc valueContext) (span, bool) {
	mode := vc.mode
	if vc.env {
		mode = literal
	}
	if k.kind == "credential" {
		mode = strict
	}
	vs, ve, quoted := value(text, skipBlanks(text, vc.sep))
	if !quoted && (vc.declared || isConstantName(text[vs:ve])) {
		// In code an unquoted value is a name (tok, _EMPTY_, DEFAULT_PASS).
		return span{}, false
	}
	if vc.noun && !quoted && isPlainWord(text[vs:ve]) {
		// A secret in prose is more often the key to something than a
		// credential; one given there looks made up (x9y8z7w6).
		return span{}, false
	}
	if !vc.env && !quoted && wordFollows(text, ve) && !looksRandom(text[vs:ve]) {
		// A plain word with more words after it on the line is a
		// sentence going on ("token is then kept", "auth: precompute
		// names", "JPOOL_PASS = one processing pass"), not a secret;
		// a secret in a sentence looks made up (hunter2, s3cr3t!).
		return span{}, false
	}
	sp, ok := checkedValue(text, vs, ve, k.kind, mode, quoted)
	switch {
	case !ok:
	case k.kind == "dsn":
		return dsnPassword(text, vs, ve)
	case vc.env && !quoted:
		sp.end = envValueEnd(text, ve)
	}
	return sp, ok
}
