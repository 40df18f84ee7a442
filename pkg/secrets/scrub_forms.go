package secrets

import "strings"

// The shapes a secret key's value takes beyond key=value on one line:
// markup, YAML written below its key, .netrc entries, .env lines whose
// value holds blanks, and DSNs whose only secret is their password.

// markupValue finds the value of an XML element (<password>x</password>)
// or of a .NET setting (<add key="ApiKey" value="x"/>) whose key is at
// text[ks:ke].
func markupValue(text string, ks, ke int) (vs, ve int, ok bool) {
	if ks == 0 || ke >= len(text) {
		return 0, 0, false
	}
	if text[ks-1] == '<' && text[ke] == '>' {
		vs = ke + 1
		ve = vs + strings.IndexByte(text[vs:], '<')
		if ve < vs || !strings.HasPrefix(text[ve:], "</") {
			return 0, 0, false
		}
		return vs, ve, true
	}
	q := text[ks-1]
	if !isQuote(q) || text[ke] != q {
		return 0, 0, false
	}
	attr := lowerASCII(strings.TrimRight(text[max(0, ks-8):ks-1], " \t"))
	if !strings.HasSuffix(attr, "key=") && !strings.HasSuffix(attr, "name=") {
		return 0, 0, false
	}
	at := skipBlanks(text, ke+1)
	if !hasPrefixFold(text[at:], "value=") {
		return 0, 0, false
	}
	vs, ve, quoted := value(text, at+len("value="))
	return vs, ve, quoted
}

// yamlBlock finds a YAML value written below its key, whose colon ends at
// sep: a block scalar (key: | or key: >, then lines indented deeper than
// the key) or a plain scalar on the next, deeper line. A mapping or a
// list below the key is not a value. It reports whether the value is a
// block scalar, which is text as written, never an expression.
func yamlBlock(text string, ks, sep int) (vs, ve int, block, ok bool) {
	nl := strings.IndexByte(text[sep:], '\n')
	if nl < 0 {
		return 0, 0, false, false
	}
	head := text[sep : sep+nl]
	if i := strings.Index(head, " #"); i >= 0 {
		head = head[:i]
	}
	head = strings.TrimSpace(head)
	if head != "" {
		if strings.Trim(head[1:], "+-123456789") != "" || head[0] != '|' && head[0] != '>' {
			return 0, 0, false, false
		}
		block = true
	}
	indent := ks - (strings.LastIndexByte(text[:ks], '\n') + 1)
	vs, ve = -1, -1
	for at := sep + nl + 1; at < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
			end = at + i
		}
		line := strings.TrimRight(text[at:end], " \t\r")
		content := strings.TrimLeft(line, " \t")
		if content == "" && block {
			at = end + 1
			continue
		}
		if content == "" || len(line)-len(content) <= indent {
			break
		}
		if vs < 0 {
			if !block && (strings.HasPrefix(content, "- ") || content[0] == '#' || content[0] == '{' ||
				strings.Contains(content, ": ") || strings.HasSuffix(content, ":")) {
				return 0, 0, false, false
			}
			// YAML indents with spaces only, and no value of it ends
			// like a line of code: a key followed by either is a label
			// (Perl's TOKEN: above its loop).
			if strings.TrimLeft(line, " ")[0] == '\t' || !block && strings.IndexByte("{;(", content[len(content)-1]) >= 0 {
				return 0, 0, false, false
			}
			vs = at + len(line) - len(content)
		}
		ve = at + len(line)
		at = end + 1
	}
	if vs < 0 {
		return 0, 0, false, false
	}
	// A quoted scalar keeps its quotes, as a quoted value on the key's line does.
	if !block && ve-vs >= 2 && isQuote(text[vs]) && text[ve-1] == text[vs] {
		vs, ve = vs+1, ve-1
	}
	return vs, ve, block, true
}

// netrcValue finds the password of a .netrc entry ("machine h login u
// password x", on one line or across several) after its key at
// text[ks:ke]. The entry's other pairs come before the key, back to the
// "machine <host>" or "default" that opens it: login, and the port,
// protocol and account that git's netrc helper and others read.
func netrcValue(text string, ks, ke int, last string) (int, bool) {
	if last != "password" && last != "passwd" || ke >= len(text) || text[ke] != ' ' && text[ke] != '\t' {
		return 0, false
	}
	// Read back a pair at a time, as a key found in every sentence about
	// a password gets here.
	j, login := ks, false
	for pair := 0; pair < 8; pair++ {
		vs, v := wordBack(text, j)
		if login && strings.EqualFold(v, "default") {
			return ke, true
		}
		ws, keyword := wordBack(text, vs)
		switch {
		case strings.EqualFold(keyword, "login"):
			login = true
		case strings.EqualFold(keyword, "port"), strings.EqualFold(keyword, "protocol"), strings.EqualFold(keyword, "account"):
		case strings.EqualFold(keyword, "machine"):
			return ke, login
		case pair == 1 && login:
			// Pairs this does not know (a helper's own) may sit between
			// the machine and the login: then the login just before the
			// key and a machine in the lines above say it is an entry.
			before := lowerASCII(text[max(0, j-256):j])
			return ke, strings.Contains(before, "machine ") || strings.Contains(before, "default")
		default:
			return 0, false
		}
		j = ws
	}
	return 0, false
}

// wordBack reads back from i over blanks and line ends, then over the word
// before them, and returns where that word starts and the word.
func wordBack(text string, i int) (int, string) {
	end := i
	for end > 0 && text[end-1] <= ' ' {
		end--
	}
	start := end
	for start > 0 && text[start-1] > ' ' {
		start--
	}
	return start, text[start:end]
}

// envValueEnd is where the value of a .env or shell line ends when it was
// read to ve as one token: a value written without quotes runs to the end
// of its line (DB_PASSWORD=correct horse battery staple, p@ss;word), but
// not into a comment, a next command or a next NAME=value.
func envValueEnd(text string, ve int) int {
	end := ve
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		c := text[end]
		if c == ';' && (end+1 == len(text) || text[end+1] <= ' ' || envName(text[end+1:])) || nextParam(text, end) {
			break // a next command, or a next setting of a connection string or query
		}
		if c == ' ' || c == '\t' {
			rest := text[skipBlanks(text, end):]
			if hasAnyPrefix(rest, "#", "&&", "||", "|", ";") || envName(rest) {
				break
			}
		}
		end++
	}
	for end > ve && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	return end
}

// envName reports NAME= at the start of s.
func envName(s string) bool {
	i := 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '_') {
		i++
	}
	return i > 0 && !isDigit(s[0]) && i < len(s) && s[i] == '='
}

// dsnPassword finds the password in a DSN without a scheme, such as Go's
// MySQL user:password@tcp(host)/db; a DSN with a scheme is a URL, whose
// password the URL scan finds, and one without credentials holds none.
func dsnPassword(text string, vs, ve int) (span, bool) {
	v := text[vs:ve]
	if strings.Contains(v, "://") {
		return span{}, false
	}
	auth := v
	if i := strings.IndexByte(v, '('); i >= 0 {
		auth = v[:i]
	}
	colon, at := strings.IndexByte(auth, ':'), strings.LastIndexByte(auth, '@')
	if colon < 0 || at <= colon+1 || strings.HasPrefix(v[colon+1:], RedactedPrefix) {
		return span{}, false
	}
	return span{vs + colon + 1, vs + at, "password"}, true
}
