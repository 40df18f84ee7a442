#!/usr/bin/env bash
# Installs what the console's browser tests need besides Go: Debian's
# chromium when it is missing (as root, or with sudo), and the npm packages
# of scripts/console/package.json (axe-core, the MCP TypeScript SDK; versions
# and hashes locked) under .cache/console in the repository. Prints the
# directory of the npm packages. Needs Node 20+ and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
  echo "console-tools: installing chromium (Debian package)" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
command -v node >/dev/null && command -v npm >/dev/null || { echo "console-tools: node and npm are needed" >&2; exit 1; }
dir="$PWD/.cache/console"
# installed.lock is the lock of the last install that finished.
if ! cmp -s scripts/console/package-lock.json "$dir/installed.lock"; then
  echo "console-tools: installing axe-core and the MCP TypeScript SDK into $dir" >&2
  mkdir -p "$dir"
  rm -f "$dir/installed.lock"
  cp scripts/console/package.json scripts/console/package-lock.json "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  cp scripts/console/package-lock.json "$dir/installed.lock"
fi
echo "$dir/node_modules"
