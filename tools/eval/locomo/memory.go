package locomo

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
	"github.com/openhuman-go/openhuman-go/services/memory/retrieval"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// Caller is who the evaluation is to memory: a local client of no
// workspace, which may read and write everything.
var Caller = contract.CallContext{Source: "locomo", Transport: contract.TransportCLI}

// Memory is a memory service over a SQLite file of its own, built as
// openhuman-memory builds it but called directly: the bus would add time,
// not a different answer.
type Memory struct {
	Svc   *memory.Service
	store *sqlite.Store
	stop  context.CancelFunc
	done  chan struct{}

	closing  sync.Once
	closeErr error
}

// OpenMemory serves memory from the SQLite file at path (created when
// missing) with emb, embedding in the background as the service does; it
// ranks with p, or the default profile when p is nil.
func OpenMemory(path string, emb memory.Embedder, p *retrieval.Profile) (*Memory, error) {
	st := sqlite.New(path)
	if err := st.Open(); err != nil {
		return nil, fmt.Errorf("memory at %s: %w", path, err)
	}
	m := &Memory{Svc: memory.NewService(st, &memory.Options{Embedder: emb, Profile: p}), store: st, done: make(chan struct{})}
	ctx, stop := context.WithCancel(context.Background())
	m.stop = stop
	go func() { defer close(m.done); m.Svc.Run(ctx) }()
	return m, nil
}

// Close stops the background work and closes the file; once, however
// often it is called.
func (m *Memory) Close() error {
	m.closing.Do(func() {
		m.stop()
		<-m.done
		m.closeErr = m.store.Close()
	})
	return m.closeErr
}

// AwaitVectors waits until every item has a vector of the active model: a
// model server slower than the inline deadline leaves the rest to the
// background, and a question asked before then would measure the keyword
// leg alone.
func (m *Memory) AwaitVectors(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Minute)
	for {
		p := m.Svc.EmbeddingProgress(ctx)
		if p != nil && p.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("items still wait for vectors after 30 minutes: %+v", p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Embedder is the embedder the OPENHUMAN_EMBEDDINGS_* and OPENHUMAN_MODELS*
// variables of this process configure (models off unless OPENHUMAN_MODELS
// says on), with the figures openhuman-memory gives it.
func Embedder() (memory.Embedder, error) {
	dir, err := os.MkdirTemp("", "locomo-config")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg, err := config.Load(dir, func(k string) string {
		if k == "OPENHUMAN_MODELS" && os.Getenv(k) == "" {
			return "off" // never the public hub from an evaluation
		}
		if strings.HasPrefix(k, "OPENHUMAN_EMBEDDINGS_") || strings.HasPrefix(k, "OPENHUMAN_MODELS") {
			return os.Getenv(k)
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	return memorymain.Embedder(cfg.Memory.Embeddings), nil
}

// EmbedderName says which embedder emb is, with the fusion weight the
// environment gives it.
func EmbedderName(emb memory.Embedder) string {
	out := emb.Model()
	if w := os.Getenv("OPENHUMAN_EMBEDDINGS_FUSION_WEIGHT"); w != "" {
		out += ", fusion weight " + w
	}
	return out
}

// copyFile copies a SQLite file whose store is closed (no WAL left).
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
