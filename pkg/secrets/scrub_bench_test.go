package secrets

import (
	"strings"
	"testing"
)

// benchText is what an ingested chunk of notes looks like: prose, a config
// snippet, commands and code, about 4 KB, with one secret in it.
var benchText = func() string {
	const notes = `## Deploying the billing service

The billing service runs behind the gateway on port 8443. Reset your password in settings
before the first deploy; the password policy requires 12 characters. The token bucket refills
every second, and the tokenizer splits on whitespace. Maya owns the passport scanning flow and
Ravi the compass integration; bypass the cache with ?fresh=1 when debugging.

    export DATABASE_URL=postgres://billing@db.internal:5432/billing
    export LOG_LEVEL=debug
    docker run -p 8080:8080 -e PORT=8080 billing:1.4.2

Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the rounding bug (order 10023344556677,
total $1,299.99, call +1 415 555 2671 on 2024-03-15). Request id 123e4567-e89b-12d3-a456-426614174000.

` + "```go" + `
func (s *Service) Charge(ctx context.Context, amount int64) error {
	key := s.keys.Current()
	return s.client.Post(ctx, "/v1/charges", map[string]any{"amount": amount, "key_id": key.ID})
}
` + "```" + `

config.yaml:

    server:
      host: 0.0.0.0
      port: 8443
    database:
      user: billing
      password: s3cr3t-Passw0rd
      pool: 12
`
	var b strings.Builder
	for b.Len() < 4096 {
		b.WriteString(notes)
	}
	return b.String()[:4096]
}()

func BenchmarkScrub(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		Scrub(benchText)
	}
}
