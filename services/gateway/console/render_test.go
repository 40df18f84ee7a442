package console

import "testing"

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
