package answer

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// LacksPerson reports whether text is about someone other than the one
// the question asks about, as LacksName does for names: asked about "my
// mom" ("When is Mom's birthday?"), a note naming no mother or parent
// ("My birthday is August 21") does not answer; asked about me alone
// ("Am I allergic to cats?"), neither does a note only about another
// ("My wife is allergic to cats", "Priya's birthday is October 3", "The
// kids' dentist is Dr. Wong"). A note about no one ("The wifi is on the
// router") may answer either.
//
// named are the names memory gives relatives (RelativeNames: "My manager
// is Priya Shah"), by relation word: a note holding one of them holds
// the relative ("Priya's birthday is October 3" for "When is my
// manager's birthday?").
func (a Asked) LacksPerson(text string, named map[string][]string) bool {
	tw := lexicon.Words(text)
	if len(a.relatives) > 0 {
		holds := func(r string) bool {
			for i, w := range tw {
				if lexicon.SameOne(r, w) && inLaw(tw, i) == a.inLaw && !a.othersAt(tw, i) {
					return true
				}
			}
			for rel, names := range named {
				// The names are those of the relation alone ("My mom's
				// name is Linda"), no in-law's.
				if !a.inLaw && lexicon.SameOne(r, rel) && slices.ContainsFunc(names, func(n string) bool { return slices.Contains(tw, n) }) {
					return true
				}
			}
			return false
		}
		for _, either := range a.relatives {
			if !slices.ContainsFunc(either, holds) {
				return true
			}
		}
		return false
	}
	if !a.self {
		return false
	}
	return aboutAnother(text, tw, len(a.names) > 0, named, a.said)
}

// inLaw reports whether the relation word at i is said with "-in-law"
// ("mother-in-law"): another relative than the word alone.
func inLaw(words []string, i int) bool {
	return i+2 < len(words) && words[i+1] == "in" && words[i+2] == "law"
}

// othersAt reports whether the relative or pet at i is said as someone
// else's ("my neighbor's cat", "Jenna's dog") whom the question does not
// ask of: no answer to "What's my cat's name?"; or said without "my" in a
// note about another relative of mine ("My wife Sofia works as a nurse
// manager" is no answer to "Who is my manager?").
func (a Asked) othersAt(words []string, i int) bool {
	if i >= 2 && words[i-1] == "s" {
		owner := words[i-2]
		return owner != "user" && !lexicon.Stopword(owner) && !a.AsksOf(owner)
	}
	if mine(words, i, 2) {
		return false
	}
	for j := range words {
		if lexicon.Relative(words[j]) && j != i && mine(words, j, 2) && !a.AsksOf(words[j]) {
			return true
		}
	}
	return false
}

// mine reports whether the word at i is said after "my" or "our", at
// most within words before it ("my manager", "my best friend": 2).
func mine(words []string, i, within int) bool {
	return slices.ContainsFunc(words[max(0, i-within):i], lexicon.Ours)
}

// relativeNext reports whether a relative follows the word at i, a word
// between at most ("my wife", "my best friend").
func relativeNext(words []string, i int) bool {
	return i+1 < len(words) && lexicon.Relative(words[i+1]) || i+2 < len(words) && lexicon.Relative(words[i+2])
}

// relativesAsked are the relatives and pets a question asks about, each
// as the words any of which names them: a word said after "my" or "our",
// up to two words between ("my mother's birthday", "my current manager",
// "my dog's name"), or a relation said as a name ("Mom"). Each must be
// held by a note that answers: "my wife's boss" is not my boss. Two said
// with "and" or "or" ("my mom and dad") are one: either may be held.
func relativesAsked(qw []string, names []name) [][]string {
	var out [][]string
	last := -1
	for i, w := range qw {
		if !lexicon.Someone(w) || !mine(qw, i, 3) {
			continue
		}
		joined := last >= 0 && (i == last+2 && (qw[i-1] == "and" || qw[i-1] == "or") ||
			i == last+3 && (qw[i-2] == "and" || qw[i-2] == "or") && lexicon.Ours(qw[i-1]))
		if joined {
			out[len(out)-1] = append(out[len(out)-1], w)
		} else {
			out = append(out, []string{w})
		}
		last = i
	}
	for _, n := range names {
		if lexicon.Relative(n.name) {
			out = append(out, []string{n.name})
		}
	}
	return out
}

// aboutAnother reports whether a note speaks only of someone else: it
// names a relative, one by the name memory gives them (named: "Elena
// uses a Galaxy Tab" where my wife is Elena), or a person's possession
// ("Priya's") and holds no word of its writer's own ("I", "me", "we",
// "our", "user") but "my" or "our" before a relative ("My wife is
// allergic to cats"). A possession is not counted when the question names
// people (namesAsked), whose notes LacksName reads: "What did Ana tell me?"
// of "Ana's plan is delayed". A relative the question says (said: "Do
// I have a sister?") is the user's own matter, not another's.
func aboutAnother(text string, tw []string, namesAsked bool, named map[string][]string, said []string) bool {
	other := false
	saidOf := func(w string) bool {
		return slices.ContainsFunc(said, func(r string) bool { return lexicon.SameOne(r, w) })
	}
	for i, w := range tw {
		switch {
		case lexicon.Ours(w) && relativeNext(tw, i), w == "user" && i+2 < len(tw) && tw[i+1] == "s" && lexicon.Relative(tw[i+2]):
			// Said of the relative after it ("my wife", "my best
			// friend", "the user's wife"), not as the writer: the
			// relative counts when the loop reaches it.
		case lexicon.FirstPersonWord(w) || ownWords[w]:
			return false
		case lexicon.Relative(w) && !saidOf(w) || !namesAsked && relativeNamed(named, w, saidOf):
			other = true
		}
	}
	return other || !namesAsked && possessiveName(text)
}

