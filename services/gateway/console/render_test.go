package console

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

func TestCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"argument `kind` must be one of <these>":  "argument <code>kind</code> must be one of &lt;these&gt;",
		"run `openhuman-core token new NAME` now": "run <code>openhuman-core token new NAME</code> now",
		"a stray ` quote":                         "a stray ` quote",
		"`<script>alert(1)</script>`":             "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>",
		"no quotes & all":                         "no quotes &amp; all",
	} {
		if got := string(codeSpans(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestSearchLinksKeepTheSearch: the next page of a search is the same
// search, its words and filters as they were typed, and so is each hit's
// link, for its page to say why the search found it.
func TestSearchLinksKeepTheSearch(t *testing.T) {
	d := &memoryData{Query: url.Values{"q": {"coffee & tea"}, "mode": {"keyword"}}, Q: "coffee & tea", Searching: true,
		Items: []hit{{ID: "abc", Text: "Tea."}}, Next: "c/1"}
	var b bytes.Buffer
	if err := pages["memory"].ExecuteTemplate(&b, "layout", view{Data: d}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`href="/console/memory?cursor=c%2F1&amp;mode=keyword&amp;q=coffee&#43;%26&#43;tea"`,
		`href="/console/memory/item?id=abc&amp;mode=keyword&amp;q=coffee&#43;%26&#43;tea"`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no link %s in\n%s", want, b.String())
		}
	}
}

func TestWordBreaks(t *testing.T) {
	for in, want := range map[string]string{
		"bm25":                "bm25",
		"coverage_in_context": "coverage_<wbr>in_<wbr>context",
		"closeness.text":      "closeness.<wbr>text",
		"<b>_&":               "&lt;b&gt;_<wbr>&amp;",
	} {
		if got := string(wordBreaks(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestWhyThisHit: an item page opened from a search says why it was
// found, or why it cannot.
func TestWhyThisHit(t *testing.T) {
	score := 1.25
	search := memoryData{Query: url.Values{"q": {"coffee"}, "id": {"abc"}}, Q: "coffee", Searching: true}
	for _, tc := range []struct {
		name string
		why  *why
		want []string
	}{
		{"explained", &why{Search: search, Mode: "hybrid", Hit: &hit{ID: "abc", Score: &score, Explain: &contract.Explanation{Profile: "p1",
			Features: []contract.FeatureValue{{Name: "f_one", Phase: "second", Value: 0.5, Weight: 2.5}}}}},
			[]string{"rank profile <code>p1</code>", "<code>f_<wbr>one</code>", "1.2500</td>", `href="/console/memory?q=coffee"`}},
		{"not explained", &why{Search: search, Mode: "keyword", Hit: &hit{ID: "abc", Score: &score}}, []string{"scored it 1.2500; memory did not say from what"}},
		{"gone", &why{Search: search}, []string{"no longer finds this item"}},
		{"failed", &why{Search: search, Error: "argument `mode` is bad"}, []string{"could not be asked again: argument <code>mode</code> is bad"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := pages["item"].ExecuteTemplate(&b, "layout", view{Data: itemData{fullItem: &fullItem{}, Why: tc.why}}); err != nil {
				t.Fatal(err)
			}
			for _, want := range append(tc.want, "Why this hit") {
				if !strings.Contains(b.String(), want) {
					t.Errorf("no %s in\n%s", want, b.String())
				}
			}
		})
	}
}
