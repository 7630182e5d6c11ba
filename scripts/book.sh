#!/usr/bin/env bash
# Build the whole book: set-up, execute every notebook (cached), HTML in _build/html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# -W: warnings (including a notebook that fails to execute) are errors;
# --keep-going: report every problem in one build, then fail.
.venv/bin/jupyter-book build . -W --keep-going
echo "book: _build/html/index.html"
