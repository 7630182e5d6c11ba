#!/usr/bin/env bash
# Every test: unit, property and notebook tests, the library's unit tests at the lower bounds of
# its dependency ranges (a second venv, scripts/test_lower_bounds.sh: ~70 s of CPU once .venv-lower
# exists), then the book build and the offline browser check of its pages (charts present, no
# console errors). Prints the 15 slowest tests and the time of each phase, and records the phases
# (with the machine's load) in _build/.fireeval-test-times.json and each test's time in
# _build/.fireeval-pytest-junit.xml, for benchmarks/bench_book.py.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# As on a new machine: the parsed runs, converted chapters and drawn charts (README, "What is kept between
# runs") start empty, in a cache folder of the test command's own, shared by pytest and the book build.
export FIREEVAL_CACHE="$PWD/_build/.fireeval-cache"
rm -rf "$FIREEVAL_CACHE"
bash scripts/setup.sh
setup=$((SECONDS - start))
# Property tests run hypothesis's "ci" profile (tests/conftest.py: reproducible examples, stated counts and
# deadline); chapters are executed once per parameter set and shared between the tests and the two workers, which
# steal work from each other (the chapter executions first: tests/conftest.py, issue 38).
mkdir -p _build
HYPOTHESIS_PROFILE=ci .venv/bin/python -m pytest -n 2 -p no:cacheprovider --durations=15 \
  --junitxml=_build/.fireeval-pytest-junit.xml --doctest-modules fireeval tests
tests=$((SECONDS - start - setup))
t_lower=$SECONDS
bash scripts/test_lower_bounds.sh
lower=$((SECONDS - t_lower))
t_book=$SECONDS
bash scripts/book.sh
book=$((SECONDS - t_book))
t_check=$SECONDS
.venv/bin/python scripts/check_book.py _build/html
check=$((SECONDS - t_check))
total=$((SECONDS - start))
mkdir -p _build
printf '{"setup": %d, "pytest": %d, "book": %d, "lower_bounds": %d, "page_check": %d, "total": %d, "workers": 2, "cores": %d, "load_start": "%s", "load_end": "%s", "finished": "%s"}\n' \
  "$setup" "$tests" "$book" "$lower" "$check" "$total" "$(nproc)" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > _build/.fireeval-test-times.json
echo "test: set-up ${setup} s, pytest ${tests} s, lower bounds ${lower} s, book ${book} s, page check ${check} s, total ${total} s"
