#!/usr/bin/env bash
# Build the whole book: set-up, execute every notebook (cached, in parallel), render; HTML in _build/html.
# Prints the time of each of the three steps.
set -euo pipefail
cd "$(dirname "$0")/.."
now() { date +%s.%N; }
t_start=$(now)
bash scripts/setup.sh
t_setup=$(now)
# The execution cache keys on each notebook's code only; results also depend on the
# fireeval package and the data registry, so a change there clears the cache.
mkdir -p _build
code_hash=$(find fireeval -name "*.py" -print0 | sort -z | xargs -0 cat data/registry.json pyproject.toml | sha256sum | cut -d' ' -f1)
# BOOK_KEEP_CACHE=1 keeps it (a quick local look at one changed chapter; never in CI).
if [ -z "${BOOK_KEEP_CACHE:-}" ] && [ -d _build/.jupyter_cache ] && [ "$(cat _build/.fireeval-code-hash 2>/dev/null)" != "$code_hash" ]; then
  echo "book: fireeval changed since the last build; re-executing every notebook"
  rm -rf _build/.jupyter_cache
fi
# Execute the notebooks that are not cached yet over all CPUs into Jupyter Book's cache
# (Jupyter Book itself would run them one after another); the build then only renders.
.venv/bin/python scripts/execute_book.py --workers "${BOOK_WORKERS:-$(nproc)}"
t_execute=$(now)
# -W: warnings (including a notebook that fails to execute) are errors;
# --keep-going: report every problem in one build, then fail.
.venv/bin/jupyter-book build . -W --keep-going 2>&1 | tee _build/.jupyter-book.log
t_render=$(now)
# Every notebook should have come from the cache; one executed here ran serially (a cache-key mismatch).
if grep -q "Executed notebook in" _build/.jupyter-book.log; then
  echo "book: Jupyter Book executed some notebooks itself (not pre-executed in parallel):"
  grep "Executed notebook in" _build/.jupyter-book.log | sed 's/^/  /'
fi
echo "$code_hash" > _build/.fireeval-code-hash
awk -v a="$t_start" -v b="$t_setup" -v c="$t_execute" -v d="$t_render" 'BEGIN {
  printf "book: set-up %.0f s, execution %.0f s, rendering %.0f s, total %.0f s\n", b - a, c - b, d - c, d - a }'
echo "book: _build/html/index.html"
