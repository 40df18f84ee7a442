// Package embedded runs nats-server as a library: the in-process bus of the
// default single-process mode, and a real, isolated server for tests.
package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
)

// Options configure an embedded server. The zero value is an in-process-only
// server: nothing listens on the network.
type Options struct {
	// Port to listen on 127.0.0.1; 0 means do not listen at all, -1 any free port.
	Port int
	// JetStream enables JetStream with its store under StoreDir.
	JetStream bool
	StoreDir  string
	// MaxPayload overrides NATS's 1 MiB message limit.
	MaxPayload int32
}

// Server is a running embedded NATS server.
type Server struct {
	ns *server.Server
}

// ErrNotReady means the server did not accept connections in time.
var ErrNotReady = errors.New("embedded NATS server did not become ready")

// Start starts a server and waits until it accepts connections.
func Start(opts Options) (*Server, error) {
	sopts := &server.Options{
		ServerName:     "openhuman-embedded",
		Host:           "127.0.0.1",
		Port:           opts.Port,
		DontListen:     opts.Port == 0,
		NoLog:          true,
		NoSigs:         true,
		JetStream:      opts.JetStream,
		StoreDir:       opts.StoreDir,
		MaxPayload:     opts.MaxPayload,
		MaxPending:     64 << 20,
		MaxControlLine: 4096,
	}
	return StartServer(sopts)
}

// StartServer starts a server with nats-server's own options, such as
// server.ProcessConfigFile reads from a deployment's configuration, and
// waits until it accepts connections.
func StartServer(sopts *server.Options) (*Server, error) {
	ns, err := server.NewServer(sopts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, ErrNotReady
	}
	return &Server{ns: ns}, nil
}

// ClientURL is the nats:// URL of a listening server ("" when in-process only).
func (s *Server) ClientURL() string {
	if s.ns.Addr() == nil {
		return ""
	}
	return s.ns.ClientURL()
}

// Connect opens an in-process connection (no sockets involved).
func (s *Server) Connect(name string, log *slog.Logger) (*nats.Conn, error) {
	return nats.Connect("", append(bus.Options(name, log), nats.InProcessServer(s.ns))...)
}

// Shutdown stops the server and waits for it to finish.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
