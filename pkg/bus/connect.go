package bus

import (
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// Connect dials a NATS server and keeps reconnecting forever: a service that
// loses NATS must come back by itself when NATS does.
func Connect(url, name string, log *slog.Logger) (*nats.Conn, error) {
	return nats.Connect(url, Options(name, log)...)
}

// Options are the connection options every openhuman connection uses.
func Options(name string, log *slog.Logger) []nats.Option {
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("reconnected to NATS", "url", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Error("NATS error", "subject", subject, "err", err)
		}),
	}
}