// relativeNamed reports whether w is a name memory gives a relative (not
// a pet's: a note about my dog is of my life), but for one the question
// says (said).
func relativeNamed(named map[string][]string, w string, said func(string) bool) bool {
	for rel, names := range named {
		if lexicon.Relative(rel) && !said(rel) && slices.Contains(names, w) {
			return true
		}
	}
	return false
}

// ownWords say a note is its writer's beside the first person singular:
// "we", "our", and "user", as an assistant writes of the one it serves.
var ownWords = map[string]bool{"we": true, "us": true, "our": true, "ours": true, "ourselves": true, "user": true}

// possessiveName reports whether text says a capitalised name's
// possession ("Priya's birthday"), the name not a relation word.
func possessiveName(text string) bool {
	for _, f := range strings.Fields(text) {
		base, ok := possessor(f)
		if r, _ := utf8.DecodeRuneInString(base); ok && unicode.IsUpper(r) && !lexicon.Relative(strings.ToLower(base)) {
			return true
		}
	}
	return false
}

// RelativeNames are the names a text gives relatives and pets,
// lowercased, by relation word: "My manager is Priya Shah", "My son Leo
// is 5", "My wife, Anna, teaches", "Tom is my brother", "My wife's name
// is Elena", "Our dog is a golden retriever named Biscuit", "We have a
// cat named Mochi".
func RelativeNames(text string) map[string][]string {
	var out map[string][]string
	fields := strings.Fields(text)
	word := func(i int) string { return strings.ToLower(trimWord(fields[i])) }
	capital := func(i int) bool {
		r, _ := utf8.DecodeRuneInString(trimWord(fields[i]))
		return unicode.IsUpper(r)
	}
	// namesFrom are the capitalised words from i on, up to a clause's end.
	namesFrom := func(i int) []string {
		var ns []string
		for ; i < len(fields) && len(ns) < 3 && capital(i) && !lexicon.Relative(word(i)); i++ {
			if _, ok := possessor(fields[i]); ok {
				return nil // "my sister is Priya's best friend"
			}
			ns = append(ns, word(i))
			if strings.ContainsAny(fields[i][len(fields[i])-1:], ".,;:!?") {
				break
			}
		}
		return ns
	}
	// namesListFrom are the names listed from i on: "Ella and Noah",
	// "Ella (8), Noah (5) and Max", ages between them left out.
	namesListFrom := func(i int) []string {
		var ns []string
		for i < len(fields) {
			if w := word(i); w == "and" || w == "" || strings.Trim(fields[i], "(),0123456789") == "" {
				i++ // "and", or an age "(8)" or "(5)."
				if strings.ContainsAny(fields[i-1][len(fields[i-1])-1:], ".;:!?") {
					break
				}
				continue
			}
			n := namesFrom(i)
			if len(n) == 0 {
				break
			}
			ns = append(ns, n...)
			i += len(n)
			if strings.ContainsAny(fields[i-1][len(fields[i-1])-1:], ".;:!?") {
				break
			}
		}
		return ns
	}
	add := func(rel string, ns []string) {
		if len(ns) == 0 {
			return
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[rel] = append(out[rel], ns...)
	}
	// calledFrom are the names after "named" or "called" in the clause
	// from i on: "our dog is a golden retriever named Biscuit".
	calledFrom := func(i int) []string {
		for j := i; j < min(len(fields), i+8); j++ {
			if w := word(j); (w == "named" || w == "called") && j+1 < len(fields) {
				return namesFrom(j + 1)
			}
			if strings.ContainsAny(fields[j][len(fields[j])-1:], ".;:!?") {
				break
			}
		}
		return nil
	}
	for i := 0; i+2 < len(fields); i++ {
		w := word(i)
		if lexicon.Ours(w) {
			if base, ok := possessor(fields[i+1]); ok {
				// "My wife's name is Elena."
				if rel := strings.ToLower(base); lexicon.Someone(rel) && i+4 < len(fields) && word(i+2) == "name" && word(i+3) == "is" {
					add(rel, namesFrom(i+4))
				}
				continue
			}
			rel := word(i + 1)
			if !lexicon.Someone(rel) {
				continue
			}
			if ns := calledFrom(i + 2); ns != nil {
				add(rel, ns)
			} else if (word(i+2) == "is" || word(i+2) == "are") && i+3 < len(fields) {
				add(rel, namesListFrom(i+3))
			} else {
				add(rel, namesFrom(i+2))
			}
		}
		if (w == "a" || w == "an") && lexicon.Someone(word(i+1)) && !lexicon.Relative(word(i+1)) {
			// "We have a cat named Mochi."
			add(word(i+1), calledFrom(i+2))
		}
		if i+3 < len(fields) && capital(i) && word(i+1) == "is" && lexicon.Ours(word(i+2)) && lexicon.Relative(word(i+3)) {
			j := i
			for j > 0 && capital(j-1) && !strings.ContainsAny(fields[j-1][len(fields[j-1])-1:], ".,;:!?") {
				j--
			}
			add(word(i+3), namesFrom(j))
		}
	}
	return out
}
