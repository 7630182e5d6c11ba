"""Overhead of the ``validate_params`` checks on the hot public functions (not a test).

    .venv/bin/python benchmarks/bench_validation.py [--data DIR] [--repeats 15] [--stub-calls 2000]
                                                    [--target 2] [--no-whole-process] [--quick]

Every public function of ``fireeval`` declares its parameters with
``fireeval.core.validation.validate_params``: each call binds its arguments to the signature and
checks them before the body runs. This script measures what that costs on the calls a researcher
makes most, on real data (TREC-8):

* ``fireeval.evaluate(QRELS, RUN, ["map", "P_10", "ndcg_cut_10"], per_topic=True)``: one TREC-8 run
  (the first of the runs table, input.1) from the gunzipped files, as a user calls it;
* ``fireeval.compare(scores, names)``: per-topic MAP of the first 20 TREC-8 runs (20 x 50, 190 pairs;
  sign-flip randomisation test, Holm, randomised Tukey HSD, 2,000 bootstrap resamples);
* ``fireeval.stats.resampling.bootstrap_means(scores, n_resamples=10000, rng=SEED)``: the same matrix, each call
  with a seed not used before in the process. ``bootstrap_means`` keeps the resample counts drawn for a seed for the
  process (``stats.resampling._COUNTS_MEMO``), so repeating one call measured a cache hit (about 1 ms, against
  which the checks were 3-6 %); a fresh seed per call measures what a user's first call costs. The memoised call is
  printed after it, for scale.

Three figures per function, all in process (modules imported, files in the page cache). Shares are
of CPU time (a call's: the process's, ``time.process_time``, numpy's BLAS threads included; the checks':
this thread's, ``time.thread_time``, as they run in Python on it): on a loaded machine a preemption
inside a timed interval adds wall time that is nobody's cost. Wall times are printed beside.

1. **call**: median wall time of the decorated call and of the undecorated body (``__wrapped__``),
   ``--repeats`` times each, interleaved; their difference is shown but is noise-dominated (the
   checks cost microseconds, the calls milliseconds).
2. **top-level checks, measured directly**: the same decorator, with the same declaration, around a
   body that does nothing but has the function's signature, called ``--stub-calls`` times with the
   same arguments: the per-call cost of binding and checking (median of 5 batches). Its share of the
   undecorated call is the overhead ratio of the outer decorator.
3. **every check inside the call**: the public functions call other declared functions (``evaluate``
   -> ``score_run`` ...). One call is run with ``inspect.Signature.bind`` and
   ``fireeval.core.validation._check`` wrapped by timers: how many arguments were bound and checked
   and the total time in them (the timers' own cost included, so an upper bound; median of 7 calls).
   Its share of the call is the overhead of all validation in it; the target applies to this figure.

Peak memory: ``tracemalloc``'s peak of one decorated and one undecorated call (Python allocations,
numpy's included), and the process's peak resident memory. The whole process (``--no-whole-process``
skips it): ``python -m fireeval evaluate -m map -m P_10 -m ndcg_cut_10 QRELS RUN`` timed as a
subprocess (benchmarks/_timing.py), for scale: start-up and reading dominate a command.

Target (issue 36): all validation inside a call costs at most ``--target`` % (default 2 %) of the call,
for each of the three functions; met / missed is printed with the machine's load. There is no peer:
scikit-learn's ``validate_params`` does the same job for its own functions, ir_measures and ranx check
nothing at call time.
"""
from __future__ import annotations

import argparse
import gzip
import inspect
import itertools
import resource
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import _timing

MEASURES = ["map", "P_10", "ndcg_cut_10"]


def _gunzip(src: Path, dest: Path) -> Path:
    with gzip.open(src, "rb") as fin, open(dest, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    return dest


def _timed_call(func, args, kwargs) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one call; cpu is the process's CPU time (numpy's BLAS threads included), which a
    preemption does not add to."""
    wall, cpu = time.perf_counter(), time.process_time()
    func(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu


def call_times(func, args, kwargs, repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median ``(wall, cpu)`` seconds of the decorated call and of its undecorated body, interleaved (one warm-up
    each). ``kwargs()`` gives each call's keyword arguments (a fresh seed per call where the function memoises)."""
    raw = func.__wrapped__
    func(*args, **kwargs()), raw(*args, **kwargs())
    decorated, undecorated = [], []
    for i in range(repeats):  # alternate which side goes first, so neither always runs on a warmer cache
        for side in ((func, decorated), (raw, undecorated))[:: 1 if i % 2 == 0 else -1]:
            side[1].append(_timed_call(side[0], args, kwargs()))
    median = lambda runs: tuple(statistics.median(r[i] for r in runs) for i in (0, 1))  # noqa: E731
    return median(decorated), median(undecorated)


