package memory_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// corpus generates a realistic memory: short notes (learnings), code
// chunks with file metadata, and conversation turns, over a vocabulary
// whose word frequencies follow Zipf's law as natural text does.
type corpus struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newCorpus(seed int64) *corpus {
	r := rand.New(rand.NewSource(seed))
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "an", "is", "qu", "ber", "tin", "ox", "fe", "ul", "pra", "gi", "son", "met"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 20000 {
		w := ""
		for n := 2 + r.Intn(3); n > 0; n-- {
			w += syll[r.Intn(len(syll))]
		}
		if !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &corpus{r: r, zipf: rand.NewZipf(r, 1.1, 10, uint64(len(vocab)-1)), vocab: vocab}
}

func (c *corpus) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

func (c *corpus) item(i int) memory.Item {
	switch k := c.r.Intn(100); {
	case k < 60:
		return memory.Item{Kind: "learning", LearningKind: "fact", Source: "agent", Provenance: "mcp:bench",
			Text: fmt.Sprintf("Note %d: %s.", i, c.words(12+c.r.Intn(14)))}
	case k < 85:
		lang := []string{"go", "python", "typescript"}[c.r.Intn(3)]
		return memory.Item{Kind: "document", Source: "folder", Provenance: "cli", SourceID: fmt.Sprintf("/repo/f%d", i/20), SourceRef: fmt.Sprintf("lines %d-%d", i%20*30, i%20*30+29),
			Meta: memory.Meta{Repo: "acme/" + c.vocab[c.r.Intn(20)], Language: lang, FilePath: fmt.Sprintf("pkg/%s/f%d.%s", c.vocab[c.r.Intn(200)], i/20, lang)},
			Text: fmt.Sprintf("func %s%d(%s) error {\n\t// %s\n\treturn %s(%s)\n}", c.vocab[c.r.Intn(500)], i, c.words(2), c.words(8), c.vocab[c.r.Intn(500)], c.words(2))}
	default:
		return memory.Item{Kind: "conversation", Source: "conversation", Provenance: "cli", SourceID: fmt.Sprintf("thread:%d", i/50),
			Meta: memory.Meta{ThreadID: fmt.Sprintf("t%d", i/50)}, Text: fmt.Sprintf("%s: %s?", []string{"Maya", "Omar", "Lena"}[c.r.Intn(3)], c.words(8+c.r.Intn(10)))}
	}
}

// BenchmarkScale stores 10k and 100k items (and 1M with OPENHUMAN_BENCH_1M=1)
// with the hash embedder and reports ingest items/s, hybrid memory.fetch
// p50/p99, memory.recall p50, RSS and on-disk bytes per item. Run it with
// -benchtime 1x: each size is built once.
func BenchmarkScale(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("OPENHUMAN_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "memory.db")
			st := sqlite.New(path)
			if err := st.Open(); err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
			ctx := context.Background()
			c := newCorpus(1)

			start := time.Now()
			const batch = 1000
			for i := 0; i < n; i += batch {
				items := make([]memory.Item, 0, batch)
				for j := i; j < min(i+batch, n); j++ {
					items = append(items, c.item(j))
				}
				if _, err := svc.Remember(ctx, items); err != nil {
					b.Fatal(err)
				}
			}
			ingest := time.Since(start)

			// The first search loads the vector index from SQLite.
			loadStart := time.Now()
			if _, err := svc.Fetch(ctx, memory.FetchParams{Query: "warm up", Limit: 10}, anyone); err != nil {
				b.Fatal(err)
			}
			load := time.Since(loadStart)

			q := newCorpus(2)
			var fetch, recall []time.Duration
			for i := 0; i < 300; i++ {
				query := q.words(2 + i%2)
				t := time.Now()
				if _, err := svc.Fetch(ctx, memory.FetchParams{Query: query, Limit: 10}, anyone); err != nil {
					b.Fatal(err)
				}
				fetch = append(fetch, time.Since(t))
			}
			for i := 0; i < 100; i++ {
				t := time.Now()
				if _, err := svc.Recall(ctx, memory.RecallParams{Question: "what about " + q.words(3) + "?", Limit: 5}, anyone); err != nil {
					b.Fatal(err)
				}
				recall = append(recall, time.Since(t))
			}
			_ = st.Checkpoint()
			bytes := fileSize(path) + fileSize(path+"-wal")

			b.ReportMetric(float64(n)/ingest.Seconds(), "ingest_items/s")
			b.ReportMetric(ms(pct(fetch, 0.50)), "fetch_p50_ms")
			b.ReportMetric(ms(pct(fetch, 0.99)), "fetch_p99_ms")
			b.ReportMetric(ms(pct(recall, 0.50)), "recall_p50_ms")
			b.ReportMetric(ms(load), "index_load_ms")
			b.ReportMetric(float64(bytes)/float64(n), "disk_bytes/item")
			b.ReportMetric(rssMB(), "rss_MB")
		})
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// rssMB reads this process's resident set size from /proc (Linux).
func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
