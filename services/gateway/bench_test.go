package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
)

const benchItems = 1000

var topics = []string{"deploy", "billing", "postgres", "editor", "release", "standup", "kubernetes", "invoice", "holiday", "design"}

func benchText(i int) string {
	return fmt.Sprintf("Note %d: the %s decision for team %d was recorded after the %s review.", i, topics[i%len(topics)], i%37, topics[(i/10)%len(topics)])
}

func mustStartBenchGateway(b *testing.B) *gateway.Gateway {
	b.Helper()
	gw := gatewaytest.Start(b, nil, gateway.Options{})
	cc := contract.CallContext{Source: "bench"}
	for i := 0; i < benchItems; i++ {
		args, _ := json.Marshal(map[string]string{"text": benchText(i)})
		if _, err := gw.CallTool(context.Background(), "memory.learn", args, cc); err != nil {
			b.Fatal(err)
		}
	}
	return gw
}

// BenchmarkListSubagents is a call with no storage behind it: the cost of
// the gateway and one bus round trip.
func BenchmarkListSubagents(b *testing.B) {
	gw := gatewaytest.Start(b, nil, gateway.Options{})
	for i := 0; i < b.N; i++ {
		if _, err := gw.CallTool(context.Background(), "agent.list_subagents", nil, contract.CallContext{Source: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLearn stores a new item per call (synchronous=FULL: each one is
// on disk before it is acknowledged).
func BenchmarkLearn(b *testing.B) {
	gw := mustStartBenchGateway(b)
	cc := contract.CallContext{Source: "bench"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args, _ := json.Marshal(map[string]string{"text": fmt.Sprintf("bench learning %d", i)})
		if _, err := gw.CallTool(context.Background(), "memory.learn", args, cc); err != nil {
			b.Fatal(err)
		}
	}
}
