package minilm

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/services/memory/bert"
	"github.com/openhuman-go/openhuman-go/services/memory/hfhub"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
)

// miniLMFiles are random weights at all-MiniLM-L6-v2's exact shape
// (30,522 tokens, 384 wide, 6 layers, 12 heads, 1,536 intermediate, 512
// positions), with a reranker's head when head is set: the memory a
// loaded model holds does not depend on its weights.
func miniLMFiles(b *testing.B, head bool) map[string][]byte {
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	vocab = append(vocab, strings.Fields("the weather is lovely today . it ' s so sunny outside ! he drove to stadium how many people live in berlin ?")...)
	for i := len(vocab); i < 30522; i++ {
		vocab = append(vocab, "w"+strconv.Itoa(i))
	}
	c := bert.Config{VocabSize: len(vocab), Hidden: 384, Layers: 6, Heads: 12, Intermediate: 1536, MaxPositions: 512, TypeVocabSize: 2, HiddenAct: "gelu"}
	files, err := bert.ModelFiles(c, vocab, bert.RandomTensors(c, 11, head))
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// placeModel writes files as a fetch would have left them for repo.
func placeModel(b *testing.B, o Options, repo hfhub.Repo, files map[string][]byte) {
	h := startHub(b, &hub{files: files, anyRepo: true})
	defer h.srv.Close()
	c := o.client()
	c.BaseURL = h.srv.URL
	if _, err := c.Fetch(context.Background(), repo); err != nil {
		b.Fatal(err)
	}
}

// rssBytes is the process's resident set (Linux), 0 elsewhere.
func rssBytes() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

func settle() (heap, rss float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc), rssBytes()
}

// BenchmarkBothModelsLoaded opens the sentence model and the reranker as
// memory does (files checked, weights loaded, self-check run) and reports
// the Go heap and the resident set they add, in MiB.
//
//	go test -run '^$' -bench BothModelsLoaded -benchtime 1x ./services/memory/minilm/
func BenchmarkBothModelsLoaded(b *testing.B) {
	dir := b.TempDir()
	emb, rr := hfhub.Repo{Name: "test/minilm-shape", Revision: "main", Files: modelFiles}, hfhub.Repo{Name: "test/reranker-shape", Revision: "main", Files: modelFiles}
	o := Options{Dir: dir, Repo: &emb, Reranker: &rr, Log: slog.New(slog.DiscardHandler)}
	files := miniLMFiles(b, true)
	placeModel(b, o, emb, files)
	placeModel(b, o, rr, files)
	o.Figures, o.RerankerFigures = ownFigures(b, files, false), ownFigures(b, files, true)
	files = nil
	for b.Loop() {
		heap0, rss0 := settle()
		e, _ := OpenEmbedder(context.Background(), o, localembed.NewGloveEmbedder(256))
		r, loaded := OpenReranker(context.Background(), o)
		if err := <-loaded; err != nil || !r.Ready() {
			b.Fatalf("the reranker was not loaded: %v", err)
		}
		if _, ok := e.(*Embedder); !ok {
			b.Fatal("the sentence model was not loaded")
		}
		heap1, rss1 := settle()
		b.ReportMetric((heap1-heap0)/(1<<20), "heap-MiB")
		b.ReportMetric((rss1-rss0)/(1<<20), "rss-MiB")
		b.ReportMetric(rss1/(1<<20), "rss-total-MiB")
		runtime.KeepAlive(e)
		runtime.KeepAlive(r)
	}
}
