// Package callauthmain chooses where a service remembers the nonces of the
// calls it took (pkg/callauth): shared in Redis when it has one, so that
// no replica takes a call another took; else in a file of its home, so
// that it takes none twice across restarts; in embedded mode in the
// process, whose keys die with it. It is start-up wiring, shared so that
// every service makes the same choice.
package callauthmain

import (
	"io"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/callauth"
	callauthredis "github.com/openhuman-go/openhuman-go/pkg/callauth/redis"
	"github.com/openhuman-go/openhuman-go/pkg/callauth/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// NonceFile is the file a service without Redis keeps nonces in.
const NonceFile = "nonces.db"

// Checks are the checks of a service configured with cfg (rc is its Redis
// client, nil when it has none), and what to close with them (nil when
// nothing).
func Checks(cfg config.Config, rc *redisconn.Client) (bus.Checks, io.Closer, error) {
	checks := bus.ChecksOf(cfg.Bus)
	n, closer, err := Nonces(cfg, rc)
	checks.Nonces = n
	return checks, closer, err
}

// Nonces returns the nonces of a service configured with cfg (rc is its
// Redis client, nil when it has none) and what to close with it; nil
// nonces are the verifier's own, in the process.
func Nonces(cfg config.Config, rc *redisconn.Client) (callauth.Nonces, io.Closer, error) {
	switch {
	case cfg.NATS.URL == "":
		return nil, nil, nil
	case rc != nil:
		return callauthredis.NewNonces(rc), nil, nil
	}
	n, err := sqlite.Open(filepath.Join(cfg.Home, NonceFile))
	if err != nil {
		return nil, nil, err
	}
	return n, n, nil // an interface holding a nil *Nonces is never returned
}
