package answer

import (
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// attributeHeads end the names of attributes that come in kinds, the kind
// said before them: a shoe size and a waist size, a phone number and a
// passport number, a home address and an email address.
var attributeHeads = map[string]bool{"size": true, "username": true, "password": true, "number": true,
	"address": true, "id": true, "account": true, "pin": true, "code": true, "plate": true, "model": true,
	"type": true, "email": true, "handle": true, "login": true}

// favourites name an attribute by what comes after them: a favorite book.
var favourites = map[string]bool{"favorite": true, "favourite": true, "fav": true}

// generic are words too wide to tell one attribute from another: "my
// favorite thing to do" may be any hobby.
var generic = map[string]bool{"thing": true, "things": true, "one": true, "kind": true, "sort": true, "type": true,
	"part": true, "way": true, "stuff": true}

// OtherAttribute reports whether text tells another attribute of the same
// kind than the question asks for, and not that one: "My shoe size is
// 10.5" is no waist size, "My favorite season is autumn" no favorite
// book, "My email address is …" no home address, "My cat's name is Miso"
// no dog's name, nor mine. A note that names the
// attribute without its kind ("My size is M") may still answer.
// akin, when not nil, tells two kinds' words that mean the same
// ("telephone", "landline").
func (a Asked) OtherAttribute(text string, akin func(a, b string) bool) bool {
	asked := a.attrs
	if len(asked) == 0 && a.families == 0 {
		return false
	}
	tw := lexicon.Words(text)
	if told := families(tw); a.families != 0 && told != 0 && a.families&told == 0 {
		// It tells only attributes of other families: a network's name
		// is no password, a username no PIN.
		return true
	}
	told := attributes(tw)
	for head, kinds := range asked {
		said, ok := told[head]
		if !ok {
			continue
		}
		// Whose name is no meaning's likeness: a dog is akin to a cat.
		like := func(k, s string) bool {
			return sameKind(k, s) || head == "name" && lexicon.SameOne(k, s) || head != "name" && akin != nil && akin(k, s)
		}
		if !slices.ContainsFunc(kinds, func(k string) bool {
			return slices.ContainsFunc(said, func(s string) bool { return like(k, s) })
		}) {
			return true
		}
	}
	return false
}

// family is a bit per family of attributes: what a head is asked or told
// of. A head may be of two ("email": an address, and a login).
type family uint8

const (
	secretFamily family = 1 << iota
	loginFamily
	numberFamily
	addressFamily
	nameFamily
	sizeFamily
	modelFamily
)

// headFamilies are the heads of the families. Heads too wide to tell one
// family from another ("type", "code": a zip code is part of an address)
// are none.
var headFamilies = map[string]family{"password": secretFamily, "passwords": secretFamily, "pin": secretFamily,
	"passcode": secretFamily, "passphrase": secretFamily, "username": loginFamily, "login": loginFamily,
	"handle": loginFamily, "account": loginFamily | numberFamily, "email": addressFamily | loginFamily,
	"address": addressFamily, "id": numberFamily | loginFamily, "number": numberFamily, "plate": numberFamily,
	"name": nameFamily, "size": sizeFamily, "model": modelFamily}

// families are the families of the attributes words name, "called" or
// "named" before a word that may be a name among them ("The home Wi-Fi
// network is called Sunflower5G"; not "I called the dentist").
func families(words []string) family {
	var f family
	for i, w := range words {
		f |= headFamilies[w]
		if (w == "called" || w == "named") && i+1 < len(words) && !lexicon.Stopword(words[i+1]) {
			f |= nameFamily
		}
	}
	return f
}

// attributes are the attributes words name, by head ("size", or
// "favorite"), each with the words that may say its kind: the word
// before the head, and the two before it joined ("wi fi" is "wifi"), or
// for a favourite the word after it.
func attributes(words []string) map[string][]string {
	out := map[string][]string{}
	for i, w := range words {
		if w == "email" && (i+1 == len(words) || words[i+1] != "address") {
			// An email is an email address: "I changed my personal email
			// to alex.home@…" tells no home address.
			out["address"] = append(out["address"], "email")
		}
		switch {
		case favourites[w] && i+1 < len(words):
			if k := words[i+1]; !lexicon.Stopword(k) && !generic[k] {
				out["favorite"] = append(out["favorite"], k)
			}
		case w == "name":
			if o := owner(words, i); o != "" {
				out["name"] = append(out["name"], o)
			}
		case attributeHeads[w] && i > 0:
			k := words[i-1]
			if lexicon.Stopword(k) || k == "s" || lexicon.IsSymbol(k) || k[0] >= '0' && k[0] <= '9' {
				continue
			}
			if when[k] {
				continue // "my current number" asks for a phone number
			}
			if determined(words, i-1) {
				out[w] = append(out[w], k)
			}
			if i > 1 && !lexicon.Stopword(words[i-2]) && determined(words, i-2) {
				out[w] = append(out[w], words[i-2]+k)
			}
		}
	}
	for i, w := range words[:max(0, len(words)-2)] {
		if w == "address" && out[w] == nil && words[i+1] == "is" && words[i+2][0] >= '0' && words[i+2][0] <= '9' {
			// An address of no kind said that starts with a number is a
			// home's: "Our new address is 12 Rua Augusta" is no email.
			out[w] = []string{"home"}
		}
	}
	return out
}

// owner is whose name words[i] is: "my" for "my name" or "my last
// name", "dog" for "my dog's name" or "the name of my dog"; "" when it
// says no one's ("a name").
func owner(words []string, at int) string {
	i := at
	for i > 0 && nameParts[words[i-1]] {
		i--
	}
	switch {
	case i >= 2 && words[i-1] == "s":
		return words[i-2]
	case i >= 1 && lexicon.Ours(words[i-1]):
		return "my"
	case at+2 < len(words) && words[at+1] == "of":
		j := at + 2
		for j+1 < len(words) && (determiners[words[j]] || words[j+1] == "s") {
			j++
		}
		if !lexicon.Stopword(words[j]) {
			return words[j]
		}
	}
	return ""
}

// nameParts are the parts of a name said before it: "my last name".
var nameParts = map[string]bool{"first": true, "last": true, "middle": true, "full": true, "maiden": true,
	"given": true, "family": true, "nick": true, "real": true}

// when are words before a head that tell when it held, not its kind.
var when = map[string]bool{"current": true, "new": true, "old": true, "latest": true, "previous": true,
	"former": true, "present": true, "usual": true, "own": true, "actual": true}

// determined reports whether words[i] opens a noun phrase, after "my",
// "the", "Grandma's" or at the start: a kind said before a head ("my
// shoe size"), not a verb before it ("My son wears size 4 shoes").
func determined(words []string, i int) bool {
	return i == 0 || determiners[words[i-1]]
}

var determiners = map[string]bool{"my": true, "our": true, "your": true, "his": true, "her": true, "their": true,
	"its": true, "the": true, "a": true, "an": true, "s": true, "this": true, "that": true, "new": true, "old": true}

// sameKind reports whether two words say the same kind of an attribute:
// the same word up to its ending or a typo, one ending in the other
// ("telephone", "phone"), or one a kind of the other ("job" and "work").
func sameKind(a, b string) bool {
	sa, sb := lexicon.Stem(a), lexicon.Stem(b)
	switch {
	case sa == sb || lexicon.Near(sa, sb):
		return true
	case len(a) >= 4 && len(b) >= 4 && (strings.HasSuffix(a, b) || strings.HasSuffix(b, a)):
		return true
	}
	return slices.Contains(lexicon.Kinds(a), b) || slices.Contains(lexicon.Kinds(b), a)
}
