package lexicon

import "slices"

// kinds maps a word a question uses for a kind of thing in a person's life
// to the words notes use for its members or for the same role: asked
// "What is my job?", memory holds "I work as a nurse"; asked "Who is my
// manager?", "My boss is Karen" (those of people and pets come from
// relationWords and petWords).
// WordNet does not bridge these: "nurse"
// is no hyponym of "job", "dog" none of "pet", and its hyponyms in full
// were noise on both evaluations (a "pet" has hundreds). The list stays
// short and about a person's own life, which is what memory is asked.
// A member that as often names something else is left out: a "photo
// album" is no music, a "business partner" no wife.
// "career" is not in it: on LoCoMo's design half it found turns about
// work for questions about a "career path" and answered one unanswerable
// question.
var kinds = map[string][]string{
	"job":        {"work", "works", "worked", "working"},
	"jobs":       {"work", "works", "worked", "working"},
	"profession": {"work", "works", "job"},
	"occupation": {"work", "works", "job"},
	"employer":   {"work", "works", "job"},
	"music":      {"band", "song", "songs"},
	// "My son Leo has piano lessons" for "What instrument does Leo
	// play?": WordNet puts a piano three levels under instrument.
	"instrument":  instruments,
	"instruments": instruments,
	// "My GP is Dr. Okafor" for "Who is my doctor?": WordNet's doctor
	// has no GP among its hyponyms.
	"doctor": {"gp", "physician"},
	// Where one lives is told by an address: "Our new address is 12 Rua
	// Augusta" for "Where do I live?" (answer.Ask takes it for a home
	// address, which an email address is not).
	"live":  {"address"},
	"lives": {"address"},
	// A measure asked by its adjective or verb is told by its noun: "How
	// tall am I?" of "My height is 182 cm", "How much do I weigh?".
	"tall":   {"height"},
	"height": {"tall"},
	"weigh":  {"weight"},
	"weight": {"weigh", "weighs"},
}

var instruments = []string{"piano", "guitar", "violin", "cello", "drums", "flute", "ukulele", "saxophone",
	"trumpet", "clarinet", "harp", "keyboard", "bass"}

// Kinds returns the words notes use for the members or the role of the
// kind w names (see kinds; for the people of one's life, relatedPeople;
// for a pet, petKinds),
// nil for any other word. The slice is shared: callers must not change it.
func Kinds(w string) []string {
	if k, ok := kinds[w]; ok {
		return k
	}
	if w == "pet" || w == "pets" {
		return petKinds
	}
	return relatedPeople[w]
}

// idioms are runs of words that mean another word: "What do I do for a
// living?" asks about work, and "living" would find "I live in Portland".
var idioms = []struct {
	words []string
	means string
}{
	{[]string{"for", "a", "living"}, "work"},
	{[]string{"make", "a", "living"}, "work"},
}

// withIdioms returns words with each idiom's last word replaced by what
// the idiom means; words itself when it holds none. An idiom ends the
// words or is followed by a stopword ("for a living now"): "for a living
// room" is a room.
func withIdioms(words []string) []string {
	out, copied := words, false
	for _, id := range idioms {
		n := len(id.words)
		for i := n; i <= len(words); i++ {
			if slices.Equal(words[i-n:i], id.words) && (i == len(words) || stopwords[words[i]]) {
				if !copied {
					out, copied = slices.Clone(words), true
				}
				out[i-1] = id.means
			}
		}
	}
	return out
}
