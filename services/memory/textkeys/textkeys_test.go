package textkeys

import (
	"fmt"
	"testing"
)

// Pairs from Porter's published vocabulary and its stemmed output.
func TestPorterStem(t *testing.T) {
	for w, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "generalizations": "gener", "oscillators": "oscil", "retrieval": "retriev",
		"controlling": "control", "rolls": "roll", "adjustment": "adjust", "adoption": "adopt",
		"effective": "effect", "hopeful": "hope", "goodness": "good", "electrical": "electr",
		"retaining": "retain", "retained": "retain", "deployments": "deploy", "deploys": "deploi",
		"deploying": "deploi", "billing": "bill", "is": "is", "a": "a",
	} {
		if got := string(porterStem([]byte(w))); got != want {
			t.Errorf("porterStem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestTokenizer(t *testing.T) {
	var tok Tokenizer
	var got []string
	tok.Each("Café DÉPLOYMENTS, naïve_x2 Straße 42 日本語 e\u0301te", func(k []byte) { got = append(got, string(k)) })
	want := "[cafe deploy naiv x2 straße 42 日本語 et]"
	if fmt.Sprint(got) != want {
		t.Errorf("tokens %v, want %s", got, want)
	}
	// A symbol (an emoji) is a token of its own, even when it touches a
	// word; a skin tone or variation selector is not part of it.
	got = got[:0]
	tok.Each("launch🚀day 👍🏽 ✅️", func(k []byte) { got = append(got, string(k)) })
	if want := "[launch 🚀 dai 👍 ✅]"; fmt.Sprint(got) != want {
		t.Errorf("tokens %v, want %s", got, want)
	}
	if keys := Keys([]string{"Deploying", "deploys", "CAFÉ"}); fmt.Sprint(keys) != "[deploi cafe]" {
		t.Errorf("Keys = %v", keys)
	}
}

// A British spelling and its American form are one key, in every
// inflection the stemmer folds together; a word that only looks like one
// is left alone.
func TestSpellings(t *testing.T) {
	for _, p := range [][2]string{
		{"favourite colour", "favorite color"}, {"organised", "organized"}, {"organising", "organizing"},
		{"the theatre's centre", "the theater's center"}, {"analysed", "analyzed"}, {"neighbours", "neighbors"},
		{"grey", "gray"}, {"licence", "license"}, {"Colours", "colors"},
	} {
		if b, a := Keys([]string{p[0]}), Keys([]string{p[1]}); fmt.Sprint(b) != fmt.Sprint(a) {
			t.Errorf("%q: keys %v, %q: %v", p[0], b, p[1], a)
		}
	}
	for _, p := range [][2]string{{"hour", "hor"}, {"four", "for"}, {"tour", "tor"}, {"your", "yor"}} {
		if b, a := Keys([]string{p[0]}), Keys([]string{p[1]}); fmt.Sprint(b) == fmt.Sprint(a) {
			t.Errorf("%q and %q are one key %v", p[0], p[1], b)
		}
	}
	if len(spellings) != len(british) {
		t.Errorf("%d of %d pairs differ in their keys: the stemmer makes the rest one already, or another pair is of the same key", len(spellings), len(british))
	}
}

// A turn of a conversation as the index reads it, every word a key.
func BenchmarkTokenizer(b *testing.B) {
	const text = `Hey Caroline! I went to the support group yesterday and it was so powerful, I'm organising another one next month at the community centre.`
	var tok Tokenizer
	n := 0
	for b.Loop() {
		tok.Each(text, func(k []byte) { n += len(k) })
	}
	if n == 0 {
		b.Fatal("no keys")
	}
}
