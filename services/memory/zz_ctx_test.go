package memory_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

func BenchmarkZZCtx(b *testing.B) {
	st := sqlite.New(filepath.Join(b.TempDir(), "memory.db"))
	if err := st.Open(); err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := memory.NewService(st, nil)
	r := rand.New(rand.NewSource(1))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	var items []memory.Item
	for i := 0; i < 10000; i++ {
		words := make([]string, 18)
		for k := range words {
			words[k] = vocab[r.Intn(len(vocab))]
		}
		items = append(items, memory.Item{Kind: "learning", Text: strings.Join(words, " "), Source: "agent", Provenance: "mcp"})
	}
	for i := 0; i < len(items); i += 1000 {
		if _, err := svc.Remember(context.Background(), items[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	_ = contract.CallContext{}
	svc.Fetch(context.Background(), memory.FetchParams{Query: "warm"})
	q := func() string { return vocab[r.Intn(3000)] + " " + vocab[r.Intn(3000)] }
	b.Run("background", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			svc.Fetch(context.Background(), memory.FetchParams{Query: q(), Limit: 10})
		}
	})
	b.Run("timeout", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			svc.Fetch(ctx, memory.FetchParams{Query: q(), Limit: 10})
			cancel()
		}
	})
}
