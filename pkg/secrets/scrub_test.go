package secrets

import (
	"slices"
	"strings"
	"testing"
)

// The test secrets are built from parts so that no scanner of this
// repository mistakes the source for a leak.
var (
	ghToken    = "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	stripeKey  = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	awsID      = "AKIA" + "IOSFODNN7EXAMPLE"
	awsSecret  = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	jwtToken   = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	pemBlock   = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2qe2\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n-----END RSA PRIVATE KEY-----"
	visaNumber = "4111 1111 1111 1111"
	seed12     = "abandon ability able about above absent absorb abstract absurd abuse access accident"
	ddAppKey   = strings.Repeat("0a1b2c3d4e", 3) + "5f6a7b8c9d"
)

func TestScrubRedacts(t *testing.T) {
	for _, tc := range []struct{ in, want, kind string }{
		// Assignments: .env, shell, YAML, JSON, code, flags, query strings.
		{"DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED:password]", "password"},
		{"export DB_PASSWORD=\"correct horse\"", "export DB_PASSWORD=\"[REDACTED:password]\"", "password"},
		{"export PGPASSWORD='s3cret'", "export PGPASSWORD='[REDACTED:password]'", "password"},
		{"pass=letmein", "pass=[REDACTED:password]", "password"},
		{"DB_PASS=letmein", "DB_PASS=[REDACTED:password]", "password"},
		{"passphrase=orange-tiger-lamp", "passphrase=[REDACTED:password]", "password"},
		{"db_pwd=abc123", "db_pwd=[REDACTED:password]", "password"},
		{"token: abcdef123456", "token: [REDACTED:token]", "token"},
		{"STRIPE_SECRET=whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "STRIPE_SECRET=[REDACTED:api_key]", "api_key"},
		{"MY_API_TOKEN=tok_" + "8f3kd92lq0", "MY_API_TOKEN=[REDACTED:token]", "token"},
		{"api_key = \"a8f5f167f44f4964e6c998dee827110c\"", "api_key = \"[REDACTED:api_key]\"", "api_key"},
		{"apikey=a8f5f167f44f", "apikey=[REDACTED:api_key]", "api_key"},
		{"private_key=MIIEvQIBADANBg", "private_key=[REDACTED:private_key]", "private_key"},
		{"aws_access_key=zzzzABCD1234", "aws_access_key=[REDACTED:api_key]", "api_key"},
		{"client_secret: 9f8e7d6c5b4a", "client_secret: [REDACTED:secret]", "secret"},
		{"basic_auth=admin:Tr0ub4dor&3", "basic_auth=[REDACTED:credential]", "credential"},
		{"spring.datasource.password=hunter2", "spring.datasource.password=[REDACTED:password]", "password"},
		{"dbPassword := \"hunter2\"", "dbPassword := \"[REDACTED:password]\"", "password"},
		{"clientSecret: 'x9y8z7w6'", "clientSecret: '[REDACTED:secret]'", "secret"},
		{"database:\n  user: app\n  password: swordfish\n", "database:\n  user: app\n  password: [REDACTED:password]\n", "password"},
		{`{"user": "app", "password": "hunter2"}`, `{"user": "app", "password": "[REDACTED:password]"}`, "password"},
		{`{\"password\":\"hunter2\"}`, `{\"password\":\"[REDACTED:password]\"}`, "password"},
		{"psql --password hunter2 -h db", "psql --password [REDACTED:password] -h db", "password"},
		{"tool --api-key=a8f5f167f44f --verbose", "tool --api-key=[REDACTED:api_key] --verbose", "api_key"},
		{"gh auth login --token tok9f8e7d6c5b", "gh auth login --token [REDACTED:token]", "token"},
		{"sshpass -p hunter2 ssh host", "sshpass -p [REDACTED:password] ssh host", "password"},
		{"mysql -u root -phunter2 shop", "mysql -u root -p[REDACTED:password] shop", "password"},
		{"curl -u admin:hunter2 https://api.example.com", "curl -u admin:[REDACTED:password] https://api.example.com", "password"},
		{"curl -s --user 'admin:s3cret pass' https://x", "curl -s --user 'admin:[REDACTED:password]' https://x", "password"},
		{"curl -uadmin:hunter2 https://x", "curl -uadmin:[REDACTED:password] https://x", "password"},
		{"docker login -u bot -p hunter2 registry.example.com", "docker login -u bot -p [REDACTED:password] registry.example.com", "password"},
		{"docker login --username bot --password hunter2 ghcr.io", "docker login --username bot --password [REDACTED:password] ghcr.io", "password"},
		{"GET /v1/items?api_key=a8f5f167f44f&page=2", "GET /v1/items?api_key=[REDACTED:api_key]&page=2", "api_key"},
		{"pin=4821", "pin=[REDACTED:pin]", "pin"},
		// A .env or shell line's value runs to its end, but not into a
		// comment, a next command or a next NAME=value.
		{"DB_PASSWORD=correct horse battery staple", "DB_PASSWORD=[REDACTED:password]", "password"},
		{"DB_PASSWORD=p@ss;word\nDB_USER=app", "DB_PASSWORD=[REDACTED:password]\nDB_USER=app", "password"},
		{"export DB_PASSWORD=p@ss,w<rd # rotated", "export DB_PASSWORD=[REDACTED:password] # rotated", "password"},
		{"DB_PASSWORD=hunter2 DB_USER=app ./run && echo ok", "DB_PASSWORD=[REDACTED:password] DB_USER=app ./run && echo ok", "password"},
		{"export API_TOKEN=abc123; deploy", "export API_TOKEN=[REDACTED:token]; deploy", "token"},
		{"set DB_PASSWORD=hunter2 and restart", "set DB_PASSWORD=[REDACTED:password] and restart", "password"},
		// Keys the last word alone does not name.
		{"PW=hunter2", "PW=[REDACTED:password]", "password"},
		{"db_pw: hunter2", "db_pw: [REDACTED:password]", "password"},
		{"PASSWORT: geheim123", "PASSWORT: [REDACTED:password]", "password"},
		{"kennwort=geheim123", "kennwort=[REDACTED:password]", "password"},
		{"SECRET_KEY_BASE=9f8e7d6c5b4a3210", "SECRET_KEY_BASE=[REDACTED:secret]", "secret"},
		{"STRIPE_SECRET_KEY=abcdef123456", "STRIPE_SECRET_KEY=[REDACTED:api_key]", "api_key"},
		{"ENCRYPTION_KEY=abcdef123456", "ENCRYPTION_KEY=[REDACTED:api_key]", "api_key"},
		{"RAILS_MASTER_KEY=abcdef123456", "RAILS_MASTER_KEY=[REDACTED:api_key]", "api_key"},
		{"DSN=app:hunter2@tcp(db:3306)/app", "DSN=app:[REDACTED:password]@tcp(db:3306)/app", "password"},
		{"SENTRY_DSN=https://pub:priv4te@o1.ingest.sentry.io/1", "SENTRY_DSN=https://pub:[REDACTED:url_password]@o1.ingest.sentry.io/1", "url_password"},
		{"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc+def/ghi==;EndpointSuffix=core.windows.net",
			"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED:api_key];EndpointSuffix=core.windows.net", "api_key"},
		{"AccountKey=abc+def/ghi==;EndpointSuffix=core.windows.net", "AccountKey=[REDACTED:api_key];EndpointSuffix=core.windows.net", "api_key"},
		// Markup, YAML below its key, .netrc.
		{"<password>hunter2</password>", "<password>[REDACTED:password]</password>", "password"},
		{`<add key="ApiKey" value="a8f5f167f44f"/>`, `<add key="ApiKey" value="[REDACTED:api_key]"/>`, "api_key"},
		{"password:\n  hunter2\nuser: app", "password:\n  [REDACTED:password]\nuser: app", "password"},
		{"db:\n  password:\n    \"s3cret pass\"\n  user: app", "db:\n  password:\n    \"[REDACTED:password]\"\n  user: app", "password"},
		{"password: >\n  correct horse\n  battery staple\nuser: app", "password: >\n  [REDACTED:password]\nuser: app", "password"},
		{"tls:\n  private_key: |-\n    MIIEvQIBADANBg\n\n    kqhkiG9w0BAQEF\n  cert: x", "tls:\n  private_key: |-\n    [REDACTED:private_key]\n  cert: x", "private_key"},
		{"machine api.example.com login bob password hunter2", "machine api.example.com login bob password [REDACTED:password]", "password"},
		{"machine api.example.com\n  login bob\n  password swordfish\n", "machine api.example.com\n  login bob\n  password [REDACTED:password]\n", "password"},
		// git's netrc helper reads port and protocol between login and password.
		{"machine imap login tzz@lifelogs.com port imaps password letmeknow", "machine imap login tzz@lifelogs.com port imaps password [REDACTED:password]", "password"},
		{"machine imap2 login tzz port 1099 password tzzknow", "machine imap2 login tzz port 1099 password [REDACTED:password]", "password"},
		{"machine git.example.com\n  protocol https\n  login bob\n  password swordfish\n", "machine git.example.com\n  protocol https\n  login bob\n  password [REDACTED:password]\n", "password"},
		{"default login anonymous port 21 password guest9x", "default login anonymous port 21 password [REDACTED:password]", "password"},
		// Prose.
		{"my password is hunter2", "my password is [REDACTED:password]", "password"},
		{"my password is swordfish.", "my password is [REDACTED:password].", "password"},
		{"The password for the NAS is 7391-ALPHA, don't share it.", "The password for the NAS is [REDACTED:password], don't share it.", "password"},
		{"the wifi password: correct-horse-battery", "the wifi password: [REDACTED:password]", "password"},
		{"the pin is 1234", "the pin is [REDACTED:pin]", "pin"},
		{"My PIN code is 4821.", "My PIN code is [REDACTED:pin].", "pin"},
		{"the API key is 'a8f5f167f44f'", "the API key is '[REDACTED:api_key]'", "api_key"},
		// A made-up value right after the word that names it.
		{"use token 7f3k9Qz2LmP4xR8vN1bW6cY0dT5hJ3sA for the staging API", "use token [REDACTED:token] for the staging API", "token"},
		{"Datadog application key " + ddAppKey + " for the dashboards", "Datadog application key [REDACTED:api_key] for the dashboards", "api_key"},
		{"the DD app key " + ddAppKey, "the DD app key [REDACTED:api_key]", "api_key"},
		{"Datadog application key: " + ddAppKey, "Datadog application key: [REDACTED:api_key]", "api_key"},
		{"my passphrase is correct horse battery staple", "my passphrase is [REDACTED:password]", "password"},
		{"My password is Correct Horse Battery Staple, don't tell.", "My password is [REDACTED:password], don't tell.", "password"},
		{"my password is purple monkey dishwasher and I never share it", "my password is [REDACTED:password] and I never share it", "password"},
		{"my seed phrase is " + seed12 + ". Keep it safe", "my seed phrase is [REDACTED:seed_phrase]. Keep it safe", "seed_phrase"},
		{"Recovery phrase:\n" + seed12 + " " + seed12 + "\n", "Recovery phrase:\n[REDACTED:seed_phrase]\n", "seed_phrase"},
		{`WALLET_MNEMONIC="` + seed12 + `"`, `WALLET_MNEMONIC="[REDACTED:seed_phrase]"`, "seed_phrase"},
		{"mnemonic: " + seed12 + ", then more words", "mnemonic: [REDACTED:seed_phrase], then more words", "seed_phrase"},
		// URLs and headers.
		{"connect to postgres://app:hunter2@db.internal:5432/main", "connect to postgres://app:[REDACTED:url_password]@db.internal:5432/main", "url_password"},
		{"clone https://x-access-token:abc123def@github.com/o/r", "clone https://x-access-token:[REDACTED:url_password]@github.com/o/r", "url_password"},
		{"redis://:s3cretpass@cache:6379/0", "redis://:[REDACTED:url_password]@cache:6379/0", "url_password"},
		{"postgres://admin:p@ssw0rd@db/app", "postgres://admin:[REDACTED:url_password]@db/app", "url_password"},
		{"postgres://admin:pa/ss@db/app?sslmode=require", "postgres://admin:[REDACTED:url_password]@db/app?sslmode=require", "url_password"},
		{"amqp://guest:1234@rabbit:5672/ and mail bob@example.com", "amqp://guest:[REDACTED:url_password]@rabbit:5672/ and mail bob@example.com", "url_password"},
		{"Cookie: sessionid=abc123def; csrftoken=xyz", "Cookie: sessionid=[REDACTED:cookie]; csrftoken=[REDACTED:cookie]", "cookie"},
		{"Set-Cookie: sessionid=38afes7a8; Path=/; HttpOnly", "Set-Cookie: sessionid=[REDACTED:cookie]; Path=/; HttpOnly", "cookie"},
		{`"cookie": "sid=s%3AabcDEF.123"`, `"cookie": "sid=[REDACTED:cookie]"`, "cookie"},
		{"curl -H 'Authorization: Bearer abc.def-ghi_jkl~mno12345'", "curl -H 'Authorization: Bearer [REDACTED:bearer_token]'", "bearer_token"},
		{"Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Authorization: Basic [REDACTED:authorization]", "authorization"},
		{"send it with bearer abcdefghijklmnop1234", "send it with bearer [REDACTED:bearer_token]", "bearer_token"},
		// Provider formats.
		{"token " + ghToken + " here", "token [REDACTED:api_key] here", "api_key"},
		{"github_pat_" + strings.Repeat("11ABCDEFG0", 5), "[REDACTED:api_key]", "api_key"},
		{"xoxb-1234567890-abcdefghij", "[REDACTED:api_key]", "api_key"},
		{"key " + stripeKey, "key [REDACTED:api_key]", "api_key"},
		{"rk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:api_key]", "api_key"},
		{"my key is sk-proj-abcdefghijklmnopqrstuvwxyz012345 ok", "my key is [REDACTED:api_key] ok", "api_key"},
		{"sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "[REDACTED:api_key]", "api_key"},
		{"maps AIza" + "SyD-abcdefghijklmnopqrstuvwxyz01234", "maps [REDACTED:api_key]", "api_key"},
		{"glpat-abcdefghijklmnopqrst", "[REDACTED:api_key]", "api_key"},
		{"HF_TOKEN hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "HF_TOKEN [REDACTED:api_key]", "api_key"},
		{"access ya29." + "a0AfH6SMBx-Zq9Yw8Vu7Ts6Rq5Po4Nm3Lk2", "access [REDACTED:api_key]", "api_key"},
		{"mail via SG." + "aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01.", "mail via [REDACTED:api_key].", "api_key"},
		{"client GOCSPX-" + "1a2B3c4D5e6F7g8H9i0JkLmNoPqR", "client [REDACTED:secret]", "secret"},
		{"do dop_v1_" + strings.Repeat("a1b2c3d4", 8), "do [REDACTED:api_key]", "api_key"},
		{"bot 123456789:AA" + "Hdqtcvch1vGWJxfSeofSAs0K5PALDsaw", "bot [REDACTED:api_key]", "api_key"},
		{"post to https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now", "post to https://hooks.slack.com/services/[REDACTED:webhook] now", "webhook"},
		{"https://discord.com/api/webhooks/" + "123456789012345678/AbCdEfGhIjKlMnOp-QrStUv", "https://discord.com/api/webhooks/[REDACTED:webhook]", "webhook"},
		{"twilio key SK" + strings.Repeat("0123456789abcdef", 2), "twilio key [REDACTED:api_key]", "api_key"},
		{"Twilio account AC" + strings.Repeat("fedcba9876543210", 2) + " auth " + strings.Repeat("0a1b2c3d", 4), "Twilio account [REDACTED:api_key] auth [REDACTED:api_key]", "api_key"},
		{"TWILIO_ACCOUNT_SID=AC" + strings.Repeat("fedcba9876543210", 2), "TWILIO_ACCOUNT_SID=[REDACTED:api_key]", "api_key"},
		{"calls go out as AC" + strings.Repeat("fedcba9876543210", 2) + ".", "calls go out as [REDACTED:api_key].", "api_key"},
		{"mailgun key-" + "3ax6xnjp29jd6fds4gc373sgvjxteol0", "mailgun [REDACTED:api_key]", "api_key"},
		{"shop shpat_" + strings.Repeat("0123456789abcdef", 2), "shop [REDACTED:api_key]", "api_key"},
		{"jira ATATT" + "3xFfGF0" + strings.Repeat("Zx9Yw8Vu7Ts6", 5) + "=A1B2C3D4", "jira [REDACTED:api_key]", "api_key"},
		{"PMAK-" + "0123456789abcdef01234567-0123456789abcdef0123456789abcdef01", "[REDACTED:api_key]", "api_key"},
		{"npm npm_" + "abcdefghijklmnopqrstuvwxyz0123456789", "npm [REDACTED:api_key]", "api_key"},
		{"pypi-" + "AgEIcHlwaS5vcmcCJGE4ZjVmMTY3LWY0NGYtNDk2NC1lNmM5OThkZWU4Mjc", "[REDACTED:api_key]", "api_key"},
		{"cookie " + jwtToken, "cookie [REDACTED:jwt]", "jwt"},
		// A Google Cloud service account's key file.
		{`{"type": "service_account", "private_key_id": "` + ddAppKey + `", "client_email": "ci@p.iam.gserviceaccount.com"}`,
			`{"type": "service_account", "private_key_id": "[REDACTED:private_key]", "client_email": "ci@p.iam.gserviceaccount.com"}`, "private_key"},
		{"  \"private_key_id\": \"" + ddAppKey + "\",\n", "  \"private_key_id\": \"[REDACTED:private_key]\",\n", "private_key"},
		// AWS: the id, and a bare secret beside it.
		{awsID + " is the id", "[REDACTED:aws_key] is the id", "aws_key"},
		{"keys: " + awsID + " / " + awsSecret, "keys: [REDACTED:aws_key] / [REDACTED:aws_key]", "aws_key"},
		{"the aws secret " + awsSecret, "the aws secret [REDACTED:aws_key]", "aws_key"},
		// Cards.
		{"card " + visaNumber + " exp 12/27", "card [REDACTED:card_number] exp 12/27", "card_number"},
		{"amex 3782-822463-10005", "amex [REDACTED:card_number]", "card_number"},
		{"paid with 5555555555554444.", "paid with [REDACTED:card_number].", "card_number"},
		// Keys, whole and cut by a chunk boundary.
		{"key:\n" + pemBlock + "\nend", "key:\n[REDACTED:private_key]\nend", "private_key"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "[REDACTED:private_key]", "private_key"},
		{"-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0abcdefghijklmnop\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----\nok", "[REDACTED:private_key]\nok", "private_key"},
		{"-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nlQOYBF0abcdefghijklmnop", "[REDACTED:private_key]", "private_key"},
		{"-----BEGIN ENCRYPTED " + "PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0w\n-----END ENCRYPTED PRIVATE KEY-----", "[REDACTED:private_key]", "private_key"},
		{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2qe2\n-----END OPENSSH PRIVATE KEY-----\nrest", "[REDACTED:private_key]\nrest", "private_key"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			out, kinds := Scrub(tc.in)
			if out != tc.want {
				t.Errorf("got  %q\nwant %q", out, tc.want)
			}
			if !slices.Contains(kinds, tc.kind) {
				t.Errorf("kinds %v, want %s among them", kinds, tc.kind)
			}
			if again, _ := Scrub(out); again != out {
				t.Errorf("a second scrub changed it: %q", again)
			}
		})
	}
}

func TestScrubLeavesNearMisses(t *testing.T) {
	for _, clean := range []string{
		// Lines of Debian's /usr/share/doc and of Go module sources that
		// an earlier scrubber took for secrets.
		"PASS: addr2line -f option",
		"--- PASS: TestScrubRedacts (0.00s)",
		"auth: precompute authnameslen",
		"test-token: Check if the path is actually writable",
		"credential-libsecret: unlock locked secrets",
		"Its descriptor token is then kept as an",
		"JPOOL_PASS = one processing pass, was originally planned.",
		"* configure: just set PWD=`pwd` at the top, since Ultrix sh",
		"PWD: '/Users/maciej',",
		"llvm-toolchain-12 (1:12.0.0~++20210127035054+8e464dd76bef-1~exp1) experimental",
		"Fixes fuzzer issue https://oss-fuzz.com/testcase-detail/5390364397928448.",
		"reqNonce: 3843061514398340071",
		"git-svn-id: file:///home/x/trunk@20084 06827809-a52a-0410-b366-d66718629ded",
		"gpg: Support --passphrase with --quick-gen-key.",
		"if u.Password == _EMPTY_ && opts.canTLSMap(u) {",
		"c.opts.Token = _EMPTY_",
		"token := string(tok)",
		"admin to custom build a control flag with a series of token=value",
		"The user prefers tabs over spaces.",
		"Reset your password in settings.",
		"The password policy requires 12 characters.",
		"Deploy with `make deploy` after the password reset email goes out.",
		"the password is required",
		"The password is too short; the token is expired.",
		"The password for the admin account is stored in 1Password.",
		"See https://example.com/docs for the API key rotation policy.",
		"The token bucket refills every second.",
		"Token: the bucket refills every second.",
		"Password: reset it via the settings page",
		"the tokenizer splits on whitespace; max_tokens=4096",
		"max_tokens: 4096",
		"password_policy: strict",
		"token_url: https://auth.example.com/token",
		"auth: oauth2",
		"auth_type=oauth",
		"the boarding pass is 12A",
		"Show your passport at the gate; bypass=true; compass: north",
		"skiing in the alps with sk-team next winter",
		"export PWD_HINT=1 and DB_PASSWORD=${DB_PASSWORD:-}",
		"password: ${DB_PASSWORD}",
		"password = os.Getenv(\"DB_PASSWORD\")",
		"token := cfg.Token",
		"password: <your password>",
		"password: ********",
		"\"secret\": {\"name\": \"db\"}",
		"private_key_path: ~/.ssh/id_ed25519",
		"commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
		"aws sha 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"request 123e4567-e89b-12d3-a456-426614174000",
		"id 12345678-1234-1234-1234-123456789012",
		"released on 2024-03-15T10:00:00Z",
		"call +1 415 555 2671 or 0044 20 7946 0958",
		"total $1,299.99 for order 4111111111111112",
		"order 1234 5678 9012 3456 shipped",
		"created_ms 1700000000000",
		"docker run -p 8080:8080 app",
		"the key is in the drawer",
		"passwords: 3 rotated this week",
		"[REDACTED:password] stays as it is",
		// Prose about a password of several words, and keys near the new ones.
		"my password is twelve characters long",
		"My password is not working since Monday.",
		"my password is the same as before",
		"the passphrase is stored offline",
		"my password is strong enough now, and unique",
		"after login the password changes every month",
		"pwd is /home/me and pwm=3; export PW_HINT=1",
		"sort key = created_at",
		"<password-policy>strict</password-policy> <passwordHint>",
		"password:\n  min_length: 12\n  require_symbols: true\n",
		"tokens:\n  - name: ci\n",
		"token:\nuser: app\n",
		"DSN=MyDataSource;UID=app",
		"the seed phrase is stored offline",
		"Write the recovery phrase on paper and keep it in a safe place away from water and fire.",
		"the mnemonic device helps you remember the order of the planets",
		// -u and -p where they are a user, a uid or a port.
		"docker run -u 1000:1000 -p 8080:8080 app",
		"curl -u admin https://example.com asks for the password",
		"curl --user-agent mozilla:5 https://example.com",
		"docker login -u bot --password-stdin ghcr.io",
		// URLs whose colon is a port's, and "@" in a path or an address.
		"https://example.com:8443/users/bob@example.com",
		"see https://medium.com/@maya and https://registry.npmjs.org/@scope/pkg",
		"ssh://git@github.com:22/org/repo.git or git@github.com:org/repo.git",
		"mail user@example.com; https://example.com/a:b@c",
		"-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF0abcdefghijklmnop\n-----END PGP PUBLIC KEY BLOCK-----",
		"Cookie: a small file the site stores; the cookie policy applies",
		// Provider prefixes in ordinary words and short ids.
		"the hf_hub cache, a key-value store, SKU 12345 and SG.com; ya29 is a prefix; dop_v1_ alone",
		"twilio sends from AC-less numbers; its docs hash is 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"build 1234567:AAbc and https://hooks.slack.com/services/ and PMAK-short",
		"document.cookie is read by set-cookie-parser",
		// "secret" and "token" as words of a sentence; a loop label above code.
		"The secret to good bread is patience",
		"the secret to success is practice.",
		"the token bucket refills; use token authentication for the staging API",
		"the token NewRefreshTokenProvider2024 is a type, the token abc123 too short",
		"application key rotation runs nightly; the app key page is in settings",
		"* New upstream signing key 3D53839A70BC938B08CDD47F45460A518DA84635,",
		"TOKEN:\n\t\twhile (@tok) {\n\t\t\tif ($tok[0] eq \"default\") {\n\t\t\t\tshift(@tok);\n",
		" TOKEN:\n\tforeach my $git_token (sort keys %$entry) {\n\t\tnext TOKEN unless exists $query->{$git_token};\n",
		"PASSWORD:\n    while (my $line = <STDIN>) {\n        chomp $line;\n",
		"private_key_id_field: 12; key_id: 7",
		"ACCEPT 0123456789abcdef0123456789abcdef and AC0123 and AC" + strings.Repeat("fedcba9876543210", 2) + "ff",
	} {
		if out, kinds := Scrub(clean); out != clean || len(kinds) != 0 {
			t.Errorf("clean text changed: %q → %q %v", clean, out, kinds)
		}
	}
}
