package secrets

import (
	"strings"
	"testing"
)

// Documentation shows where a secret goes without one: a placeholder in
// angle brackets, a variable, an elided token, x's. Ingesting docs must
// store them as written.
func TestScrubLeavesPlaceholders(t *testing.T) {
	for _, clean := range []string{
		"Its calls carry `Authorization: Bearer <token>` on every request.",
		"curl -H \"Authorization: Bearer $TOKEN\" https://memory.example.com/rpc",
		"curl -H \"Authorization: Bearer ${OPENHUMAN_TOKEN}\" https://memory.example.com/rpc",
		"Authorization: Bearer oh_… (the token token new printed)",
		"Authorization: Bearer sk-...abcd",
		"Authorization: Bearer xxxxxxxxxxxxxxxxxxxx",
		"Authorization: Bearer XXXXXXXXXXXXXXXXXXXXXXXX",
		"Authorization: Bearer your_token_here",
		"Send `Bearer <your-access-token>` as the header.",
		"password=your-password-here",
		"OPENHUMAN_API_TOKEN=oh_…",
	} {
		if out, kinds := Scrub(clean); out != clean || len(kinds) != 0 {
			t.Errorf("a placeholder was taken for a secret: %q → %q %v", clean, out, kinds)
		}
	}
}

// A redaction ends where the secret does: the rest of a code span, a
// quoted URL or a sentence is kept.
func TestScrubKeepsTextAfterTheSecret(t *testing.T) {
	secret := mixedRun(32)
	for _, tc := range []struct{ in, want string }{
		{"Send `Authorization: Bearer " + secret + "` on each call.",
			"Send `Authorization: Bearer [REDACTED:bearer_token]` on each call."},
		{"curl -H \"Authorization: Bearer " + secret + "\" https://example.com/rpc",
			"curl -H \"Authorization: Bearer [REDACTED:bearer_token]\" https://example.com/rpc"},
		{"(Authorization: token " + secret + ") was sent",
			"(Authorization: token [REDACTED:authorization]) was sent"},
		{"<Authorization: " + secret + ">", "<Authorization: [REDACTED:authorization]>"},
	} {
		if out, _ := Scrub(tc.in); out != tc.want {
			t.Errorf("in   %q\ngot  %q\nwant %q", tc.in, out, tc.want)
		}
	}
}

// A placeholder is told by what it lacks: a secret followed by an
// ellipsis, holding a run of x's among its random characters, or after
// "your_", is still a secret.
func TestScrubSecretsThatLookLikePlaceholdersInPart(t *testing.T) {
	secret := mixedRun(32)
	for _, in := range []string{
		"Authorization: Bearer " + secret + "... and then it failed",
		"I sent Bearer " + secret + "… and got a 401",
		"Authorization: Basic " + secret + "==...",
		"api_key=" + secret[:10] + "xXxX" + secret[10:],
		"Authorization: Bearer " + secret[:12] + "xxxx" + secret[12:],
		"api_key=yOuR_" + secret,
		"password=your-" + secret,
	} {
		if out, kinds := Scrub(in); strings.Contains(out, secret[12:24]) || len(kinds) == 0 {
			t.Errorf("a secret was taken for a placeholder: %q → %q %v", in, out, kinds)
		}
	}
}

// A variable is a placeholder; a secret that begins with a dollar or a
// percent sign is not.
func TestScrubVariablesAndSecretsWithADollar(t *testing.T) {
	for _, clean := range []string{
		"DB_PASSWORD=$DB_PASSWORD", "DB_PASSWORD=${DB_PASSWORD}", "password: $(cat /run/secrets/db)",
		"password=%DB_PASSWORD%", "password = $password", "API_KEY=$API_KEY_2",
	} {
		if out, kinds := Scrub(clean); out != clean || len(kinds) != 0 {
			t.Errorf("a variable was taken for a secret: %q → %q %v", clean, out, kinds)
		}
	}
	for _, secret := range []string{"DB_PASSWORD=$up3rS3cretPa55", "password=%h7Gq2zLp"} {
		if out, _ := Scrub(secret); out == secret {
			t.Errorf("a secret beginning with a sign was kept: %q", secret)
		}
	}
}
