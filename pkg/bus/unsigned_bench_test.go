package bus_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// BenchmarkRefuseUnsigned is what a request with no Openhuman-Auth header
// costs the service that refuses it, by the size of its envelope: anyone
// who may publish to a service's subjects can send them. The envelope is
// decoded whole before the header is looked at, so an unsigned request of
// 8 MiB of small numbers (max_payload of the deployment) costs the decode
// of 8 MiB; one that is refused on its header alone would cost the same
// at every size.
func BenchmarkRefuseUnsigned(b *testing.B) {
	s, err := embedded.Start(embedded.Options{MaxPayload: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Shutdown)
	release := make(chan struct{})
	b.Cleanup(func() { close(release) })
	echoService(b, mustConnect(b, s), release)
	nc := mustConnect(b, s)
	for _, size := range []int{1 << 10, 1 << 20, 8<<20 - 64<<10} {
		var body bytes.Buffer
		body.WriteString(`{"params":{"a":[`)
		for body.Len() < size {
			body.WriteString("1,")
		}
		body.WriteString(`1]},"ctx":{"source":"mcp:forged"}}`)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(body.Len()))
			for b.Loop() {
				m, err := nc.RequestMsg(&nats.Msg{Subject: "openhuman.echo.echo", Data: body.Bytes()}, 10*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				if r, err := contract.DecodeReply(m.Data); err != nil || r.Error == nil || r.Error.Code != contract.CodeDenied {
					b.Fatalf("reply %.200s, want DENIED", m.Data)
				}
			}
		})
	}
}
