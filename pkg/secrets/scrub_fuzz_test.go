package secrets

import (
	"strings"
	"testing"
)

// plantable are secrets of every format Scrub knows without a key to name
// them; FuzzScrub hides one in random text and expects it gone.
var plantable = []string{
	ghToken, stripeKey, awsID, jwtToken, pemBlock, "4111111111111111", visaNumber,
	"sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2", "xoxb-" + "2194857392-Zx9Yw8Vu7Ts6Rq5",
	"github_pat_" + strings.Repeat("11ABCDEFG0", 5), "AIza" + "SyD-abcdefghijklmnopqrstuvwxyz01234",
	"hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "ya29." + "a0AfH6SMBx-Zq9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
	"GOCSPX-" + "1a2B3c4D5e6F7g8H9i0JkLmNoPqR", "dop_v1_" + strings.Repeat("a1b2c3d4", 8),
	"123456789:AA" + "Hdqtcvch1vGWJxfSeofSAs0K5PALDsaw", "shpat_" + strings.Repeat("0123456789abcdef", 2),
	"PMAK-" + "0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
	"https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	"hvs." + "CAESIZx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Zx9Yw8", "s." + "Hk5gQ9ZrLBmM6v0KJ1Vx2YtP",
}

func FuzzScrub(f *testing.F) {
	f.Add("DB_PASSWORD=hunter2 and my password is hunter2", byte(0))
	f.Add("postgres://app:hunter2@db:5432/x Authorization: Bearer abcdefghijklmnopqrstuvwxyz", byte(3))
	f.Add(benchText, byte(7))
	f.Fuzz(func(t *testing.T, text string, pick byte) {
		out, kinds := Scrub(text)
		if again, _ := Scrub(out); again != out {
			t.Fatalf("not idempotent:\nonce  %q\ntwice %q", out, again)
		}
		if len(kinds) == 0 && out != text {
			t.Fatalf("changed without naming a kind: %q → %q", text, out)
		}
		if len(out) > len(text) && !strings.Contains(out, RedactedPrefix+":") {
			t.Fatalf("grew without a marker: %q → %q", text, out)
		}
		secret := plantable[int(pick)%len(plantable)]
		mid := len(text) / 2
		// The planted copy stands on its own line. A copy the fuzzer glued
		// to a word before it (0ghp_…) is not looked for: prefixes are
		// matched at the start of a word, so "task-" does not hold "sk-".
		planted := text[:mid] + "\n" + secret + "\n" + text[mid:]
		if out, _ := Scrub(planted); strings.Contains(out, "\n"+secret+"\n") {
			t.Fatalf("planted secret survived: %q", out)
		}
	})
}
