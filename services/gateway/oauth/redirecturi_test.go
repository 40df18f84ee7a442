package oauth

import "testing"

func TestCheckRedirectURI(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://app.example.com/cb":              true,
		"https://app.example.com:8443/cb?x=1;y=2": true, // ; in a query is a URI's own
		"http://127.0.0.1:9/cb":                   true,
		"http://[::1]:9/cb":                       true,
		"http://localhost/cb":                     true,
		"https://xn--bcher-kva.example/cb":        true,
		"https://a.example;script-src/cb":         false,
		"https://a.example;/cb":                   false,
		"https://a,b.example/cb":                  false,
		"https://a'b.example/cb":                  false,
		"https://a(b).example/cb":                 false,
		"https://a$b.example/cb":                  false,
		"https://-a.example/cb":                   false,
		"https://a.example/c b":                   false,
		"https://a.example/c\"b":                  false,
		"https://a.example/é":                     false,
		"https://a.example/%C3%A9":                true,
		"https://%C3%A9.example/cb":               false,
		"http://[fe80::1%25eth0]:9/cb":            false,
	} {
		if got := checkRedirectURI(raw) == ""; got != ok {
			t.Errorf("%q: taken %v, want %v (%s)", raw, got, ok, checkRedirectURI(raw))
		}
	}
	if matchRedirect([]string{"https://a.example;script-src/cb"}, "https://a.example;script-src/cb") {
		t.Error("a URI registered before the check matched")
	}
}
