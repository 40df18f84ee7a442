package bus_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// A binary that reaches a NATS server other hosts reach without
// credentials says so at start; on loopback, or with credentials, it does
// not.
func TestOpenNATSWarns(t *testing.T) {
	var lan string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			lan = n.IP.String()
			break
		}
	}
	if lan == "" {
		t.Skip("this machine has no address but loopback")
	}
	open, err := embedded.StartServer(&server.Options{Host: "0.0.0.0", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(open.Shutdown)
	port := open.ClientURL()[strings.LastIndex(open.ClientURL(), ":")+1:]
	locked, err := embedded.StartServer(&server.Options{Host: "0.0.0.0", Port: -1, NoLog: true, NoSigs: true, Username: "memory", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locked.Shutdown)
	lockedPort := locked.ClientURL()[strings.LastIndex(locked.ClientURL(), ":")+1:]
	for _, tc := range []struct {
		name string
		cfg  config.NATS
		warn bool
	}{
		{"another host's address, no credentials", config.NATS{URL: fmt.Sprintf("nats://%s:%s", lan, port)}, true},
		{"loopback, no credentials", config.NATS{URL: "nats://127.0.0.1:" + port}, false},
		{"another host's address, a user", config.NATS{URL: fmt.Sprintf("nats://%s:%s", lan, lockedPort), User: "memory", Password: "pw"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			nc, err := bus.Connect(tc.cfg, "test", slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			nc.Close()
			if got := strings.Contains(logs.String(), "without credentials"); got != tc.warn {
				t.Errorf("warned %v, want %v: %s", got, tc.warn, logs.String())
			}
		})
	}
}
