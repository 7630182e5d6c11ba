#!/usr/bin/env bash
# Build the whole book: set-up, execute every notebook (cached), HTML in _build/html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The execution cache keys on each notebook's code only; results also depend on the
# fireeval package and the data registry, so a change there clears the cache.
mkdir -p _build
code_hash=$(find fireeval -name "*.py" -print0 | sort -z | xargs -0 cat data/registry.json pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -d _build/.jupyter_cache ] && [ "$(cat _build/.fireeval-code-hash 2>/dev/null)" != "$code_hash" ]; then
  echo "book: fireeval changed since the last build; re-executing every notebook"
  rm -rf _build/.jupyter_cache
fi
# -W: warnings (including a notebook that fails to execute) are errors;
# --keep-going: report every problem in one build, then fail.
.venv/bin/jupyter-book build . -W --keep-going
echo "$code_hash" > _build/.fireeval-code-hash
echo "book: _build/html/index.html"
