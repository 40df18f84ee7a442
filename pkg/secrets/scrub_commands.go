package secrets

import "strings"

// findCommandLinePasswords finds the -p and -u forms that are not
// ambiguous: `sshpass -p secret`; `-p secret` after `docker login` (or
// podman's, nerdctl's, helm registry's); `-psecret` glued on a mysql or
// mariadb command line (there a separate word after -p is a database,
// elsewhere a port); and the password of curl's `-u user:password` and
// `--user user:password` (elsewhere -u 1000:1000 is a uid and gid).
func findCommandLinePasswords(text, lower string, spans []span) []span {
	indexAll(lower, "sshpass -p ", func(i int) {
		spans = flagPassword(text, skipBlanks(text, i+len("sshpass -p ")), spans)
	})
	mysql := strings.Contains(lower, "mysql") || strings.Contains(lower, "mariadb")
	login := strings.Contains(lower, " login")
	if mysql || login {
		indexAll(lower, " -p", func(i int) {
			vs := i + len(" -p")
			switch {
			case vs >= len(text):
			case mysql && text[vs] > ' ' && text[vs] != '-' && onCommandLine(lower, i, "mysql", "mariadb"):
				spans = flagPassword(text, vs, spans)
			case login && (text[vs] == ' ' || text[vs] == '=') && onCommandLine(lower, i, "docker login", "podman login", "nerdctl login", "registry login"):
				spans = flagPassword(text, skipBlanks(text, vs+1), spans)
			}
		})
	}
	if strings.Contains(lower, "curl") {
		for _, flag := range []string{" -u", " --user"} {
			indexAll(lower, flag, func(i int) {
				vs := i + len(flag)
				if vs < len(text) && (text[vs] == ' ' || text[vs] == '=') {
					vs = skipBlanks(text, vs+1)
				} else if flag == " --user" {
					return // --user-agent
				}
				if onCommandLine(lower, i, "curl") {
					spans = userPassword(text, vs, spans)
				}
			})
		}
	}
	return spans
}

// onCommandLine reports that one of the commands comes before i on its
// line. The look back is bounded, so a long line is not read once per
// flag in it.
func onCommandLine(lower string, i int, commands ...string) bool {
	line := lower[max(0, i-256):i]
	line = line[strings.LastIndexByte(line, '\n')+1:]
	for _, c := range commands {
		if strings.Contains(line, c) {
			return true
		}
	}
	return false
}

// flagPassword adds the password that starts at vs.
func flagPassword(text string, vs int, spans []span) []span {
	if vs, ve, quoted := value(text, vs); ve > vs && secretValue(text[vs:ve], "password", lenient, quoted) {
		spans = append(spans, span{vs, ve, "password"})
	}
	return spans
}

// userPassword adds the password of user:password at vs; the user stays.
func userPassword(text string, vs int, spans []span) []span {
	vs, ve, quoted := value(text, vs)
	colon := strings.IndexByte(text[vs:ve], ':')
	if colon < 0 {
		return spans // curl asks for the password
	}
	if ps := vs + colon + 1; ve > ps && secretValue(text[ps:ve], "password", lenient, quoted) {
		spans = append(spans, span{ps, ve, "password"})
	}
	return spans
}
