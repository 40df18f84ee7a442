package console

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
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
// search, its words and filters as they were typed.
func TestSearchLinksKeepTheSearch(t *testing.T) {
	d := &memoryData{Query: url.Values{"q": {"coffee & tea"}, "mode": {"keyword"}}, Q: "coffee & tea", Searching: true,
		Items: []hit{{ID: "abc", Text: "Tea."}}, Next: "c/1"}
	var b bytes.Buffer
	if err := pages["memory"].ExecuteTemplate(&b, "layout", view{Data: d}); err != nil {
		t.Fatal(err)
	}
	want := `href="/console/memory?cursor=c%2F1&amp;mode=keyword&amp;q=coffee&#43;%26&#43;tea"`
	if !strings.Contains(b.String(), want) {
		t.Errorf("no link %s in\n%s", want, b.String())
	}
}
