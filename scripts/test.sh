#!/usr/bin/env bash
# Every test: unit, property and notebook tests, then the book build and the offline
# browser check of its pages (charts present, no console errors).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
bash scripts/setup.sh
setup=$((SECONDS - start))
.venv/bin/python -m pytest -n 2 -p no:cacheprovider --doctest-modules fireeval tests
tests=$((SECONDS - start - setup))
bash scripts/book.sh
.venv/bin/python scripts/check_book.py _build/html
echo "test: set-up ${setup} s, pytest ${tests} s, book and page check $((SECONDS - start - setup - tests)) s, total $((SECONDS - start)) s"
