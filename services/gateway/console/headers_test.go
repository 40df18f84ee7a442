package console

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A client's redirect origin reaches the consent page's CSP only as a
// source expression: nothing in it can start a directive or a source.
func TestAllowFormTarget(t *testing.T) {
	for origin, want := range map[string]string{
		"https://app.example.com":           "https://app.example.com",
		"http://127.0.0.1:9":                "http://127.0.0.1:9",
		"http://[::1]:33418":                "http://[::1]:33418",
		"https://a.example;script-src":      "",
		"https://a.example;":                "",
		"https://a.example,b.example":       "",
		"https://a.example 'unsafe-inline'": "",
		"https://a'b.example":               "",
		"javascript://a.example":            "",
		"https://a.example/path":            "",
		"https://a.example:99999":           "",
	} {
		w := httptest.NewRecorder()
		allowFormTarget(w, origin)
		csp := w.Header().Get("Content-Security-Policy")
		switch {
		case want == "" && csp != "":
			t.Errorf("%q was written into the CSP: %s", origin, csp)
		case want != "" && !strings.Contains(csp, "form-action 'self' "+want+"; "):
			t.Errorf("%q: CSP %s, want form-action to name %s", origin, csp, want)
		}
	}
}
