# The README's two commands are `make run` and `make test`; CI runs .ci/run.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

MODULES := pkg services/memory services/agents services/search services/gateway deploy tools/bench tools/eval
PKGS    := $(addsuffix /...,$(addprefix ./,$(MODULES)))
BIN     := $(CURDIR)/bin

BINARIES := \
	openhuman-core=./services/gateway/cmd/openhuman-core \
	openhuman-memory=./services/memory/cmd/openhuman-memory \
	openhuman-agents=./services/agents/cmd/openhuman-agents \
	openhuman-search=./services/search/cmd/openhuman-search \
	openhuman-bench=./tools/bench/cmd/openhuman-bench

# Tests and evaluations never reach the public model hub: they run with
# models off, memory's offline behaviour, and the tests that exercise the
# models serve them from a local hub (docs/development.md). Recipes that
# measure a model say so with OPENHUMAN_MODELS=on.
test test-long test-race test-browser test-models console-shots eval eval-locomo eval-ablation bench bench-memory bench-ingest: export OPENHUMAN_MODELS ?= off

.PHONY: build run smoke test test-long test-all test-race bench-stdio test-browser test-models console-shots eval eval-locomo eval-ablation eval-use-lite eval-locomo-use-lite bench bench-memory bench-ingest bench-load soak conformance lint fmt tidy clean up-local down-local backup-local restore-local test-compose

build:
	@mkdir -p $(BIN)
	@[ -x $(BIN)/openhuman-core ] || echo "building bin/: the first build downloads Go modules and compiles for a few minutes" >&2
	@for b in $(BINARIES); do \
		name=$${b%%=*}; pkg=$${b#*=}; \
		echo "building $$name" >&2; \
		go build -trimpath -o $(BIN)/$$name $$pkg; \
	done
	@echo "built in bin/: $(foreach b,$(BINARIES),$(firstword $(subst =, ,$(b))))" >&2

# The main job on the embedded default: the HTTP server (MCP at /mcp, JSON-RPC
# at /rpc, /metrics) with NATS, memory, search and agents in the same process. It says
# where it listens; Ctrl-C stops it. Memory lives in $$OPENHUMAN_HOME
# (default ~/.openhuman). ADDR=HOST:PORT listens there instead of the
# default 127.0.0.1:9300 (or $$OPENHUMAN_HTTP_ADDR).
run: build
	$(BIN)/openhuman-core serve$(if $(ADDR), --addr $(ADDR))

# The documented stdio smoke test against the fresh binary, in a throwaway
# home. Its stdout is the JSON-RPC responses only; the rest goes to stderr.
smoke: build
	@home=$$(mktemp -d); trap 'rm -rf "$$home"' EXIT; \
	printf '%s\n' \
	  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
	  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
	  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"make smoke works on a fresh machine.","kind":"fact"}}}' \
	  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory.recall","arguments":{"question":"Does make smoke work?"}}}' \
	  | OPENHUMAN_HOME=$$home PATH=$(BIN):$$PATH openhuman-core mcp

# The tiers. `make test` is `go test -short` over every module (unit,
# storage, bus, HTTP, end to end through the binaries), the retrieval
# evaluation at 2,000 sentences and the mixed memory's gate (LoCoMo's
# conversation 26 among manual pages, tools/eval; scripts/eval-corpus.sh
# makes its documents first): everything a change can break, in minutes.
# `make test-long` runs the packages whose tests -short skips (clusters,
# replicas killed, a thousand writes through two processes, the load and
# soak of openhuman-bench) without it; `make test-all` is both and `make
# eval`. Verbose output is cut back to what plain `go test` prints, plus
# each skipped test and why (Prometheus, promtool, Redis or WordNet
# missing, or a long test under -short), so a test that did not run says so.
LONG_PKGS = $(shell grep -rl --include='*_test.go' 'testing.Short()' $(MODULES) | xargs -r -n1 dirname | sort -u | sed 's|^|./|; s|$$|/|')
EVAL_TESTS := ^TestEval(Glosses)?$$

test:
	@echo "testing every module (go test -short), then the retrieval evaluation: the first run compiles for several minutes" >&2
	@scripts/eval-corpus.sh >/dev/null || echo "the mixed memory's documents (scripts/eval-corpus.sh) could not be made: its gate, TestMixedMemory, will skip" >&2
	{ go test -count=1 -short -v $(PKGS); s=$$?; \
	  go test -count=1 -v -run '$(EVAL_TESTS)' ./services/memory/; exit $$((s | $$?)); } | awk -f scripts/test-report.awk

test-long:
	go test -count=1 -timeout 30m -v -skip '$(EVAL_TESTS)' $(LONG_PKGS) | awk -f scripts/test-report.awk

test-all: test test-long eval

