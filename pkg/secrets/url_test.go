package secrets_test

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/secrets"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                         "nats://127.0.0.1:4222",
		"nats://gateway:hunter2@nats:4222":              "nats://nats:4222",
		"nats://s3cr3t@nats:4222,tls://u:p@nats-2:4222": "nats://nats:4222,tls://nats-2:4222",
		"nats://u:p%zz@nats:4222":                       "nats://nats:4222",
		"redis://:hunter2@redis:6379/0":                 "redis://redis:6379/0",
		"redis://redis:6379/0":                          "redis://redis:6379/0",
	} {
		if got := secrets.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
