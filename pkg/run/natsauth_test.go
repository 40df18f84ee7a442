package run

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
)

type stopper struct{ svc *bus.Service }

func (s stopper) Close() error { return s.svc.Stop() }

// A service binary that the server refuses exits 1 at once with what to
// fix, whether the server refuses its credentials or its subscriptions.
func TestServiceRefusedByNATS(t *testing.T) {
	srv, err := embedded.StartServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "memory", Password: "good-password", Permissions: &server.Permissions{
			Subscribe: &server.SubjectPermission{Allow: []string{"openhuman.memory.>"}},
			Response:  &server.ResponsePermission{},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	url := srv.ClientURL()
	svc := Service{Name: "openhuman-test", About: "serves test",
		Start: func(nc *nats.Conn, _ config.Config, _ *slog.Logger) (io.Closer, error) {
			s, err := bus.Serve(nc, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "test", Version: "0.1.0", Endpoints: []bus.Endpoint{
				bus.Handle(contract.Endpoint{Service: "test", Method: "echo", Input: contract.Object("", nil, nil)},
					func(context.Context, struct{}, contract.CallContext) (any, error) { return nil, nil }),
			}})
			if err != nil {
				return nil, err
			}
			return stopper{s}, nil
		}}
	for _, tc := range []struct {
		name, password string
		want           []string
	}{
		{"wrong password", "bad-password", []string{"openhuman-test: NATS at " + url + " refused the credentials: authorization violation; check nats.user/nats.password"}},
		{"subjects not its own", "good-password", []string{"openhuman-test: NATS refused the subscription to", "permissions violation", "deploy/nats/auth.conf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var errb testbuf.Buffer // NATS's goroutines log to it too
			code := svc.Main(nil, &out, &errb, []string{"OPENHUMAN_HOME=" + t.TempDir(), "OPENHUMAN_METRICS_ADDR=off",
				"OPENHUMAN_NATS_URL=" + url, "OPENHUMAN_NATS_USER=memory", "OPENHUMAN_NATS_PASSWORD=" + tc.password})
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q does not say %q", errb.String(), w)
				}
			}
			if strings.Contains(errb.String(), tc.password) {
				t.Errorf("stderr %q shows the password", errb.String())
			}
		})
	}
}
