package run

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

func testService(t *testing.T) Service {
	return Service{Name: "openhuman-test", MetricsAddr: "127.0.0.1:9399", About: "openhuman-test: serves nothing.",
		Env: "  OPENHUMAN_TEST_ONLY     a variable of its own",
		Start: func(*nats.Conn, config.Config, *slog.Logger) (io.Closer, error) {
			t.Error("started")
			return nil, nil
		}}
}

func TestServiceMain(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		name           string
		args, environ  []string
		code           int
		stdout, stderr []string // each must appear; nil: the stream is empty
	}{
		{name: "help", args: []string{"--help"}, code: 0,
			stdout: []string{"openhuman-test: serves nothing.", "Usage:", "OPENHUMAN_NATS_URL", "OPENHUMAN_METRICS_ADDR", "127.0.0.1:9399", "OPENHUMAN_TEST_ONLY"}},
		{name: "h", args: []string{"-h"}, code: 0, stdout: []string{"Usage:"}},
		{name: "version", args: []string{"--version"}, code: 0, stdout: []string{"openhuman-test 0."}},
		{name: "unknown flag", args: []string{"--hme", home}, code: 2,
			stderr: []string{"openhuman-test: flag provided but not defined: -hme", "Usage:"}},
		{name: "arguments", args: []string{"serve"}, code: 2, stderr: []string{`no arguments are taken but healthcheck, got ["serve"]`}},
		{name: "misspelt variable", environ: []string{"OPENHUMAN_HOME=" + home, "OPENHUMAN_SEARXNG_ENABLE=true"}, code: 1,
			stderr: []string{"level=WARN", "OPENHUMAN_SEARXNG_ENABLE", "did you mean OPENHUMAN_SEARXNG_ENABLED?", "needs a NATS server"}},
		{name: "retired setting", environ: []string{"OPENHUMAN_HOME=" + home, "OPENHUMAN_MEMORY_REPLICATION=jetstream", "OPENHUMAN_MEMORY_ID_KEY=" + strings.Repeat("ab", 16), "OPENHUMAN_NATS_URL=nats://127.0.0.1:1"}, code: 1,
			stderr: []string{"level=WARN", "deprecated setting: OPENHUMAN_MEMORY_REPLICATION=jetstream is now OPENHUMAN_MEMORY_REPLICATED=true"}},
		{name: "named config missing", environ: []string{"OPENHUMAN_HOME=" + home, "OPENHUMAN_CONFIG=/nonexistent.toml"}, code: 1,
			stderr: []string{"OPENHUMAN_CONFIG=/nonexistent.toml: no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := testService(t).Main(tc.args, &out, &errb, tc.environ)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			for _, s := range []struct {
				name string
				got  string
				want []string
			}{{"stdout", out.String(), tc.stdout}, {"stderr", errb.String(), tc.stderr}} {
				if s.want == nil && s.got != "" {
					t.Errorf("%s: %q, want nothing", s.name, s.got)
				}
				for _, w := range s.want {
					if !strings.Contains(s.got, w) {
						t.Errorf("%s: %q, want %q in it", s.name, s.got, w)
					}
				}
			}
		})
	}
}
