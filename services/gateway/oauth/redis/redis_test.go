package redis

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn/redistest"
	"github.com/openhuman-go/openhuman-go/services/gateway/oauth/oauthtest"
)

func TestStore(t *testing.T) {
	prefix := redistest.Prefix(t)
	c, err := redisconn.New(redistest.URL(), prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	oauthtest.TestStore(t, New(c))
}