# Retrieval quality as a user meets it: facts learned among 6,000 WordNet
# sentences, questions of every kind (services/memory/testdata/eval), each
# fetch mode and memory.recall, held-out and design halves. `make test` runs
# the same evaluation on 2,000 sentences and fails below its targets.
# EVAL_MISSES=1 also lists the design half's misses. It measures the embedder
# the OPENHUMAN_EMBEDDINGS_* variables configure (the default when unset).
eval:
	OPENHUMAN_EVAL_FULL=1 $(if $(EVAL_MISSES),OPENHUMAN_EVAL_MISSES=1) go test -count=1 -timeout 2h -v -run '^TestEval(Glosses)?$$' ./services/memory/ | grep -v '^=== RUN'
	$(MAKE) --no-print-directory eval-locomo
	$(MAKE) --no-print-directory eval-ablation

# Each feature and switch of the ranking's profile (retrieval.Profile)
# switched off in turn: what both LoCoMo halves and the mixed memory then
# measure, as differences in questions from the whole profile. A feature
# stays where switching it off costs at least three questions of the
# design half and helps neither the held-out half nor the mixed memory
# (docs/memory.md). About half an hour.
eval-ablation:
	scripts/eval-corpus.sh >/dev/null
	OPENHUMAN_EVAL_ABLATION=1 go test -count=1 -timeout 3h -v -run '^TestAblation$$' ./tools/eval/locomo/ | grep -vE '^(=== RUN|    --- PASS|    ablation_test.go)'

# Retrieval on LoCoMo (Maharana et al., ACL 2024), ten long conversations
# nobody here wrote: each in a memory of its own, loaded as a learning per
# turn and as a conversation, every answerable question through
# memory.fetch in each mode and memory.recall; recall@5/@10, nDCG@10 and
# recall's first citation per category, design and held-out halves. Then
# the mixed memory: each conversation again in a memory that also holds
# tens of thousands of chunks of manual pages and Python's documentation
# (scripts/eval-corpus.sh installs and renders them; the documents' memory
# is built once and cached under ~/.cache/openhuman-go/eval), recall@5 and
# first citation alone and mixed side by side. The data is CC BY-NC 4.0 and
# not in this repository: it is read from LOCOMO_DATA, else
# ../shared/data/locomo beside the checkout. Like eval, it measures the
# embedder the OPENHUMAN_EMBEDDINGS_* variables configure;
# OPENHUMAN_EVAL_LOCOMO_HALF=design runs one half. The harness is the
# tools/eval module, apart from the services it measures.
eval-locomo:
	scripts/eval-corpus.sh >/dev/null
	OPENHUMAN_EVAL_LOCOMO=1 go test -count=1 -timeout 3h -v -run '^TestLoCoMo$$' ./tools/eval/locomo/ | grep -vE '^(=== RUN|    --- PASS)'

# The same with a real sentence model, the Universal Sentence Encoder lite,
# served as Ollama would (Node and npm needed): the WordNet evaluation in
# about two minutes, then LoCoMo, which embeds its 11,764 turns in Node.
eval-use-lite:
	scripts/eval-use-lite.sh

# LoCoMo alone (eval-locomo) with the Universal Sentence Encoder lite;
# embedding its turns in Node takes most of the run (docs/memory.md).
eval-locomo-use-lite:
	scripts/eval-use-lite.sh eval-locomo

test-race:
	go test -count=1 -race -short $(PKGS)

# The console's browser tests alone: real headless Chromium against a real
# serve, axe-core inside it, and the MCP TypeScript SDK's client for
# elicitation. scripts/console-tools.sh installs chromium (Debian) and the
# npm packages into .cache/console when missing. `make test` runs them too
# when those are installed, and says why it skipped them when not.
test-browser:
	scripts/console-tools.sh >/dev/null
	OPENHUMAN_TEST_BROWSER=1 go test -count=1 -v ./services/gateway/console/... | awk -f scripts/test-report.awk

# The BERT encoder's references alone: Hugging Face's tokenizer in
# JavaScript and ONNX Runtime, installed by scripts/model-tools.sh into
# .cache/model when missing. `make test` runs them too when those are
# installed, and says why it skipped them when not.
test-models:
	scripts/model-tools.sh >/dev/null
	OPENHUMAN_TEST_MODELS=1 go test -count=1 -v ./services/memory/bert/ | awk -f scripts/test-report.awk

# A 1280×800 screenshot of every console page, with sample memory,
# approvals and a search provider, into SHOTS (default .cache/console-shots).
SHOTS ?= $(CURDIR)/.cache/console-shots
console-shots:
	scripts/console-tools.sh >/dev/null
	OPENHUMAN_TEST_BROWSER=1 OPENHUMAN_CONSOLE_SHOTS=$(SHOTS) go test -count=1 -run '^(TestEveryPage|TestOAuthRevokeInConsole|TestToolsPageShowsTheEmbeddingBacklog)$$' ./services/gateway/console/
	@echo "screenshots: $(SHOTS)" >&2

