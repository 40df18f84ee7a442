package secrets

import (
	"strings"
	"testing"
)

// formatRow is a realistic example of one format Scrub knows: the scan
// that finds it (a name in finders) and, for a scan driven by a table,
// the entry (a providerTokens prefix, a webhookPaths host).
type formatRow struct {
	finder, entry string
	in, want      string
}

// hexRun is n lowercase hex digits.
func hexRun(n int) string { return strings.Repeat("0a1b2c3d4e5f6789", n/16+1)[:n] }

// mixedRun is n letters of both cases and digits, as generated tokens are.
func mixedRun(n int) string { return strings.Repeat("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0", n/30+1)[:n] }

// tokenRow is a provider token found alone in a sentence.
func tokenRow(prefix, body, kind string) formatRow {
	return formatRow{finder: "provider_token", entry: prefix,
		in: "Found " + prefix + body + " in the log.", want: "Found [REDACTED:" + kind + "] in the log."}
}

// formatRows hold one row or more for every format: every entry of
// providerTokens and webhookPaths and every scan of finders. The secrets
// are built from parts, so that no scanner mistakes this file for a leak.
var formatRows = []formatRow{
	tokenRow("sk-", "proj-"+mixedRun(40), "api_key"),
	tokenRow("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc", "api_key"),
	tokenRow("sk_test_", "4eC39HqLyjWDarjtT1zdp7dc", "api_key"),
	tokenRow("rk_live_", mixedRun(24), "api_key"),
	tokenRow("rk_test_", mixedRun(24), "api_key"),
	tokenRow("whsec_", mixedRun(32), "api_key"),
	tokenRow("ghp_", mixedRun(36), "api_key"),
	tokenRow("gho_", mixedRun(36), "api_key"),
	tokenRow("ghu_", mixedRun(36), "api_key"),
	tokenRow("ghs_", mixedRun(36), "api_key"),
	tokenRow("ghr_", mixedRun(36), "api_key"),
	tokenRow("github_pat_", "11ABCDEFG0"+mixedRun(12)+"_"+mixedRun(59), "api_key"),
	tokenRow("glpat-", mixedRun(20), "api_key"),
	tokenRow("xoxa-", "2-"+mixedRun(20), "api_key"),
	tokenRow("xoxb-", "2194857392-4829105736-"+mixedRun(24), "api_key"),
	tokenRow("xoxe-", "1-"+mixedRun(40), "api_key"),
	tokenRow("xoxp-", "2194857392-2194857392-4829105736-"+hexRun(32), "api_key"),
	tokenRow("xoxr-", mixedRun(30), "api_key"),
	tokenRow("xoxs-", "2194857392-"+mixedRun(24), "api_key"),
	tokenRow("xapp-", "1-A0123456789-2194857392-"+hexRun(64), "api_key"),
	tokenRow("npm_", mixedRun(36), "api_key"),
	tokenRow("pypi-", "AgEIcHlwaS5vcmc"+mixedRun(60), "api_key"),
	tokenRow("hf_", mixedRun(34), "api_key"),
	tokenRow("AIza", "SyD-"+mixedRun(31), "api_key"),
	tokenRow("ya29.", "a0AfH6SMBx-"+mixedRun(40), "api_key"),
	tokenRow("GOCSPX-", mixedRun(28), "secret"),
	tokenRow("SG.", mixedRun(22)+"."+mixedRun(43), "api_key"),
	tokenRow("dop_v1_", hexRun(64), "api_key"),
	tokenRow("doo_v1_", hexRun(64), "api_key"),
	tokenRow("dor_v1_", hexRun(64), "api_key"),
	tokenRow("SK", hexRun(32), "api_key"),
	tokenRow("AC", hexRun(32), "api_key"),
	tokenRow("key-", mixedRun(32), "api_key"),
	tokenRow("shpat_", hexRun(32), "api_key"),
	tokenRow("shpca_", hexRun(32), "api_key"),
	tokenRow("shppa_", hexRun(32), "api_key"),
	tokenRow("shpss_", hexRun(32), "secret"),
	tokenRow("ATATT", "3xFfGF0"+mixedRun(60)+"=ABCD1234", "api_key"),
	tokenRow("PMAK-", hexRun(24)+"-"+hexRun(34), "api_key"),
	tokenRow("AKIA", "IOSFODNN7EXAMPLE", "aws_key"),
	tokenRow("ASIA", "Y34FZKBOKMUTVV7A", "aws_key"),
	tokenRow("hvs.", "CAESI"+mixedRun(40)+"Gh4KHGh2cy5"+mixedRun(28), "token"),
	tokenRow("hvb.", "AAAAAQ"+mixedRun(120), "token"),
	tokenRow("hvr.", mixedRun(24), "token"),
	tokenRow("s.", "Hk5gQ9ZrLBmM6v0KJ1Vx2YtP", "token"),
	{finder: "provider_token", entry: "eyJ", in: "Found " + jwtToken + " in the log.", want: "Found [REDACTED:jwt] in the log."},

	{finder: "webhook", entry: "hooks.slack.com", in: "posts to https://hooks.slack.com/services/" + "T00000000/B00000000/" + mixedRun(24),
		want: "posts to https://hooks.slack.com/services/[REDACTED:webhook]"},
	{finder: "webhook", entry: "discord.com", in: "posts to https://discord.com/api/webhooks/" + "123456789012345678/" + mixedRun(68),
		want: "posts to https://discord.com/api/webhooks/[REDACTED:webhook]"},
	{finder: "webhook", entry: "discordapp.com", in: "posts to https://discordapp.com/api/webhooks/" + "123456789012345678/" + mixedRun(68),
		want: "posts to https://discordapp.com/api/webhooks/[REDACTED:webhook]"},

	{finder: "pem", in: "key:\n" + pemBlock + "\n", want: "key:\n[REDACTED:private_key]\n"},
	{finder: "url_password", in: "DATABASE_URL is postgres://app:" + "hunter2" + "@db.internal:5432/shop",
		want: "DATABASE_URL is postgres://app:[REDACTED:url_password]@db.internal:5432/shop"},
	{finder: "authorization", in: "Authorization: Basic " + "YWRtaW46aHVudGVyMg==", want: "Authorization: Basic [REDACTED:authorization]"},
	{finder: "authorization", in: "curl -H 'X: y' with bearer " + mixedRun(32), want: "curl -H 'X: y' with bearer [REDACTED:bearer_token]"},
	{finder: "cookie", in: "Cookie: session=" + hexRun(24) + "; theme=dark", want: "Cookie: session=[REDACTED:cookie]; theme=[REDACTED:cookie]"},
	{finder: "telegram", in: "bot 123456789:AA" + "Hdqtcvch1vGWJxfSeofSAs0K5PALDsaw is live", want: "bot [REDACTED:api_key] is live"},
	{finder: "twilio", in: "Twilio console shows " + hexRun(32) + " today", want: "Twilio console shows [REDACTED:api_key] today"},
	{finder: "aws_secret", in: "aws s3 cp with " + awsSecret + " today", want: "aws s3 cp with [REDACTED:aws_key] today"},
	{finder: "assignment", in: "DB_PASSWORD=hunter2", want: "DB_PASSWORD=[REDACTED:password]"},
	{finder: "assignment", in: "DB_PASSWORD=my.secret.pass", want: "DB_PASSWORD=[REDACTED:password]"},
	{finder: "assignment", in: "passwd: hello.World1", want: "passwd: [REDACTED:password]"},
	{finder: "command_line", in: "sshpass -p hunter2 ssh host", want: "sshpass -p [REDACTED:password] ssh host"},
	{finder: "seed_phrase", in: "my seed phrase is " + seed12 + ". Keep it safe", want: "my seed phrase is [REDACTED:seed_phrase]. Keep it safe"},
	{finder: "card", in: "paid with " + visaNumber + " yesterday", want: "paid with [REDACTED:card_number] yesterday"},
}

