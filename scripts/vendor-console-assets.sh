#!/usr/bin/env bash
# Vendors the console's third-party assets from their npm packages into
# services/gateway/console/assets, with their licences: htmx and the
# classless stylesheet simple.css. The console embeds them (embed.FS), so
# nothing is fetched at run time; run this only to change a version.
set -euo pipefail
cd "$(dirname "$0")/.."
HTMX=2.0.11
SIMPLE=2.3.7
dest=services/gateway/console/assets
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$HTMX" "simpledotcss@$SIMPLE" >/dev/null)
mkdir -p "$tmp/htmx" "$tmp/simple"
tar xzf "$tmp/htmx.org-$HTMX.tgz" -C "$tmp/htmx"
tar xzf "$tmp/simpledotcss-$SIMPLE.tgz" -C "$tmp/simple"
cp "$tmp/htmx/package/dist/htmx.min.js" "$dest/htmx.min.js"
cp "$tmp/htmx/package/LICENSE" "$dest/LICENSE-htmx"
cp "$tmp/simple/package/simple.min.css" "$dest/simple.min.css"
cp "$tmp/simple/package/LICENSE" "$dest/LICENSE-simple.css"
echo "vendored htmx $HTMX and simple.css $SIMPLE into $dest"