def stub_cost(func, args, kwargs, calls: int) -> float:
    """Seconds per call of the decorator alone: the same declaration around a do-nothing body with the same
    signature, median of 5 batches of ``calls`` calls."""
    from fireeval.core.validation import validate_params

    def body(*a, **k):
        return None

    body.__signature__ = inspect.signature(func.__wrapped__)
    body.__qualname__ = func.__qualname__
    checked = validate_params(**func.__fireeval_params__)(body)
    batches = []
    for _ in range(5):
        start = time.thread_time()
        for _ in range(calls):
            checked(*args, **kwargs)
        batches.append((time.thread_time() - start) / calls)
    return statistics.median(batches)


def checks_inside(func, args, kwargs, repeats: int = 7) -> tuple[int, int, float]:
    """``(arguments bound, arguments checked, seconds in both)`` during one decorated call, timed by wrapping
    ``inspect.Signature.bind`` and ``fireeval.core.validation._check`` (the wrappers' cost included); the
    median over ``repeats`` calls, so that one preemption of the process does not make the figure."""
    runs = [_checks_in_one_call(func, args, kwargs()) for _ in range(repeats)]
    return runs[0][0], runs[0][1], statistics.median(r[2] for r in runs)


def _checks_in_one_call(func, args, kwargs) -> tuple[int, int, float]:
    from fireeval.core import validation

    spent = [0.0]
    counts = {"bind": 0, "check": 0}
    original_bind, original_check = inspect.Signature.bind, validation._check

    def timed(kind, target):
        def wrapper(*a, **k):
            counts[kind] += 1
            start = time.thread_time()
            try:
                return target(*a, **k)
            finally:
                spent[0] += time.thread_time() - start
        return wrapper

    inspect.Signature.bind = timed("bind", original_bind)
    validation._check = timed("check", original_check)
    try:
        func(*args, **kwargs)
    finally:
        inspect.Signature.bind, validation._check = original_bind, original_check
    return counts["bind"], counts["check"], spent[0]


def peak_kib(func, args, kwargs) -> float:
    """tracemalloc's peak (KiB) of one call (``kwargs()``: its keyword arguments)."""
    tracemalloc.start()
    try:
        func(*args, **kwargs())
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def fixed(kwargs: dict):
    """The same keyword arguments for every call."""
    return lambda: kwargs


def fresh_seeds(kwargs: dict, name: str = "rng", first: int = 1000):
    """``kwargs`` with a seed never given before in this process at each call: a memoising function
    (``bootstrap_means`` keeps the resample counts drawn for a seed) then costs what a user's first call costs."""
    seeds = itertools.count(first)
    return lambda: {**kwargs, name: next(seeds)}


