#!/usr/bin/env bash
# The documents of the retrieval evaluation's mixed memory: real
# documentation nobody here wrote, from Debian packages (the manual pages of
# manpages, manpages-dev and perl-doc, and Python's library reference as the
# reST sources of python3-doc), as a folder of text files that the
# evaluation ingests the way `openhuman-core ingest <folder>` does.
#
# It installs the packages when missing, renders each manual page to plain
# text with mandoc(1), copies the reST sources, and keeps each
# package's copyright file beside the folder. The result is cached under
# OPENHUMAN_EVAL_CORPUS (default ~/.cache/openhuman-go/eval/corpus) and kept
# while the packages' versions and this script are unchanged: a second run
# takes a second. It prints the folder of documents.
set -euo pipefail

packages=(manpages manpages-dev perl-doc python3-doc mandoc bsdextrautils)
out=${OPENHUMAN_EVAL_CORPUS:-$HOME/.cache/openhuman-go/eval/corpus}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (Debian packages) for the evaluation's documents" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # Others may be installing at the same time: wait for dpkg's lock.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
fi

# The corpus's version: the packages' versions and this script.
stamp=$( { dpkg-query -W "${packages[@]}"; sha256sum "$0" | cut -d' ' -f1; } | sha256sum | cut -c1-16)
if [ -f "$out/STAMP" ] && [ "$(cat "$out/STAMP")" = "$stamp" ]; then
  echo "$out/docs"
  exit 0
fi

echo "rendering the evaluation's documents into $out (a few minutes, once)" >&2
rm -rf "$out"
mkdir -p "$out/docs/man" "$out/docs/python" "$out/copyright"

# Manual pages: every page the packages ship (links between pages aside),
# rendered by mandoc at a fixed width, overstrikes removed by col
# (bsdextrautils).
for p in manpages manpages-dev perl-doc; do
  cp "/usr/share/doc/$p/copyright" "$out/copyright/$p"
  dpkg -L "$p" | grep -E '^/usr/share/man/man[0-9][^/]*/[^/]+$' | while read -r f; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f"; fi
  done
done | sort -u >"$out/pages"
sed -E 's|.*/(man[^/]+)/[^/]+$|\1|' "$out/pages" | sort -u | sed "s|^|$out/docs/man/|" | xargs mkdir -p
# Two processes a page, four pages at a time: on a busy machine most of a
# page's time is waiting for a turn, not rendering.
render() {
  for f; do
    t=${f#/usr/share/man/}; t=${t%.gz}
    mandoc -T ascii -O width=80 "$f" 2>/dev/null | col -bx >"$out/docs/man/$t.txt" || true
  done
}
export -f render; export out
xargs -a "$out/pages" -n 50 -P 4 bash -c 'render "$@"' _
rm "$out/pages"
find "$out/docs/man" -type f -size -200c -delete

# Python's documentation as its authors wrote it: reST, which memory
# ingests as text.
for d in /usr/share/doc/python3*-doc; do cp "$d/copyright" "$out/copyright/$(basename "$d")"; done
src=$(find /usr/share/doc -maxdepth 3 -type d -path '*/html/_sources' | grep -E 'python3(\.[0-9]+)?' | sort | tail -1)
# Their names end in .rst.txt, which memory reads as text, as it would .rst.
cp -r "$src/." "$out/docs/python/"

echo "$stamp" >"$out/STAMP"
echo "$(find "$out/docs" -type f | wc -l) documents, $(du -sh "$out/docs" | cut -f1)" >&2
echo "$out/docs"
