package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/ingest"
	"github.com/openhuman-go/openhuman-go/services/gateway/transfer"
)

// BenchmarkIngestFolder ingests a folder of small files (one chunk each)
// into an empty home, then a second such folder into the same home, which
// then holds as many items as the first folder had files: what ingest
// costs per file must not grow with what memory already holds. Both go
// the way `openhuman-core ingest` goes: the walk, the gateway, the
// embedded bus, the memory service and its SQLite file. It fails when a
// file is not stored or when a file of the second folder costs more than
// 1.5 times one of the first. 100,000 files a folder by default
// (OPENHUMAN_BENCH_INGEST_FILES sets another count); run it with
// -benchtime 1x: each folder is ingested once.
func BenchmarkIngestFolder(b *testing.B) {
	if b.N != 1 {
		b.Fatalf("b.N = %d: each folder is ingested once; run with -benchtime 1x", b.N)
	}
	n := 100_000
	if v := os.Getenv("OPENHUMAN_BENCH_INGEST_FILES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("OPENHUMAN_BENCH_INGEST_FILES=%q: give a positive number of files", v)
		}
	}
	dirs := b.TempDir()
	first, second := filepath.Join(dirs, "first"), filepath.Join(dirs, "second")
	writeNotes(b, first, n, 1)
	writeNotes(b, second, n, 2)
	gw := gatewaytest.StartIn(b, b.TempDir(), nil, gateway.Options{})
	cc := contract.CallContext{Source: "cli", Transport: contract.TransportCLI}
	send := func(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error) {
		raw, err := transfer.Ingest(ctx, gw, files, cc)
		if err != nil {
			// The walk sends the batch's files again one by one; those
			// stored already come back unchanged.
			b.Logf("a batch of %d files failed, sent again one by one: %v", len(files), err)
			return nil, err
		}
		var res struct {
			Files []contract.IngestedFile `json:"files"`
		}
		return res.Files, json.Unmarshal(raw, &res)
	}
	ingestAll := func(root string) time.Duration {
		start := time.Now()
		mark, marked := start, 0
		st, err := ingest.Walk(context.Background(), []string{root}, ingest.Options{}, send, func(st ingest.Stats) {
			if done := st.Stored + st.Unchanged; done-marked >= n/5 {
				b.Logf("%s: %d files, the last %d at %.0f µs each", filepath.Base(root), done, done-marked,
					float64(time.Since(mark).Microseconds())/float64(done-marked))
				mark, marked = time.Now(), done
			}
		})
		took := time.Since(start)
		if err != nil {
			b.Fatalf("ingesting %s: %v (%d of %d files stored)", root, err, st.Stored+st.Unchanged, n)
		}
		// Every file is new: one that is unchanged was stored by a batch
		// whose reply failed.
		if st.Stored+st.Unchanged != n || len(st.Failures) > 0 {
			b.Fatalf("ingesting %s: %d files stored and %d found stored of %d, failures %v", root, st.Stored, st.Unchanged, n, st.Failures)
		}
		return took
	}
	b.ResetTimer()
	empty := ingestAll(first)
	holding := ingestAll(second)
	perEmpty := float64(empty.Microseconds()) / float64(n)
	perHolding := float64(holding.Microseconds()) / float64(n)
	b.ReportMetric(perEmpty, "µs/file-empty")
	b.ReportMetric(perHolding, "µs/file-holding")
	b.ReportMetric(perHolding/perEmpty, "ratio")
	if perHolding > 1.5*perEmpty {
		b.Fatalf("a file into a home holding %d items cost %.0f µs, %.2f× the %.0f µs into an empty home (at most 1.5×)",
			n, perHolding, perHolding/perEmpty, perEmpty)
	}
}

// writeNotes writes n small Markdown notes under root, a thousand to a
// folder, each different from every other (seed picks the words).
func writeNotes(tb testing.TB, root string, n int, seed int64) {
	tb.Helper()
	r := rand.New(rand.NewSource(seed))
	words := strings.Fields(`memory ingest folder source chunk replace workspace index query table store sqlite
		note meeting project deadline budget review design release plan customer server client token cache
		stream replica snapshot cursor session gateway search recall fetch learn forget audit policy`)
	var b strings.Builder
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		b.Reset()
		fmt.Fprintf(&b, "# Note %d-%d\n\n", seed, i)
		for s := 3 + r.Intn(4); s > 0; s-- {
			for w := 6 + r.Intn(8); w > 0; w-- {
				b.WriteString(words[r.Intn(len(words))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "item%d.\n", r.Intn(1_000_000))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
