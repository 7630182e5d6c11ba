"""The benchmark scripts import, parse their arguments, and say what issue 38 asks of every benchmark: met / missed
beside each target with the machine's load, the peer, a whole-process figure beside the in-process ones, and peak
memory. They are run by hand for their figures; here only a quick mode runs (seconds, no figure asserted)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "benchmarks"
BENCHMARKS = [FOLDER / f"bench_{name}.py" for name in
              ("compare", "evaluate", "evaluate_similarity", "fire", "label_noise", "metrics", "model_selection", "moments", "pooling", "similarity",
               "validation")]

#: what a script's source must hold for each thing every benchmark prints (any one of the forms)
SAYS = {
    "met / missed beside a target": ("target_line(", "verdict(", "target="),
    "the machine's load": ("_timing.load()", "_timing.header()", "target_line("),
    "its peer": ("peer",),
    "a whole-process figure": ("_timing.run(", "_timing.chapter(", "_tree_run(", "_paired("),
    "peak memory": ("_timing.footer()", "RUSAGE_SELF"),
}
#: scripts with a ``--quick`` mode, and the data they need
QUICK = {"validation": "trec8_adhoc", "evaluate": "trec8_adhoc"}


def test_every_benchmark_script_is_listed():
    assert sorted(FOLDER.glob("bench_*.py")) == sorted(BENCHMARKS + [FOLDER / "bench_book.py"])


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_says_verdict_load_peer_whole_process_and_peak(script):
    source = script.read_text()
    missing = [what for what, forms in SAYS.items() if not any(form in source for form in forms)]
    if "no target" in source and not any(form in source for form in SAYS["met / missed beside a target"]):
        missing.remove("met / missed beside a target")  # (a benchmark without a target says so)
    assert not missing, f"{script.name} does not print {missing}"


def _data_root():
    for root in (os.environ.get("FIREEVAL_DATA"), ROOT.parent / "shared" / "data"):
        if root and Path(root).is_dir():
            return Path(root)
    return None


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(QUICK))
def test_quick_mode_prints_verdicts_with_the_load_the_peer_whole_process_and_peak(name):
    root = _data_root()
    if root is None or not (root / QUICK[name]).is_dir():
        pytest.skip(f"no {QUICK[name]} under FIREEVAL_DATA or ../shared/data")
    done = subprocess.run([sys.executable, str(FOLDER / f"bench_{name}.py"), "--quick", "--data", str(root)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    figures = re.findall(r"target: [^\n]*: [-\d.]+ ?\S* -> [^\n]*", out)  # (a target beside its figure)
    assert figures, out[-3000:]
    for line in figures:
        assert re.search(r" -> (met|missed) \(load [\d.]+ [\d.]+ [\d.]+ on \d+ cores\)$", line), line
    assert re.search(r"^\s*peers?:", out, re.M), "no peer named"
    assert "whole process" in out and "peak" in out
    assert re.search(r"peak resident memory of this (script|process):? \d+ MB", out)
