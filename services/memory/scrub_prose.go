package memory

import "strings"

// proseValue finds the value of "password is X", "password for the NAS
// is X", "pin code is X" and "password: X" after a key ending at ke.
// "pass", "auth" and a qualified key do not read as prose: "the boarding
// pass is 12A", "auth is handled by the proxy".
func proseValue(text string, ke int, last, prev string) (int, bool) {
	switch last {
	case "password", "passwd", "passphrase", "passcode", "pin", "secret", "token", "apikey":
	case "key":
		if prev == "" {
			return 0, false
		}
	default:
		return 0, false
	}
	at := ke
	if last == "pin" {
		for _, w := range []string{" code", " number"} {
			if hasPrefixFold(text[at:], w) {
				at += len(w)
			}
		}
	}
	// "for the admin account", up to six words, before "is".
	if w, ok := nextWord(text, at); ok && contains([]string{"for", "to", "of", "on", "at"}, strings.ToLower(text[at+1:w])) {
		at = w
		for n := 0; n < 6; n++ {
			w, ok := nextWord(text, at)
			if !ok {
				return 0, false
			}
			word := strings.ToLower(text[at+1 : w])
			if word == "is" || word == "was" {
				break
			}
			if strings.HasSuffix(word, ":") {
				return w, true
			}
			at = w
		}
	}
	if w, ok := nextWord(text, at); ok {
		switch strings.ToLower(text[at+1 : w]) {
		case "is", "was", "is:", "was:":
			return w, true
		}
	}
	return 0, false
}

// nextWord reads " word" at i and returns where it ends.
func nextWord(text string, i int) (int, bool) {
	if i >= len(text) || text[i] != ' ' {
		return 0, false
	}
	end := i + 1
	for end < len(text) && text[end] > ' ' && text[end] != ',' && text[end] != ';' {
		end++
	}
	return end, end > i+1
}

// wordBefore is the lowercase word before the space before i.
func wordBefore(text string, i int) string {
	if i < 2 || text[i-1] != ' ' {
		return ""
	}
	end, start := i-1, i-1
	for start > 0 && isAlnum(text[start-1]) {
		start--
	}
	return lowerASCII(text[start:end])
}

// proseWords follow "the password is" in sentences that give none.
var proseWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`also always bad being blank case correct different easy empty enough fine gone good great
		hard here in incorrect invalid just kept known lost mine missing new never next not nothing now old only optional ours
		public private ready reset safe same secure short simple something still strong sure that the their there this too
		unique unknown very weak what which wrong yours long your my our his her its set unset`) {
		proseWords[w] = true
	}
}

func isProseWord(w string) bool {
	if proseWords[w] {
		return true
	}
	for _, s := range []string{"ed", "ing", "ly", "able", "ible", "ive", "ous", "ful", "less", "ent", "ant"} {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}
