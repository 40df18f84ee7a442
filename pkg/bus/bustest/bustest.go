// Package bustest gives tests one set of bus keys: the services a test
// starts trust them, and its callers sign with them as the gateway (or as
// the agents service) does.
package bustest

import (
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
)

var (
	once sync.Once
	keys bus.Keys
)

// Keys is the test process's set, made on first use.
func Keys() bus.Keys {
	once.Do(func() {
		var err error
		if keys, err = bus.NewKeys(); err != nil {
			panic(err)
		}
	})
	return keys
}