# Gateway and bus overhead, a raw stdio session at 3,000 notes (ping, a fetch that finds
# nothing: the floor of every tool call, a fetch of five), then memory at 10k and 100k items
# (bench-memory adds 1M), then an export of 1,000,000 items, which fails when it raises the
# resident set past its bound; then the models memory runs itself, at all-MiniLM-L6-v2's shape
# with random weights (docs/models.md): sentences/s at 16 and 128 tokens, a twelve-word query,
# reranked pairs/s, the memory both models hold, and the cold start to initialize with models
# off and on (absent, being fetched from a local hub, on disk).
bench:
	go test -run '^$$' -bench . -benchtime 2s ./services/gateway/ ./services/gateway/httpapi/
	go test -run '^$$' -bench BenchmarkStdio -benchtime 2s ./services/gateway/mcpserver/ -stdio-notes 3000
	go test -run '^$$' -bench BenchmarkMemoryPage -benchtime 200x -timeout 20m ./services/gateway/console/
	go test -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 30m ./services/memory/
	go test -run '^$$' -bench BenchmarkExport -benchtime 1x -timeout 30m ./services/memory/
	go test -run '^$$' -bench . -benchtime 40x ./services/memory/bert/
	go test -run '^$$' -bench BenchmarkBothModelsLoaded -benchtime 1x ./services/memory/minilm/
	go test -run '^$$' -bench BenchmarkColdStart -benchtime 5x -timeout 20m ./services/gateway/cmd/openhuman-core/

# Memory at 10k, 100k and 1M items (about five minutes).
bench-memory:
	OPENHUMAN_BENCH_1M=1 go test -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 60m ./services/memory/

# Ingest at scale: 100,000 small files into an empty home, then 100,000 more
# into the home holding them, through the walk, gateway, bus and memory
# service; fails when a file of the second folder costs over 1.5× one of the
# first (about ten minutes). OPENHUMAN_BENCH_INGEST_FILES=N sets the count.
bench-ingest:
	go test -run '^$$' -bench BenchmarkIngestFolder -benchtime 1x -timeout 60m ./services/gateway/ingest/

# Load through the HTTP endpoints: memory.fetch at 10k items, 1/8/64 clients,
# and the floor under it (a fetch matching nothing; GET /healthz).
bench-load: build
	$(BIN)/openhuman-bench --transports rpc,mcp,rpc-nothing,healthz

# memory.fetch through the official MCP TypeScript client over stdio at 3,000
# notes, against ping and the reference memory server's search_nodes, with
# the build of OLD (default main) measured in turn with this one
# (scripts/stdio-bench.sh; docs/benchmarks.md).
bench-stdio:
	scripts/stdio-bench.sh

# Mixed /rpc and /mcp traffic against a fresh server for SOAK (default 60s;
# the README's figures are from SOAK=10m); fails on any error, or when RSS,
# goroutines or p99 grow past the bounds it prints.
SOAK ?= 60s
soak: build
	$(BIN)/openhuman-bench --soak $(SOAK)

conformance:
	./scripts/conformance.sh

# lint also keeps every hand-written Go file under 450 lines (generated
# files, which say so in their first line, aside).
lint:
	go vet $(PKGS)
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@out=$$(find $(MODULES) -name '*.go' -not -path '*/.cache/*' -exec awk 'FNR == 1 && /^\/\/ Code generated/ { nextfile } FNR > 450 { print FILENAME ": " FNR " lines and more"; nextfile }' {} +); \
	  if [ -n "$$out" ]; then echo "Go files over 450 lines (split them):"; echo "$$out"; exit 1; fi

fmt:
	gofmt -w $(MODULES)

tidy:
	@for m in $(MODULES); do (cd $$m && go mod tidy); done

# The docker-compose stack with every image built here, nothing pulled
# (docker-compose.yml + deploy/compose.local.yml; scripts/compose-local.sh).
# It says which Compose it found (v2, or docker-compose 1.28 or later), and
# returns once the gateway's /readyz on 127.0.0.1:9300 answers 200, naming
# where the token came from: OPENHUMAN_API_TOKEN of the environment, .env
# or .env.local.
up-local: export CGO_ENABLED := 0
up-local: build
	scripts/compose-local.sh up

# Removes the local stack, volumes included.
down-local:
	scripts/compose-local.sh down

# The local stack's memory into FILE (JSON Lines, docs/export.md), while it
# serves; and the stack again on fresh volumes from FILE, every memory
# replica holding every item (the container tests do both).
backup-local:
	scripts/compose-local.sh backup $(FILE)

restore-local:
	scripts/compose-local.sh restore $(FILE)

# Container tests against the stack make up-local started.
test-compose:
	scripts/compose-local.sh test

clean:
	rm -rf $(BIN)
