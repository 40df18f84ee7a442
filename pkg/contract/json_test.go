package contract

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var jsonSamples = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`,
	`-12.5e+3`, `.5`, `+1`, `""`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"tab\there\"", `"\/"`,
	"\"\xff\xfe\"", `"unterminated`, `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`, `{}`, `{ }`,
	`{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":}`, `{"a":1 "b":2}`, `{"a":[1,{"b":null}],"c":"d"}`,
	` {"hits":[],"mode":"hybrid"} `, `{"a":1}}`, `[1]]`, `{"a":1]`, `[1}`, `1 2`, "\n[\r\n1\t]\n",
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	// The nesting limit, kept out of the fuzz seeds: the fuzzer spends
	// its time shrinking such large inputs instead of trying new ones.
	deep := []string{
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	}
	for _, s := range append(deep, jsonSamples...) {
		if got, want := ValidJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("ValidJSON(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		json string
		want bool
	}{
		{strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth), false},
		{strings.Repeat("[", MaxJSONDepth+1) + strings.Repeat("]", MaxJSONDepth+1), true},
		{strings.Repeat(`{"a":`, MaxJSONDepth+1) + "1" + strings.Repeat("}", MaxJSONDepth+1), true},
		{strings.Repeat("[", MaxJSONDepth+1), true}, // unterminated, but too deep first
		{"[x" + strings.Repeat("[", MaxJSONDepth+1), false},
		{`{"a":`, false},
		{``, false},
	} {
		if got := TooDeep([]byte(tc.json)); got != tc.want {
			t.Errorf("TooDeep(%.40q…) = %v, want %v", tc.json, got, tc.want)
		}
		if TooDeep([]byte(tc.json)) && ValidJSON([]byte(tc.json)) {
			t.Errorf("%.40q… is valid and too deep", tc.json)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := ValidJSON(b), json.Valid(b); got != want {
			t.Fatalf("ValidJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkJSON(b *testing.B) {
	hit := `{"id":"db445975cd665f03758cd94e70fffc9f","kind":"learning","text":"Note 1706: kalo anqutin fedorfe sarensa todortin qulo quvel tinberfe issavel quanmi oxis satoox.","meta":{"source":"agent","provenance":"rpc","learning_kind":"fact","observed_at":"2026-11-30T09:19:10.408Z","created_at":"2026-11-30T09:19:10.408Z"},"score":0.031754032258064516,"confidence":0.8}`
	doc := []byte(`{"hits":[` + strings.Repeat(hit+",", 9) + hit + `],"mode":"hybrid"}`)
	b.SetBytes(int64(len(doc)))
	b.Run("ValidJSON", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ValidJSON(doc)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			json.Valid(doc)
		}
	})
	b.Run("IndentJSON", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			IndentJSON(doc)
		}
	})
	b.Run("AppendIndentedString", func(b *testing.B) {
		buf := make([]byte, 0, 3*len(doc))
		for i := 0; i < b.N; i++ {
			AppendIndentedString(buf[:0], doc)
		}
	})
	b.Run("json.Indent", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var buf bytes.Buffer
			_ = json.Indent(&buf, doc, "", "  ")
		}
	})
}

func TestIndentJSONAgreesWithEncodingJSON(t *testing.T) {
	samples := append([]string{`{"hits":[{"id":"a","meta":{"tags":[]},"score":0.5}],"mode":"hybrid"}`,
		`  [1, [ ], { }, {"a" : [true,false,null]}, "x\"y\\\\"]  ` + "\n", `"just a string"`, `-1.5e3`,
		"{\"t\":\"line\u2028para\u2029 <b>&amp; caf\u00e9 \xff\xc3 \\u0001\\n\\\"\"}\t\r\n ", `{"a":{"b":[{}]}}`},
		jsonSamples...)
	for _, s := range samples {
		checkIndent(t, []byte(s))
	}
}

// Strings are scanned eight bytes at a time: each kind of byte that ends
// a run of plain text, at every place in and around a word of eight.
func TestStringRunsAgreeWithEncodingJSON(t *testing.T) {
	for _, stop := range []string{`\"`, `\\`, `\n`, `\u00e9`, "\x01", "\x1f", "\x7f", "\u00e9", "\u2028", "\xff", "\xe2\x80", "\U0001F600", `"`} {
		for n := range 20 {
			plain := strings.Repeat("a", n)
			for _, s := range []string{`"` + plain + stop + plain + `"`, `{"` + plain + `":["` + stop + plain + stop + `",1.5e-7]}`} {
				checkIndent(t, []byte(s))
				if got, want := ValidJSON([]byte(s)), json.Valid([]byte(s)); got != want {
					t.Fatalf("ValidJSON(%q) = %v, json.Valid says %v", s, got, want)
				}
			}
		}
	}
}

func checkIndent(t *testing.T, b []byte) {
	t.Helper()
	got, ok := IndentJSON(b)
	var want bytes.Buffer
	err := json.Indent(&want, b, "", "  ")
	if ok != (err == nil) {
		t.Fatalf("IndentJSON(%q) ok = %v, json.Indent error %v", b, ok, err)
	}
	if ok && !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("IndentJSON(%q) =\n%s\njson.Indent gives\n%s", b, got, want.Bytes())
	}
	if ok {
		quoted, _ := Marshal(string(got))
		if fused := AppendIndentedString([]byte("x"), b); !bytes.Equal(fused[1:], quoted) || fused[0] != 'x' {
			t.Fatalf("AppendIndentedString(%q) =\n%s\nMarshal of IndentJSON gives\n%s", b, fused[1:], quoted)
		}
	} else {
		AppendIndentedString(nil, b) // any input: no panic
	}
}

func FuzzIndentJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkIndent(t, b) })
}
