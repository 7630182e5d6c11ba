#!/usr/bin/env bash
# Every test: unit, property and notebook tests, then the book build and the offline
# browser check of its pages (charts present, no console errors).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -n 2 -p no:cacheprovider --doctest-modules fireeval tests
bash scripts/book.sh
.venv/bin/python scripts/check_book.py _build/html
