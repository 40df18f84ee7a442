// Command openhuman-memory serves the memory tools on NATS, for running the
// system as separate processes (set OPENHUMAN_NATS_URL).
package main

import (
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

const about = `openhuman-memory: serves the memory tools (memory.*, tree.*) on NATS, for
running OpenHuman as separate processes next to openhuman-core.`

const env = `  OPENHUMAN_MEMORY_ENABLED
                          false turns memory off (default true)
  OPENHUMAN_MEMORY_PATH   the SQLite database (default $OPENHUMAN_HOME/memory.db)
  OPENHUMAN_MEMORY_REPLICATED
                          true: every replica applies one JetStream stream of writes
  OPENHUMAN_MEMORY_STREAM_REPLICAS
                          copies of that stream and its snapshots (default 3; 1 for one server)
  OPENHUMAN_MEMORY_ID_KEY a secret (hex, openssl rand -hex 32) the same on every replica,
                          required when replicated: forgets name items on the stream keyed by it
  OPENHUMAN_EMBEDDINGS_PROVIDER, _BASE_URL, _MODEL, _API_KEY
                          the embedder: minilm (default: all-MiniLM-L6-v2, fetched once from the
                          model hub in the background, hash-glove until then), hash-glove
                          (offline: spelling and GloVe word meanings), hash (offline, spelling
                          only), hash-wordnet (offline, adds WordNet senses), openai or ollama
  OPENHUMAN_MODELS, _HUB_URL, _DIR
                          off: fetch and load no model (hash-glove, no reranker); the hub
                          (https://huggingface.co); where models go ($OPENHUMAN_HOME/models)
  OPENHUMAN_LLM_BASE_URL, _MODEL, _API_KEY, _TIMEOUT_SECONDS
                          the model memory.recall answers with (default none: extractive)`

func main() {
	s := run.Service{Name: "openhuman-memory", MetricsAddr: "127.0.0.1:9301", About: about, Env: env,
		Start: memorymain.Start}
	os.Exit(s.Main(os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}
