package bert

import (
	"slices"
	"strings"
	"testing"
)

func mustTestTokenizer(tb testing.TB) *Tokenizer {
	tb.Helper()
	t, err := ReadVocab(strings.NewReader(strings.Join(testVocab(), "\n")))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// tokenizerCases cover what BERT's basic tokenization does: case, accents,
// punctuation, CJK, digits, control characters, odd spaces, unknown
// letters and words, and a text too long to read whole.
var tokenizerCases = []struct{ a, b string }{
	{a: "The weather is lovely today."},
	{a: "It's so sunny outside!"},
	{a: "He drove to the stadium."},
	{a: "How many people live in Berlin?", b: "Berlin had a population of 3,520,031 registered inhabitants in an area of 891.82 square kilometers."},
	{a: "How many people live in Berlin?", b: "Berlin is well known for its museums."},
	{a: "Café naïve résumé — CAFÉ, Naïve; RÉSUMÉ…"},
	{a: "running walked jumps quickly happier unbelievable"},
	{a: "internationalization tokenizer tokenizers tokenization"},
	{a: "quiz zebra (q and z are not in the vocabulary)"},
	{a: "你好，北京！东京的人 and 日本人"},
	{a: "price: $100.00 at 3pm; e-mail me@example.org #tag ^_^ `code` ~home {x} [y] |z|"},
	{a: "tabs\tand\nnew lines\r\nand\u00a0no-break\u2003em spaces"},
	{a: "zero\u200bwidth, soft\u00adhyphen, control\u0007bell \ufffd replaced"},
	{a: "Москва и Київ 🙂 emoji"},
	{a: "   "},
	{a: ""},
	{a: strings.Repeat("memory search model vector ", 40)},
	{a: "a question?", b: strings.Repeat("the answer is long ", 30)},
	{a: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa long word"},
}

// TestTokenizerMatchesHuggingFace compares token ids and types with Hugging
// Face's tokenizer in JavaScript on the same vocabulary, given as the
// tokenizer.json a BERT uncased checkpoint carries.
func TestTokenizerMatchesHuggingFace(t *testing.T) {
	tools := modelTools(t)
	tok := mustTestTokenizer(t)
	var want []struct{ IDs, Types []int32 }
	runNode(t, tools, "tokenize.mjs", map[string]any{
		"tokenizer": tokenizerJSON(testVocab()),
		"config":    map[string]any{"do_lower_case": true, "model_max_length": 512},
		"cases":     jsonCases(),
	}, &want)
	if len(want) != len(tokenizerCases) {
		t.Fatalf("%d answers for %d cases", len(want), len(tokenizerCases))
	}
	for i, c := range tokenizerCases {
		got := tok.Encode(c.a, 1<<20)
		if c.b != "" {
			got = tok.EncodePair(c.a, c.b, 1<<20)
		}
		if !slices.Equal(got.IDs, want[i].IDs) || !slices.Equal(got.Types, want[i].Types) {
			t.Errorf("%.40q %.40q:\n got %v %v\nwant %v %v", c.a, c.b, got.IDs, got.Types, want[i].IDs, want[i].Types)
		}
		checkTruncation(t, tok, c.a, c.b, want[i].IDs)
	}
}

func jsonCases() []map[string]string {
	out := make([]map[string]string, len(tokenizerCases))
	for i, c := range tokenizerCases {
		out[i] = map[string]string{"a": c.a}
		if c.b != "" {
			out[i]["b"] = c.b
		}
	}
	return out
}

// checkTruncation cuts the reference's ids as Hugging Face's tokenizers
// cut them at 32 tokens (single texts at the end; pairs longest first)
// and compares.
func checkTruncation(t *testing.T, tok *Tokenizer, a, b string, full []int32) {
	const maxLen = 32
	if b == "" {
		want := full
		if len(full) > maxLen {
			want = append(slices.Clone(full[:maxLen-1]), full[len(full)-1])
		}
		if got := tok.Encode(a, maxLen).IDs; !slices.Equal(got, want) {
			t.Errorf("%.40q cut to %d:\n got %v\nwant %v", a, maxLen, got, want)
		}
		return
	}
	sep := slices.Index(full, tok.sep)
	x, y := slices.Clone(full[1:sep]), slices.Clone(full[sep+1:len(full)-1])
	for len(x)+len(y) > maxLen-3 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	want := slices.Concat([]int32{tok.cls}, x, []int32{tok.sep}, y, []int32{tok.sep})
	if got := tok.EncodePair(a, b, maxLen).IDs; !slices.Equal(got, want) {
		t.Errorf("%.40q %.40q cut to %d:\n got %v\nwant %v", a, b, maxLen, got, want)
	}
}

// tokenizerJSON is the tokenizer.json of a BERT uncased checkpoint with
// vocab as its vocabulary.
func tokenizerJSON(vocab []string) map[string]any {
	ids := map[string]int{}
	for i, t := range vocab {
		ids[t] = i
	}
	var added []map[string]any
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		added = append(added, map[string]any{"id": ids[s], "content": s, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	special := func(s string, typ int) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": s, "type_id": typ}}
	}
	seq := func(s string, typ int) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": s, "type_id": typ}}
	}
	return map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer": map[string]any{"type": "BertNormalizer", "clean_text": true,
			"handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single": []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)},
			"pair":   []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{ids["[CLS]"]}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{ids["[SEP]"]}, "tokens": []string{"[SEP]"}},
			}},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]",
			"continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
	}
}

func TestTokenizerPieces(t *testing.T) {
	tok := mustTestTokenizer(t)
	piece := func(s string) string {
		var out []string
		inv := map[int32]string{}
		for w, id := range tok.vocab {
			inv[id] = w
		}
		for _, id := range tok.Tokenize(s) {
			out = append(out, inv[id])
		}
		return strings.Join(out, " ")
	}
	for in, want := range map[string]string{
		"Café, naïve!":   "cafe , naive !",
		"tokenizers":     "tokenizer ##s",
		"quiz":           "[UNK]",
		"北京the":          "北 京 the",
		"runnings":       "running ##s",
		"":               "",
		"inter national": "int ##er n ##a ##tion ##al",
	} {
		if got := piece(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
