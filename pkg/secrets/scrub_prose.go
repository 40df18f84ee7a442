package secrets

import (
	"slices"
	"strings"
)

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
	if w, ok := nextWord(text, at); ok && slices.Contains([]string{"for", "to", "of", "on", "at"}, strings.ToLower(text[at+1:w])) {
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

// madeUpValue finds a value that follows its key after a blank, with no
// "=", ":" or "is" between them ("use token 7f3k9Qz2… for the staging
// API", "app key 0a1b…"): only one that looks generated, since after a
// bare key word the sentence usually goes on ("the token bucket").
func madeUpValue(text string, ke int, kind string) (span, bool) {
	if ke >= len(text) || text[ke] != ' ' || kind == "pin" || kind == "dsn" || kind == "credential" {
		return span{}, false
	}
	vs, ve, quoted := value(text, skipBlanks(text, ke))
	if quoted || !looksGenerated(text[vs:ve]) {
		return span{}, false
	}
	return span{vs, ve, kind}, true
}

// passphraseEnd finds a passphrase of several words given in prose ("my
// passphrase is correct horse battery staple") at i and returns where it
// ends, or 0. It is three or more words in a row, to the end of the clause
// or the first word that makes a sentence of them: a function word, a
// participle or adverb, a word about a password's length ("the password
// is twelve characters long"). A single word that describes a password may
// begin one ("correct"), two make a sentence ("strong enough").
func passphraseEnd(text string, i int, kind string) int {
	if kind != "password" {
		return 0
	}
	words, described, end := 0, 0, 0
	for at := i; ; at = end + 1 {
		w := at
		for w < len(text) && (isLower(text[w]) || isUpper(text[w])) {
			w++
		}
		word := lowerASCII(text[at:w])
		if w == at || sentenceWords[word] || hasAnySuffix(word, "ed", "ing", "ly") {
			break
		}
		if proseWords[word] {
			described++
		}
		words, end = words+1, w
		if w >= len(text) || text[w] != ' ' {
			break // the clause ends: punctuation or the line's end
		}
	}
	if words < 3 || described > 1 {
		return 0
	}
	return end
}

// sentenceWords end a passphrase in prose: no list of random words holds
// them, every sentence about a password does.
var sentenceWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and or but nor not no is are was were be been am has have had do does did will
		would shall should can could may might must it this that these those there here then than when where which who
		whom whose how why if so as at by for from in into of off on onto out over to up with without about after before
		under again ever yet soon i me you we us they them he him she hers one all any some each every both either neither
		other another such kept stored saved written known lost forgotten given shown sent made taken characters chars
		letters digits numbers symbols words`) {
		sentenceWords[w] = true
	}
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
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
		unique unknown very weak what which wrong yours long your my our his her its set unset
		six eight ten twelve fifteen sixteen twenty thirty forty sixty
		and or but with without for from into onto of on at by to as if when then than so is are was be`) {
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

// seedIntros introduce a wallet's recovery words: "mnemonic", or "seed"
// and "recovery" followed by "phrase" or "words". Three scans, not one per
// intro: Scrub reads every chunk.
var seedIntros = []string{"mnemonic", "seed ", "recovery "}

// findSeedPhrases finds a wallet's recovery words after an intro ("my
// seed phrase is …", MNEMONIC="…"): 12 to 24 words of 3–8 lowercase
// letters, as BIP-39's are, apart by blanks or line breaks. Fewer make a
// sentence about one ("the seed phrase is stored offline"). Of a longer
// run the most words a phrase can have (12, 15, 18, 21 or 24) are taken,
// so plain words that follow a phrase with no punctuation may go with it.
func findSeedPhrases(text, lower string, spans []span) []span {
	for _, intro := range seedIntros {
		indexAll(lower, intro, func(i int) {
			at := i + len(intro)
			if intro != "mnemonic" {
				switch {
				case strings.HasPrefix(lower[at:], "phrase"):
					at += len("phrase")
				case strings.HasPrefix(lower[at:], "words"):
					at += len("words")
				default:
					return
				}
			}
			at = seedStart(lower, at)
			words, ends := 0, [25]int{}
			for w := at; words < 24; {
				e := w
				for e < len(text) && isLower(text[e]) {
					e++
				}
				if e-w < 3 || e-w > 8 || e < len(text) && isAlnum(text[e]) {
					break
				}
				words++
				ends[words] = e
				for w = e; w < len(text) && (text[w] == ' ' || text[w] == '\t' || text[w] == '\n' || text[w] == '\r'); w++ {
				}
			}
			if words < 12 {
				return
			}
			spans = append(spans, span{at, ends[words-words%3], "seed_phrase"})
		})
	}
	return spans
}

// seedStart skips what comes between an intro and its words: blanks,
// ":", "=", quotes, "is".
func seedStart(lower string, at int) int {
	for at < len(lower) {
		if c := lower[at]; c <= ' ' || strings.IndexByte(`:="'`, c) >= 0 {
			at++
		} else if hasAnyPrefix(lower[at:], "is ", "was ") {
			at += strings.IndexByte(lower[at:], ' ')
		} else {
			break
		}
	}
	return at
}
