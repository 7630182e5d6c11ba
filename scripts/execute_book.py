"""Execute the book's notebooks in parallel into Jupyter Book's execution cache.

    python scripts/execute_book.py [--workers N] [--cache _build/.jupyter_cache] [NAME ...]

Jupyter Book 1.x (myst-nb, ``execute_notebooks: cache``) executes notebooks one after
another while it reads the sources. This script fills the same jupyter-cache first,
over ``--workers`` processes (default: the number of CPUs), so the build that follows
finds every notebook cached and only renders. A notebook is read exactly as myst-nb
reads it (jupyter-cache's ``myst_nb_md`` reader), so the cache key (code cells and
kernelspec) is the one the build looks up; notebooks already cached are skipped.
Longest first, by the times of the previous run (``_build/.fireeval-execution-times.json``).
The introduction (the table of contents' root) gathers every chapter's claims into the
book's scoreboard (:mod:`fireeval.book.scoreboard`), so it runs after the chapters, and
again whenever any chapter was executed (its cached copy would show the old claims). It runs
alone at the end, so the claims are handed to it: taken from each executed (or cached) chapter
as it is stored, written to ``_build/.fireeval-claims.json`` and named in its kernel's
environment (``scoreboard.CLAIMS_FILE``).
Exits non-zero, naming the notebook and the failing cell, if any notebook raises.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READER = {"type": "plugin", "name": "myst_nb_md"}
# Seconds per notebook measured in a fresh-clone CI run on the shared 2-core machine (Nov 2026, two at a
# time), used only to start the longest first when no earlier run left its own times (a fresh clone, as in CI).
TYPICAL_SECONDS = {"notebooks/axiou_label_noise.md": 40, "notebooks/false_negatives.md": 36,
                   "notebooks/pool_leave_out.md": 36, "notebooks/pool_depth.md": 32, "notebooks/metrics.md": 29,
                   "notebooks/semantic_similarity.md": 25, "notebooks/axiou_measures.md": 25,
                   "notebooks/axiou_model_selection.md": 11,
                   "notebooks/leaderboards.md": 35}


def book_notebooks() -> list[Path]:
    """The notebooks the table of contents lists (the book builds only those)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    files.append(toc["root"])
    walk(toc)
    paths = [ROOT / f"{f}.md" for f in files]
    from myst_nb.core.read import is_myst_markdown_notebook

    return [p for p in paths if p.is_file() and is_myst_markdown_notebook(p.read_text())]


def _read(path: Path):
    from myst_nb.core.read import myst_nb_reader_plugin

    return myst_nb_reader_plugin(str(path))


