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
