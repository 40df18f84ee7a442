#!/usr/bin/env bash
# memory.fetch through the official MCP TypeScript client over stdio, at
# NOTES notes (default 3000), against ping on the same connection and the
# reference memory server's search_nodes over as many entities, with an
# older build of openhuman-core measured in turn with this one in the same
# run, and this build's fetch in a memory of one note: the floor a fetch
# cannot go under, the tool call itself; and a server that answers that
# fetch's reply, recorded, without any work: what the client itself spends
# on the reply (docs/benchmarks.md, "MCP over stdio").
#
#   OLD=REV   the older build, from git revision REV (default: main); OLD= measures this build alone
#   NOTES, CALLS, ROUNDS   notes held, calls a round per server and tool, rounds
#
# It installs the npm packages of scripts/stdio-bench (versions and hashes
# locked) into .cache/stdio-bench, and builds the older revision there.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null && command -v npm >/dev/null || { echo "stdio-bench: node and npm are needed" >&2; exit 1; }
cache="$PWD/.cache/stdio-bench"
mkdir -p "$cache"
# installed.lock is the lock of the last install that finished.
if ! cmp -s scripts/stdio-bench/package-lock.json "$cache/installed.lock"; then
  echo "stdio-bench: installing the MCP TypeScript SDK and server-memory into $cache" >&2
  rm -f "$cache/installed.lock"
  cp scripts/stdio-bench/package.json scripts/stdio-bench/package-lock.json "$cache/"
  (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  cp scripts/stdio-bench/package-lock.json "$cache/installed.lock"
fi
cp scripts/stdio-bench/bench.mjs scripts/stdio-bench/recorded.mjs "$cache/"

make build >/dev/null
cores=(--core "new=$PWD/bin/openhuman-core")
old=${OLD-main}
if [ -n "$old" ]; then
  rev=$(git rev-parse --short "$old")
  oldbin="$cache/openhuman-core-$rev"
  if [ ! -x "$oldbin" ]; then
    echo "stdio-bench: building openhuman-core at $old ($rev)" >&2
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    git archive "$rev" | tar -x -C "$src"
    (cd "$src" && go build -trimpath -o "$oldbin" ./services/gateway/cmd/openhuman-core)
  fi
  cores=(--core "old=$oldbin" "${cores[@]}")
fi
node "$cache/bench.mjs" "${cores[@]}" \
  --reference "$cache/node_modules/@modelcontextprotocol/server-memory/dist/index.js" \
  --notes "${NOTES:-3000}" --calls "${CALLS:-300}" --rounds "${ROUNDS:-5}"