def _execute(path: str, timeout: int):
    """Run in a worker process: execute one notebook in its own folder (as myst-nb does)."""
    from jupyter_cache.executors.utils import single_nb_execution

    from fireeval.book.forked_kernels import ForkedKernelManager, start_fork_server
    from fireeval.book.notebooks import kernel_environment

    picked = time.monotonic()
    os.environ.update(kernel_environment())  # (this worker's kernels: one BLAS thread, as `fireeval run`'s)
    start_fork_server()  # once per worker: its kernels are forked with the libraries already imported
    nb = _read(Path(path))
    started = time.perf_counter()
    result = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                                 meta_override=True, kernel_manager_class=ForkedKernelManager)
    return path, nb, time.perf_counter() - started, result.exc_string if result.err else None, (picked,
                                                                                                 time.monotonic())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cache", default=str(ROOT / "_build" / ".jupyter_cache"))
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell (as _config.yml)")
    parser.add_argument("only", nargs="*", help="only these notebooks (names such as pool_depth); default all")
    args = parser.parse_args(argv)

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(args.cache)
    times_file = Path(args.cache).parent / ".fireeval-execution-times.json"
    previous = {**TYPICAL_SECONDS, **(json.loads(times_file.read_text()) if times_file.is_file() else {})}
    todo = []
    notebooks = book_notebooks()
    intro = notebooks[0]  # the root: it reads the chapters' claims, so it runs last
    for path in notebooks[1:] + notebooks[:1]:
        if args.only and path.stem not in args.only:
            continue
        try:
            record = cache.match_cache_notebook(_read(path))
            if path == intro and any(p != intro for p in todo):
                cache.remove_cache(record.pk)  # chapters changed: the scoreboard must be rebuilt
                raise KeyError(path)
            print(f"execute_book: {path.relative_to(ROOT)} cached")
        except KeyError:
            todo.append(path)
    todo.sort(key=lambda p: -previous.get(str(p.relative_to(ROOT)), 0.0))
    last = [p for p in todo if p == intro]
    todo = [p for p in todo if p != intro]
    started, clock = time.perf_counter(), time.monotonic()  # (monotonic: the same clock in the workers)
    failed = []
    timings = json.loads(times_file.read_text()) if times_file.is_file() else {}
    todo_all = todo + last
    from fireeval.book.notebooks import extract_headline
    from fireeval.book.scoreboard import CLAIMS_FILE

    claims = {}  # each chapter's claims, as the cache holds them: handed to the introduction

    def keep_claims(path: Path, nb) -> None:
        if path.parent.name == "notebooks":
            claims[str(path.relative_to(ROOT))] = (extract_headline(nb) or {}).get("claims", [])

    for path in notebooks:
        if path not in todo_all:
            try:
                keep_claims(path, cache.get_cache_bundle(cache.match_cache_notebook(_read(path)).pk).nb)
            except KeyError:
                pass
    claims_file = Path(args.cache).parent / ".fireeval-claims.json"
    os.environ[CLAIMS_FILE] = str(claims_file)  # the workers' kernels inherit it
    if todo_all:
        print(f"execute_book: executing {len(todo_all)} notebook(s) over {args.workers} process(es)", flush=True)
        def store(future):
            path, nb, seconds, error, (picked, done) = future.result()
            span = f"{picked - clock:.1f}-{done - clock:.1f} s into the execution"
            name = str(Path(path).relative_to(ROOT))
            if error:
                failed.append(name)
                print(f"execute_book: {name} FAILED after {seconds:.1f} s\n{error}", file=sys.stderr, flush=True)
                return
            stage = cache.add_nb_to_project(path, read_data=READER)
            cache.cache_notebook_bundle(CacheBundleIn(nb, stage.uri, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            timings[name] = seconds
            keep_claims(Path(path), nb)
            # Sphinx re-reads a page only when its source is newer than its last reading, and a notebook
            # re-executed for a change in fireeval (or the intro, for a chapter's) has the same source:
            # mark it changed, or the page keeps the old outputs.
            os.utime(path)
            print(f"execute_book: {name} {seconds:.1f} s ({span}, stored at {time.monotonic() - clock:.1f} s)",
                  flush=True)

        with ProcessPoolExecutor(max_workers=max(1, min(args.workers, len(todo_all)))) as pool:
            for future in as_completed([pool.submit(_execute, str(p), args.timeout) for p in todo]):
                store(future)
            # The introduction after every chapter is in the cache, with their claims handed over.
            claims_file.write_text(json.dumps(claims))
            for future in [pool.submit(_execute, str(p), args.timeout) for p in last]:
                store(future)
    wall = time.perf_counter() - started
    times_file.parent.mkdir(parents=True, exist_ok=True)
    times_file.write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n")
    done = [str(p.relative_to(ROOT)) for p in todo_all if str(p.relative_to(ROOT)) not in failed]
    serial = sum(timings[n] for n in done)
    print(f"execute_book: {len(done)} executed in {wall:.1f} s wall over {args.workers} process(es) "
          f"(sum of per-notebook times {serial:.1f} s)")
    if todo_all:  # this execution as a whole, for benchmarks/bench_book.py (a run with nothing to do keeps the last)
        (times_file.parent / ".fireeval-execution-run.json").write_text(json.dumps(
            {"wall": wall, "workers": args.workers, "cores": os.cpu_count(), "executed": done, "failed": failed,
             "sum": serial, "from_empty_cache": len(todo_all) == len(notebooks) and not args.only,
             "load": os.getloadavg(), "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            indent=1) + "\n")
    if failed:
        print(f"execute_book: {len(failed)} notebook(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
