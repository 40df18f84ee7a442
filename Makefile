# The README's two commands are `make run` and `make test`; CI runs .ci/run.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

MODULES := pkg services/memory services/agents services/gateway
PKGS    := $(addsuffix /...,$(addprefix ./,$(MODULES)))
BIN     := $(CURDIR)/bin

BINARIES := \
	openhuman-core=./services/gateway/cmd/openhuman-core \
	openhuman-memory=./services/memory/cmd/openhuman-memory \
	openhuman-agents=./services/agents/cmd/openhuman-agents \
	openhuman-bench=./services/gateway/cmd/openhuman-bench

.PHONY: build run test test-race bench bench-load conformance lint fmt tidy clean

build:
	@mkdir -p $(BIN)
	@for b in $(BINARIES); do \
		name=$${b%%=*}; pkg=$${b#*=}; \
		go build -trimpath -o $(BIN)/$$name $$pkg; \
	done
	@echo "built: $$(ls $(BIN) | tr '\n' ' ')"

# The main job on the embedded default: the documented smoke test against
# the fresh binary, with a throwaway home so nothing of yours is touched.
run: build
	@home=$$(mktemp -d); trap 'rm -rf "$$home"' EXIT; \
	echo "openhuman-core mcp, embedded NATS + memory + agents, home $$home:"; \
	printf '%s\n' \
	  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
	  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
	  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory.learn","arguments":{"text":"make run works on a fresh machine.","kind":"fact"}}}' \
	  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory.recall","arguments":{"question":"Does make run work?"}}}' \
	  | OPENHUMAN_HOME=$$home PATH=$(BIN):$$PATH openhuman-core mcp

test:
	go test -count=1 $(PKGS)

test-race:
	go test -count=1 -race -short $(PKGS)

bench:
	go test -run '^$$' -bench . -benchtime 2s ./services/gateway/ ./services/gateway/httpapi/

# Load through the HTTP endpoints: memory.fetch at 10k items, 1/8/64 clients.
bench-load: build
	$(BIN)/openhuman-bench

conformance:
	./scripts/conformance.sh

lint:
	go vet $(PKGS)
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

fmt:
	gofmt -w $(MODULES)

tidy:
	@for m in $(MODULES); do (cd $$m && go mod tidy); done

clean:
	rm -rf $(BIN)