def report(name: str, func, args, kwargs, options) -> bool:
    """Print the three figures and the peaks of one function; True when its target is met. ``kwargs()`` gives each
    call's keyword arguments."""
    (decorated, decorated_cpu), (undecorated, undecorated_cpu) = call_times(func, args, kwargs, options.repeats)
    per_call = stub_cost(func, args, kwargs(), options.stub_calls)
    n_bind, n_check, inside = checks_inside(func, args, kwargs)
    share_top = 100 * per_call / undecorated_cpu
    share_all = 100 * inside / undecorated_cpu
    print(f"\n{name}")
    print(f"  call: decorated {decorated * 1e3:9.2f} ms wall ({decorated_cpu * 1e3:9.2f} ms cpu), undecorated "
          f"(__wrapped__) {undecorated * 1e3:9.2f} ms wall ({undecorated_cpu * 1e3:9.2f} ms cpu), median of "
          f"{options.repeats} each; difference {(decorated_cpu - undecorated_cpu) * 1e3:+.2f} ms cpu "
          "(noise-dominated)")
    print(f"  top-level checks, measured directly: {per_call * 1e6:7.1f} µs per call = {share_top:.4f} % of the call")
    print(f"  every check inside the call: {n_bind} calls bound, {n_check} arguments checked, "
          f"{inside * 1e3:.3f} ms = {share_all:.4f} % of the call (timers included: an upper bound)")
    with_checks, without = peak_kib(func, args, kwargs), peak_kib(func.__wrapped__, args, kwargs)
    print(f"  peak memory of one call (tracemalloc): decorated {with_checks / 1024:8.2f} MiB, undecorated "
          f"{without / 1024:8.2f} MiB, ratio {with_checks / without:.3f}")
    print(f"  {_timing.target_line('all validation inside the call, % of the call', share_all, options.target, ' %')}")
    return share_all <= options.target


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data root holding trec8_adhoc/ (default: FIREEVAL_DATA, "
                                                     "else ../shared/data)")
    parser.add_argument("--repeats", type=int, default=15, help="timed calls of each side (median)")
    parser.add_argument("--stub-calls", type=int, default=2000, dest="stub_calls",
                        help="calls per batch of the decorator around a do-nothing body")
    parser.add_argument("--runs", type=int, default=20, help="TREC-8 runs in the compare / bootstrap matrix")
    parser.add_argument("--target", type=float, default=2.0, help="at most this %% of a call (default 2)")
    parser.add_argument("--quick", action="store_true", help="3 repeats, 200 stub calls, 5 runs: seconds, to see that "
                                                              "the script works (not figures to report)")
    _timing.add_flag(parser)
    options = parser.parse_args()
    if options.quick:
        options.repeats, options.stub_calls, options.runs = 3, 200, 5

    import numpy as np

    import fireeval
    from fireeval.datasets import data_path, trec8
    from fireeval.stats import resampling

    print(_timing.byte_compile())
    _timing.header()
    print(f"fireeval at {Path(fireeval.__file__).parent}; {_timing.versions('numpy', 'scipy')}")
    print("peer: none; scikit-learn's validate_params does this job for its own functions, ir_measures and ranx "
          "check nothing at call time (the figure is against the same call without the checks, __wrapped__)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qrels = _gunzip(data_path(trec8.QRELS, options.data), tmp / "qrels.trec8.adhoc.txt")
        names = trec8.run_names()[:options.runs]
        runs = [_gunzip(data_path(f"trec8_adhoc/runs/input.{n}.gz", options.data), tmp / f"input.{n}") for n in names]
        first = runs[0]
        per_topic = fireeval.evaluate(str(qrels), {n: str(r) for n, r in zip(names, runs)}, ["map"], per_topic=True,
                                      complete=True, output="dict")
        topics = sorted(t for t in per_topic[names[0]] if t != "all")  # ("all": the summary row)
        scores = np.array([[per_topic[n][t]["map"] for t in topics] for n in names])
        print(f"data: TREC-8 qrels and {first.name} (gunzipped); MAP of {len(names)} runs x {scores.shape[1]} topics "
              "for compare and bootstrap_means")

        met = [report(f"fireeval.evaluate(QRELS, {first.name}, {MEASURES}, per_topic=True)", fireeval.evaluate,
                      (str(qrels), str(first), MEASURES), fixed({"per_topic": True}), options),
               report(f"fireeval.compare(MAP {scores.shape[0]} runs x {scores.shape[1]} topics)", fireeval.compare,
                      (scores, names), fixed({}), options)]
        bootstrap = (f"fireeval.stats.resampling.bootstrap_means(MAP {scores.shape[0]} x {scores.shape[1]}, "
                     "n_resamples=10000, rng=SEED)")
        print(f"\n{bootstrap}: each call with a seed not used before in this process, so each draws its resample "
              "counts, as a user's first call does (a second call with the same seed reuses the process's memo of "
              "counts, stats.resampling._COUNTS_MEMO: its cost is shown after, for scale)")
        met.append(report(bootstrap, resampling.bootstrap_means, (scores,), fresh_seeds({"n_resamples": 10000}),
                          options))
        (memo_wall, memo_cpu), _ = call_times(resampling.bootstrap_means, (scores,),
                                              fixed({"n_resamples": 10000, "rng": 0}), options.repeats)
        print(f"  for scale, the same call repeated with one seed (memoised counts): {memo_wall * 1e3:.2f} ms wall "
              f"({memo_cpu * 1e3:.2f} ms cpu), median of {options.repeats}; not the target's figure")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\npeak resident memory of this process: {peak:.0f} MB")
        if not options.no_whole_process:
            cmd = [sys.executable, "-m", "fireeval", "evaluate", *(a for m in MEASURES for a in ("-m", m)),
                   str(qrels), str(first)]
            print(f"whole process, for scale: fireeval evaluate -m map -m P_10 -m ndcg_cut_10 QRELS {first.name}: "
                  f"{_timing.run(cmd)} (start-up, imports, reading, scoring, printing)")
    print(f"\ntarget met for {sum(met)} of {len(met)} functions ({_timing.load()})")


if __name__ == "__main__":
    main()
