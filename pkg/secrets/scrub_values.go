package secrets

import (
	"slices"
	"strings"
)

// What a value looks like: a secret, a placeholder, code that computes
// one, a word of a sentence, or something generated.

// isConstantName reports a name in capitals with an underscore
// (_EMPTY_, DEFAULT_PASSWORD): a constant or a variable, not its value.
func isConstantName(v string) bool {
	if !strings.Contains(v, "_") || strings.Trim(v, "_") == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// looksRandom reports whether v looks made up rather than a word: letters
// mixed with digits or symbols.
func looksRandom(v string) bool {
	var letter, other bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isLower(c) || isUpper(c):
			letter = true
		case c != '-' && c != '_' && c != '.':
			other = true
		}
	}
	return letter && other
}

// secretValue tells a value from a placeholder, a reference, an expression
// or, in prose, an ordinary word ("the token is valid").
func secretValue(v, kind string, mode int, quoted bool) bool {
	if strings.HasPrefix(v, RedactedPrefix) || isPlaceholder(v) {
		return false
	}
	if kind == "pin" {
		return len(v) >= 4 && len(v) <= 8 && strings.Trim(v, "0123456789") == ""
	}
	if !quoted && (isExpression(v) || isIdentifierPath(v) && (mode != literal || readsSettings(v) || namesFile(v))) {
		return false
	}
	if mode != strict {
		return len(v) >= 3
	}
	if len(v) < 4 || kind == "credential" && len(v) < 8 {
		return false // "auth: oauth2"
	}
	if quoted || strings.Trim(lowerASCII(v), "abcdefghijklmnopqrstuvwxyz") != "" {
		return true
	}
	if strings.ToLower(v[1:]) != v[1:] {
		return true // hUnTeR
	}
	return !isProseWord(strings.ToLower(v))
}

func isPlaceholder(v string) bool {
	l := strings.ToLower(v)
	switch l {
	case "true", "false", "null", "nil", "none", "yes", "no", "on", "off", "required", "optional", "changeme", "redacted", "hidden",
		"value", "secret", "password", "token":
		return true
	}
	return reference(v) || strings.HasPrefix(v, "<") ||
		strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") || strings.HasPrefix(v, "{{") ||
		strings.Trim(v, "*xX.•") == "" || elided(v) || crossedOut(l) ||
		strings.HasPrefix(l, "your") && len(l) > 4 && strings.IndexByte("_-", l[4]) >= 0 && strings.Trim(l[5:], "abcdefghijklmnopqrstuvwxyz_-") == ""
}

// reference reports a variable standing for the value: $TOKEN, ${DB_PASSWORD},
// $(cat key), %APPDATA%, $password. A name in one case (or capitals and
// digits) is a variable; one mixing cases with digits ($up3rS3cretPa55) is
// a secret that happens to begin with a dollar.
func reference(v string) bool {
	switch {
	case strings.HasPrefix(v, "${"), strings.HasPrefix(v, "$("), strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%") && len(v) > 2:
		return true
	case !strings.HasPrefix(v, "$") || len(v) < 2:
		return false
	}
	name := v[1:]
	if strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" {
		return true
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyz_") == ""
}

// placeholderKept is the most of a value's letters and digits an elided
// placeholder shows around its ellipsis (sk_live_...4242): more is a secret
// followed by an ellipsis of the sentence it is in.
const placeholderKept = 12

// elided reports a value shown cut short, as documentation shows a token's
// form (oh_…, sk-...abcd): whoever wrote it left the secret out.
func elided(v string) bool {
	if !strings.Contains(v, "…") && !strings.Contains(v, "...") {
		return false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			n++
		}
	}
	return n <= placeholderKept
}

// crossedOut reports a value (lowercased) written with x's where a
// secret's characters go (sk_live_xxxxxxxx): a run of four and at least a
// third of it, not four that happen to meet in a random string.
func crossedOut(l string) bool {
	return strings.Contains(l, "xxxx") && 3*strings.Count(l, "x") >= len(l)
}

// isExpression reports code that computes a value: a call, a literal
// object or list.
func isExpression(v string) bool {
	if v[0] == '{' || v[0] == '[' {
		return true
	}
	i := 0
	for i < len(v) && (isAlnum(v[i]) || v[i] == '_' || v[i] == '.') {
		i++
	}
	return i > 0 && i < len(v) && v[i] == '('
}

// isIdentifierPath reports a dotted name such as cfg.Password or
// process.env.TOKEN: code reading a secret, not the secret.
func isIdentifierPath(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || isDigit(p[0]) || strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			return false
		}
	}
	return true
}

// settingsRoots are the names code reads settings and secrets through;
// a dotted value that starts with one is code even where values are
// literal (a JavaScript object's last member: password: process.env.PW).
var settingsRoots = []string{"process", "env", "os", "sys", "system", "self", "this", "cfg", "conf", "config",
	"settings", "secrets", "vars", "ctx", "context", "opts", "options", "params", "props", "args", "input",
	"inputs", "req", "request", "app", "window", "import"}

// readsSettings reports a dotted name that starts at one of settingsRoots.
func readsSettings(v string) bool {
	root, _, _ := strings.Cut(v, ".")
	return slices.Contains(settingsRoots, strings.ToLower(root))
}

// fileExtensions end the names of files a setting may point at instead
// of holding the secret (token: token.txt, key: server.pem).
var fileExtensions = []string{"txt", "json", "yaml", "yml", "toml", "ini", "conf", "cfg", "env", "xml", "csv",
	"pem", "key", "pub", "crt", "cer", "der", "p12", "pfx", "jks", "gpg", "asc", "age", "kdbx"}

// namesFile reports a dotted name that ends like a file's.
func namesFile(v string) bool {
	return slices.Contains(fileExtensions, strings.ToLower(v[strings.LastIndexByte(v, '.')+1:]))
}

// looksGenerated reports a value no person typed: 32 or more lowercase
// hex digits (in capitals they are a PGP key's fingerprint, which is
// public), or 20 or more letters and digits of both cases that go from
// letter to digit and back at least four times. A name in code
// (NewRefreshTokenProvider2024) does so once; a word never.
func looksGenerated(v string) bool {
	if len(v) < 20 {
		return false
	}
	var upper, lower, digit, nonHex bool
	switches := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			digit = true
		case isUpper(c):
			upper = true
			nonHex = nonHex || c > 'F'
		case isLower(c):
			lower = true
			nonHex = nonHex || c > 'f'
		case c == '-' || c == '_':
			continue
		default:
			return false
		}
		if i > 0 && isDigit(c) != isDigit(v[i-1]) && isAlnum(v[i-1]) {
			switches++
		}
	}
	if !nonHex && lower && !upper && digit && len(v) >= 32 {
		return true
	}
	return upper && lower && digit && switches >= 4
}

// isPlainWord reports a word as prose writes it: letters only, capital
// at most at its start.
func isPlainWord(v string) bool {
	if v == "" || strings.Trim(lowerASCII(v), "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	return strings.ToLower(v[1:]) == v[1:]
}
