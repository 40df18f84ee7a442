package memory

import "strings"

// findCommandLinePasswords finds the two -p forms that are not ambiguous:
// `sshpass -p secret`, and `-psecret` glued on a mysql or mariadb command
// line (there a separate word after -p is a database, elsewhere a port).
func findCommandLinePasswords(text, lower string, spans []span) []span {
	indexAll(lower, "sshpass -p ", func(i int) {
		if vs, ve, quoted := value(text, skipBlanks(text, i+len("sshpass -p "))); ve > vs && secretValue(text[vs:ve], "password", lenient, quoted) {
			spans = append(spans, span{vs, ve, "password"})
		}
	})
	if !strings.Contains(lower, "mysql") && !strings.Contains(lower, "mariadb") {
		return spans
	}
	indexAll(lower, " -p", func(i int) {
		// The command is near: a bounded look back keeps a long line from
		// being read once per " -p".
		line := lower[max(0, i-256):i]
		line = line[strings.LastIndexByte(line, '\n')+1:]
		if !strings.Contains(line, "mysql") && !strings.Contains(line, "mariadb") {
			return
		}
		vs := i + len(" -p")
		if vs < len(text) && text[vs] > ' ' && text[vs] != '-' {
			if vs, ve, quoted := value(text, vs); ve > vs && secretValue(text[vs:ve], "password", lenient, quoted) {
				spans = append(spans, span{vs, ve, "password"})
			}
		}
	})
	return spans
}
