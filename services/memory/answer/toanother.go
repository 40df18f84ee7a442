package answer

import (
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// ToAnother reports whether text is a line said by the one person the
// question names, which tells of what the question asks only in
// sentences said to another: "Caroline: That charity race sounds great,
// Mel! I'm proud of you." tells what Mel did, not what Caroline realized
// after her charity race.
func (a Asked) ToAnother(text string) bool {
	if len(a.names) != 1 || len(a.rest) == 0 || slices.ContainsFunc(a.rest, saying) {
		return false
	}
	m := label.FindStringSubmatch(text)
	if m == nil || !strings.EqualFold(m[len(m)-1], a.names[0].name) {
		return false
	}
	body := text[len(m[0]):]
	told := false
	start := 0
	for _, loc := range append(sentenceEnd.FindAllStringIndex(body, -1), []int{len(body), len(body)}) {
		words := lexicon.Words(body[start:loc[1]])
		start = loc[1]
		if !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(a.rest, lexicon.Stem(w)) }) {
			continue
		}
		if slices.ContainsFunc(words, ofSpeaker) || !slices.ContainsFunc(words, toListener) {
			return false // of the speaker too ("I wanted to tell you about my school event")
		}
		told = true
	}
	return told
}

func ofSpeaker(w string) bool {
	return lexicon.FirstPersonWord(w) || lexicon.Ours(w) || w == "we" || w == "us"
}

func toListener(w string) bool { return w == "you" || w == "your" || w == "yours" }

// sayingStems are the verbs by which a question asks what someone said
// to another ("What does Nate suggest for butter?"): a line said to
// another answers it.
var sayingStems = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("say says said suggest suggests suggested recommend recommends recommended advise advised advice " +
		"tell tells told ask asks asked think thinks thought encourage encourages encouraged react reacted reaction respond responded response") {
		m[lexicon.Stem(w)] = true
	}
	return m
}()

func saying(stem string) bool { return sayingStems[stem] }
