#!/usr/bin/env bash
# Every test: unit, property and notebook tests, the library's unit tests at the lower bounds of
# its dependency ranges (a second venv, scripts/test_lower_bounds.sh: ~70 s of CPU once .venv-lower
# exists), then the book build and the offline browser check of its pages (charts present, no
# console errors).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
bash scripts/setup.sh
setup=$((SECONDS - start))
.venv/bin/python -m pytest -n 2 -p no:cacheprovider --doctest-modules fireeval tests
tests=$((SECONDS - start - setup))
bash scripts/test_lower_bounds.sh
lower=$((SECONDS - start - setup - tests))
bash scripts/book.sh
.venv/bin/python scripts/check_book.py _build/html
echo "test: set-up ${setup} s, pytest ${tests} s, lower bounds ${lower} s, book and page check $((SECONDS - start - setup - tests - lower)) s, total $((SECONDS - start)) s"
