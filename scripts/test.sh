#!/usr/bin/env bash
# Every test: unit, property and notebook tests, then the book build, then the offline browser check of its
# pages (charts present, no console errors) and, beside it, the library's unit tests at the lower bounds of
# its dependency ranges (a second venv, scripts/test_lower_bounds.sh: ~70 s of CPU once .venv-lower exists). Prints the 15 slowest tests and the time of each phase, and records the phases
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
t_book=$SECONDS
bash scripts/book.sh
book=$((SECONDS - t_book))
# The lower-bound job (a second venv and the library's unit tests: one process) runs beside the page check
# (a headless browser, about one core), so the two cores are both busy; its output follows the page check's.
t_check=$SECONDS
lower_log=_build/.fireeval-lower-bounds.log
(status=0; bash scripts/test_lower_bounds.sh > "$lower_log" 2>&1 || status=$?
 echo "$status" > "$lower_log.status"; echo "$SECONDS" > "$lower_log.end") &
lower_job=$!
check_status=0
.venv/bin/python scripts/check_book.py _build/html || check_status=$?
check=$((SECONDS - t_check))
wait "$lower_job"
lower=$(( $(cat "$lower_log.end") - t_check ))
cat "$lower_log"
lower_status=$(cat "$lower_log.status")
if [ "$check_status" != 0 ] || [ "$lower_status" != 0 ]; then
  echo "test: the page check exited $check_status, the lower-bound job $lower_status" >&2
  exit 1
fi
total=$((SECONDS - start))
mkdir -p _build
printf '{"setup": %d, "pytest": %d, "book": %d, "lower_bounds": %d, "page_check": %d, "lower_bounds_beside_page_check": true, "total": %d, "workers": 2, "cores": %d, "load_start": "%s", "load_end": "%s", "finished": "%s"}\n' \
  "$setup" "$tests" "$book" "$lower" "$check" "$total" "$(nproc)" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > _build/.fireeval-test-times.json
echo "test: set-up ${setup} s, pytest ${tests} s, book ${book} s, page check ${check} s and lower bounds ${lower} s (side by side), total ${total} s"
