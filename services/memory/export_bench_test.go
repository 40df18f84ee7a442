package memory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// exportRSSBoundMB is how far exporting may raise the resident set above
// what the process held before it began, however many items there are:
// one page at a time, read and written, beside SQLite's page cache (16 MB
// a reader connection, sqlite.Store.dsn) and the garbage of the pages
// before the collector runs. Measured: 58 MB at 100,000 items, 68 MB at
// 1,000,000 (2 cores, 2026-12-01).
const exportRSSBoundMB = 96

// BenchmarkExport exports 1,000,000 items (OPENHUMAN_BENCH_EXPORT_ITEMS=N
// sets another count) page by page, as openhuman-core export does, into
// JSON Lines, and reports items/s and how far the resident set rose above
// what the process held when the export began (sampled after every page),
// failing past exportRSSBoundMB. The store is filled with Put directly:
// vectors play no part in an export.
func BenchmarkExport(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("OPENHUMAN_BENCH_EXPORT_ITEMS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	path := filepath.Join(b.TempDir(), "memory.db")
	st := sqlite.New(path)
	if err := st.Open(); err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c := newCorpus(1)
	now := time.Now().UTC()
	const batch = 5000
	for i := 0; i < n; i += batch {
		items := make([]memory.Item, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			it := c.item(j)
			it.ObservedAt, it.CreatedAt = now, now
			it.ID = memory.Fingerprint(it)
			items = append(items, it)
		}
		if _, err := st.Put(ctx, items); err != nil {
			b.Fatal(err)
		}
	}
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		debug.FreeOSMemory()
		base, peak := rssMB(), 0.0
		w := bufio.NewWriterSize(io.Discard, 256<<10)
		start := time.Now()
		got, cursor := 0, ""
		for {
			page, err := svc.Export(ctx, memory.ExportParams{Cursor: cursor, Limit: 1000}, anyone)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range page.Items {
				line, _ := json.Marshal(r)
				w.Write(line)
				w.WriteByte('\n')
			}
			got += len(page.Items)
			peak = max(peak, rssMB())
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		w.Flush()
		took := time.Since(start)
		if got != n {
			b.Fatalf("exported %d items of %d", got, n)
		}
		rise := peak - base
		b.ReportMetric(float64(n)/took.Seconds(), "items/s")
		b.ReportMetric(rise, "rss_rise_MB")
		b.ReportMetric(peak, "rss_peak_MB")
		if rise > exportRSSBoundMB {
			b.Errorf("exporting %d items raised the resident set by %.0f MB (from %.0f to %.0f), past the %d MB bound", n, rise, base, peak, exportRSSBoundMB)
		}
		fmt.Fprintf(os.Stderr, "export: %d items in %s; RSS %.0f MB before, %.0f MB at most during\n", n, took.Round(time.Millisecond), base, peak)
	}
}
