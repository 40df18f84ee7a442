package embedded

import "github.com/nats-io/nats.go"

// Dial opens another in-process connection to s's embedded bus, as code
// running in the process could.
func Dial(s *System, name string) (*nats.Conn, error) { return s.server.Connect(name, nil) }

// ListenURL is where s's embedded server listens, "" when nowhere.
func ListenURL(s *System) string { return s.server.ClientURL() }
