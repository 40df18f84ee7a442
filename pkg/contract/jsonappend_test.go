package contract

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	want, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("AppendString(%q) = %s, Marshal gives %s", s, got[1:], want)
	}
}

func TestAppendStringAgreesWithMarshal(t *testing.T) {
	for _, stop := range []string{`"`, `\`, "\n", "\b", "\f", "\r", "\t", "\x00", "\x1f", "\x7f", "<>&", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀"} {
		for n := range 20 {
			plain := strings.Repeat("a", n)
			checkAppendString(t, plain+stop+plain)
			checkAppendString(t, stop+plain+stop+stop)
		}
	}
	checkAppendString(t, "")
}

func FuzzAppendString(f *testing.F) {
	f.Add("Note 7: the deploy decision for team 7 \"was\" recorded\n")
	f.Add("caf\u00e9 \u2028 \xff\xc3 <b>")
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

func checkAppendFloat(t *testing.T, f float64) {
	t.Helper()
	want, wantErr := Marshal(f)
	got, err := AppendFloat([]byte("x"), f)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("AppendFloat(%v) error %v, Marshal's %v", f, err, wantErr)
	}
	if err == nil && (!bytes.Equal(got[1:], want) || got[0] != 'x') {
		t.Fatalf("AppendFloat(%v) = %s, Marshal gives %s", f, got[1:], want)
	}
}

func TestAppendFloatAgreesWithMarshal(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.031754032258064516, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e-10, 1e-300,
		5e-324, 1e20, 1e21, 123456789e15, -1e21, math.MaxFloat64, 1.0 / 3, math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkAppendFloat(t, f)
	}
}

func FuzzAppendFloat(f *testing.F) {
	f.Add(0.031754032258064516)
	f.Add(1e-7)
	f.Fuzz(func(t *testing.T, x float64) { checkAppendFloat(t, x) })
}

func TestAppendMarshal(t *testing.T) {
	got, err := AppendMarshal([]byte(`{"result":`), map[string]any{"a": "<b>", "n": 1})
	if want := `{"result":{"a":"<b>","n":1}`; err != nil || string(got) != want {
		t.Fatalf("AppendMarshal = %s, %v; want %s", got, err, want)
	}
	if got, err := AppendMarshal([]byte("x"), math.NaN()); err == nil || string(got) != "x" {
		t.Fatalf("AppendMarshal(NaN) = %s, %v; want x and an error", got, err)
	}
}
