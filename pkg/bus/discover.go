package bus

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
)

// Served returns the endpoint subjects that at least one replica of the named
// services serves right now, from their micro INFO. A service that does not
// answer contributes nothing: callers offer only what can be answered.
func (c *Client) Served(ctx context.Context, services ...string) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		served = map[string]bool{}
		wg     sync.WaitGroup
	)
	for _, name := range services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subject, err := micro.ControlSubject(micro.InfoVerb, name, "")
			if err != nil {
				return
			}
			msg, err := c.nc.RequestWithContext(ctx, subject, nil)
			if err != nil {
				return
			}
			var info micro.Info
			if json.Unmarshal(msg.Data, &info) != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, ep := range info.Endpoints {
				served[ep.Subject] = true
			}
		}()
	}
	wg.Wait()
	return served
}

// Ping reports whether some replica of service answers its micro PING.
func (c *Client) Ping(ctx context.Context, service string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	subject, err := micro.ControlSubject(micro.PingVerb, service, "")
	if err != nil {
		return err
	}
	ctx, unwatch := watchRefusal(ctx, c.nc, subject)
	defer unwatch()
	if _, err := c.nc.RequestWithContext(ctx, subject, nil); err != nil {
		if refused := refusal(ctx); refused != nil {
			return refused
		}
		return transportError(service, subject, time.Second, err)
	}
	return nil
}
