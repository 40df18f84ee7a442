package ingest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory/wordnet"
)

// writeLog writes a text file of size bytes, paragraph by paragraph, so
// that the test never holds it.
func writeLog(tb testing.TB, path string, size int64) {
	tb.Helper()
	fh, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(fh)
	var n int64
	for i := 0; n < size; i++ {
		k, _ := fmt.Fprintf(w, "%d request served in %d ms by worker %d for tenant %d; cache %s, queue depth %d.\n",
			i, i%997, i%31, i%113, []string{"hit", "miss"}[i%2], i%57)
		n += int64(k)
		if i%12 == 11 {
			w.WriteString("\n")
			n++
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		tb.Fatal(err)
	}
}

// liveHeap is the live heap as the last collection measured it.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// peakHeap samples the live heap (as the last collection measured it,
// garbage not included) until stop is called, and returns the highest.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak.Load() }
}

// maxHeapGrowth bounds how far the live heap grows while a large file is
// ingested: a few parts of 1 MiB as the walk, the bus and the memory
// service hold them, and what the memory service keeps of the chunks
// (indexes, caches: the growth measured 13–21 MiB over runs for the 16,176
// chunks of the 16 MiB file, with the collector's timing). The state the
// service holds before any ingest (its WordNet table among it) is measured
// first and not counted. A walk holding one whole copy of the file passes
// 29 MiB.
const maxHeapGrowth = 26 << 20

// Ingesting a file far larger than a bus message, with --max-file-size
// raised to let it through, keeps the live heap (of the walk and of the
// memory service on the same embedded bus, as in the default single
// process) within a few parts, whatever the file's size: the file is read,
// encoded and chunked a part at a time. Reading it whole into one request
// held it live about three times over (bytes, string, JSON).
func TestWalkLargeFileBoundedMemory(t *testing.T) {
	// The heap stays the same for a 128 MiB file (15 MiB there); these
	// sizes keep the test short, and at 16 MiB a walk that held one whole
	// copy of the file would break the bound.
	size := int64(16 << 20)
	if testing.Short() {
		size = 8 << 20
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	writeLog(t, path, size)
	mem := mustStartMemory(t, 8<<20) // the embedded bus's limit
	wordnet.Load()                   // loaded in the background at start; not part of the walk
	runtime.GC()
	base := liveHeap()
	stop := peakHeap()
	st, err := Walk(context.Background(), []string{path}, Options{MaxFileBytes: 1 << 40, MaxRequestBytes: mem.maxRequest()}, mem.send, nil)
	peak := stop()
	if err != nil || st.Stored != 1 || st.InParts != 1 || len(st.Failures) != 0 {
		t.Fatalf("%s %v", statuses(st), err)
	}
	grew := peak - min(base, peak)
	t.Logf("%d MiB file, %d chunks, live heap %d MiB before, at most %d MiB during (+%d MiB)", size>>20, st.Chunks, base>>20, peak>>20, grew>>20)
	if grew > maxHeapGrowth {
		t.Errorf("live heap grew by %d MiB ingesting a %d MiB file; the bound is %d MiB", grew>>20, size>>20, maxHeapGrowth>>20)
	}
}
