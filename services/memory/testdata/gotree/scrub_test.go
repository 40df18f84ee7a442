package memory

import (
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	for _, tc := range []struct {
		name, in, secret, kind string
	}{
		{"openai key", "my key is sk-proj-abcdefghijklmnopqrstuvwxyz012345 ok", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "api_key"},
		{"github token", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "api_key"},
		{"aws access key", "AKIAIOSFODNN7EXAMPLE is the id", "AKIAIOSFODNN7EXAMPLE", "api_key"},
		{"slack", "xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "api_key"},
		{"bearer", "curl -H 'Authorization: Bearer abc.def-ghi_jkl~mno12345'", "abc.def-ghi_jkl~mno12345", "bearer_token"},
		{"jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiJ9", "jwt"},
		{"url password", "connect to postgres://app:hunter2@db.internal:5432/main", "hunter2", "url_password"},
		{"password assignment", "the wifi password: correct-horse-battery", "correct-horse-battery", "password"},
		{"env style", `AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, "wJalrXUtnFEMI", "password"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA", "private_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, kinds := Scrub(tc.in)
			if strings.Contains(out, tc.secret) {
				t.Errorf("secret survived: %q", out)
			}
			if !strings.Contains(out, "[REDACTED:"+tc.kind+"]") || len(kinds) == 0 {
				t.Errorf("got %q %v, want a %s redaction", out, kinds, tc.kind)
			}
		})
	}
	for _, clean := range []string{
		"The user prefers tabs over spaces.",
		"Deploy with `make deploy` after the password reset email goes out.",
		"See https://example.com/docs for the API key rotation policy.",
		"The token bucket refills every second.",
		"skiing in the alps with sk-team next winter",
	} {
		if out, kinds := Scrub(clean); out != clean || len(kinds) != 0 {
			t.Errorf("clean text changed: %q → %q %v", clean, out, kinds)
		}
	}
	out, _ := Scrub("postgres://app:hunter2@db:5432/x")
	if out != "postgres://app:[REDACTED:url_password]@db:5432/x" {
		t.Errorf("url kept wrong parts: %q", out)
	}
}