// Every format Scrub knows has a row, and every row is redacted as it
// says: a format taken out of its table, or a scan out of finders, fails
// its row, and a format added without a row fails here.
func TestScrubFormats(t *testing.T) {
	has := map[string]bool{}
	for _, r := range formatRows {
		has[r.finder] = true
		has[r.finder+":"+r.entry] = true
	}
	for _, f := range finders {
		if !has[f.name] {
			t.Errorf("the scan %q has no row in formatRows", f.name)
		}
	}
	for _, p := range providerTokens {
		if !has["provider_token:"+p.prefix] {
			t.Errorf("the token format %q has no row in formatRows", p.prefix)
		}
	}
	for _, w := range webhookPaths {
		if !has["webhook:"+w.host] {
			t.Errorf("the webhook %s%s has no row in formatRows", w.host, w.path)
		}
	}
	for _, r := range formatRows {
		if r.entry != "" && r.finder == "provider_token" && !strings.Contains(r.in, " "+r.entry) {
			t.Errorf("the row of %q does not hold a token that starts with it: %q", r.entry, r.in)
		}
		if out, _ := Scrub(r.in); out != r.want {
			t.Errorf("%s %s:\n in  %q\n got  %q\n want %q", r.finder, r.entry, r.in, out, r.want)
		}
	}
}

// Names in code and words of prose that look like the Vault tokens'
// prefixes, and dotted values that are code or a file's name, stay.
func TestScrubFormatNearMisses(t *testing.T) {
	for _, clean := range []string{
		"return s.handleIncomingRequests(ctx)",
		"s.aaaaaaaaaaaaaaaaaaaaaaaa and s.ABCDEFGHIJKLMNOPQRSTUVWX and s.abc123",
		"hvs.short and hvb. and hvr.tooShortToBeOne",
		"version=1.2.3",
		"APP_VERSION=2.14.0-rc.1",
		"  password: process.env.DB_PASSWORD",
		"  password: config.password,",
		"password = cfg.Password",
		"token: token.txt",
		"key: server.pem",
	} {
		if out, kinds := Scrub(clean); out != clean || len(kinds) != 0 {
			t.Errorf("clean text changed: %q → %q %v", clean, out, kinds)
		}
	}
}
