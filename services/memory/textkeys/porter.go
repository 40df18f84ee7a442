package textkeys

// porterStem reduces an English word to its stem with Martin Porter's
// algorithm (1980), the one SQLite's porter tokenizer uses, so "deploys",
// "deployed" and "deploying" index and match as one term. w must be
// lowercase ASCII letters; it is stemmed in place and the stem returned.
func porterStem(w []byte) []byte {
	if len(w) <= 2 {
		return w
	}
	p := porter{b: w, k: len(w) - 1}
	p.step1ab()
	if p.k > 0 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return p.b[:p.k+1]
}

// porter follows the reference implementation: b[0..k] is the word being
// stemmed and j marks the end of the stem left by the last suffix test.
type porter struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant: not a vowel, and a y only
// when it follows a vowel or starts the word.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m counts the vowel-consonant sequences in b[0..j]: the word's "measure".
func (p *porter) m() int {
	n, i := 0, 0
	for {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

func (p *porter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

func (p *porter) doubleCons(i int) bool {
	return i >= 1 && p.b[i] == p.b[i-1] && p.cons(i)
}

// cvc reports consonant-vowel-consonant ending at i, the last consonant not
// w, x or y: where a removed e is restored (hop(e) versus hope).
func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	switch p.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with s, and if so sets j before it.
func (p *porter) ends(s string) bool {
	l := len(s)
	if l > p.k+1 || string(p.b[p.k-l+1:p.k+1]) != s {
		return false
	}
	p.j = p.k - l
	return true
}

// setTo replaces b[j+1..k] with s.
func (p *porter) setTo(s string) {
	p.b = append(p.b[:p.j+1], s...)
	p.k = p.j + len(s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setTo(s)
	}
}

// step1ab removes plurals and -ed or -ing.
func (p *porter) step1ab() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setTo("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
		return
	}
	if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.k = p.j
		switch {
		case p.ends("at"):
			p.setTo("ate")
		case p.ends("bl"):
			p.setTo("ble")
		case p.ends("iz"):
			p.setTo("ize")
		case p.doubleCons(p.k):
			p.k--
			switch p.b[p.k] {
			case 'l', 's', 'z':
				p.k++
			}
		default:
			p.j = p.k
			if p.m() == 1 && p.cvc(p.k) {
				p.setTo("e")
			}
		}
	}
}

// step1c turns a terminal y into i when there is another vowel in the stem.
func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

// suffixRule maps a suffix to its replacement.
type suffixRule struct{ suffix, to string }

// step2Rules and step3Rules are tried in order; the first suffix that
// matches decides, whether or not its condition then holds.
var step2Rules = []suffixRule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	{"logi", "log"},
}

var step3Rules = []suffixRule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

// step4Suffixes are removed when the measure is above 1; -ion only after
// s or t.
var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func (p *porter) step2() { p.rules(step2Rules) }
func (p *porter) step3() { p.rules(step3Rules) }

// rules applies the first rule whose suffix matches among those sharing
// the reference implementation's switch on a letter near the end: the
// longest match, since no rule's suffix ends another rule's with the same
// letter unless it comes first.
func (p *porter) rules(rs []suffixRule) {
	for _, r := range rs {
		if p.ends(r.suffix) {
			p.r(r.to)
			return
		}
	}
}

func (p *porter) step4() {
	for _, s := range step4Suffixes {
		if !p.ends(s) {
			continue
		}
		if s == "ion" && (p.j < 0 || (p.b[p.j] != 's' && p.b[p.j] != 't')) {
			return
		}
		if p.m() > 1 {
			p.k = p.j
		}
		return
	}
}

// step5 removes a final -e and reduces a final -ll when the measure allows.
func (p *porter) step5() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		if a := p.m(); a > 1 || (a == 1 && !p.cvc(p.k-1)) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doubleCons(p.k) && p.m() > 1 {
		p.k--
	}
}
