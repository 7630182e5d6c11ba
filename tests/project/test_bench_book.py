"""benchmarks/bench_book.py: the recorded times of the book and the test command, each against its target."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_book.py"


def _bench(build: Path) -> list[str]:
    done = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _row(lines, what):
    return next(line for line in lines if line.strip().startswith(what))


def test_recorded_times_are_marked_met_or_missed(tmp_path):
    (tmp_path / ".fireeval-execution-run.json").write_text(json.dumps(
        {"wall": 149.0, "workers": 2, "cores": 2, "executed": ["a", "b"], "failed": [], "sum": 270.0,
         "from_empty_cache": True, "load": [0.4, 0.5, 0.6], "finished": "2026-11-28T03:00:00Z"}))
    (tmp_path / ".fireeval-execution-times.json").write_text(json.dumps(
        {"notebooks/pool_depth.md": 61.0, "notebooks/metrics.md": 60.0}))
    (tmp_path / ".fireeval-test-times.json").write_text(json.dumps(
        {"setup": 20, "pytest": 181, "book": 150, "page_check": 9, "total": 360, "workers": 2, "cores": 2,
         "load_start": "3.50 2.00 1.00", "load_end": "1.0 1.0 1.0", "finished": "2026-11-28T03:10:00Z"}))
    lines = _bench(tmp_path)
    assert _row(lines, "whole book").split("target <= 150 s: ")[1].startswith("met")
    assert "load 0.4 on 2 cores (quiet)" in _row(lines, "whole book")
    assert _row(lines, "chapter pool_depth").endswith("target <= 60 s: missed")
    assert _row(lines, "chapter metrics").endswith("target <= 60 s: met")  # within the target is met
    assert "missed" in _row(lines, "pytest -n 2") and "181.0 s" in _row(lines, "pytest -n 2")
    assert "busy" in _row(lines, "pytest -n 2")  # load 3.5 on 2 cores
    assert _row(lines, "test command incl. set-up").split("target <= 360 s: ")[1].startswith("met")


def test_the_worker_seconds_no_test_used_are_shown(tmp_path):
    """Issue 38: 2 workers x 1,420 s paid for 2,840 worker-s, the tests used 1,828 of them."""
    (tmp_path / ".fireeval-test-times.json").write_text(json.dumps(
        {"setup": 20, "pytest": 100, "book": 150, "page_check": 9, "total": 300, "workers": 2, "cores": 2,
         "load_start": "0.5 0.5 0.5", "load_end": "1.0 1.0 1.0", "finished": "2026-11-28T03:10:00Z"}))
    (tmp_path / ".fireeval-pytest-junit.xml").write_text(
        '<testsuites><testsuite><testcase classname="a" name="t1" time="120.5"/>'
        '<testcase classname="a" name="t2" time="29.5"/></testsuite></testsuites>')
    row = _row(_bench(tmp_path), "tests 150 worker-s")
    assert row.strip() == "tests 150 worker-s of 2 x 100 s = 200: 50 worker-s (25%) outside tests (start-up, collection, " \
                  "idle workers)", row


def test_a_partial_or_absent_record_is_not_a_verdict(tmp_path):
    lines = _bench(tmp_path)
    assert "not measured" in _row(lines, "whole book") and "not measured" in _row(lines, "pytest -n 2")
    (tmp_path / ".fireeval-execution-run.json").write_text(json.dumps(
        {"wall": 40.0, "workers": 1, "cores": 2, "executed": ["notebooks/metrics.md"], "failed": [], "sum": 40.0,
         "from_empty_cache": False, "load": [0.1, 0.1, 0.1]}))
    row = _row(_bench(tmp_path), "whole book")
    assert "not measured" in row and "not the whole book" in row and "1 workers, not 2" in row


def test_execute_times_a_chapter_now_against_the_chapter_target(tmp_path):
    from test_run_atomic import NB

    nb = tmp_path / "tiny.md"
    nb.write_text(NB)
    done = subprocess.run([sys.executable, str(SCRIPT), "--build", str(tmp_path), "--execute", str(nb)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    row = _row(done.stdout.splitlines(), f"chapter {nb} (now, one thread)")
    seconds = float(row.split("target")[0].split()[-2])
    assert 0 < seconds and row.split("target <= 60 s: ")[1].startswith("met" if seconds <= 60 else "missed")
    assert "s cpu" in row and "MB" in row and "load" in row


JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.core.test_a" name="test_fast" time="0.5"/>
<testcase classname="tests.book.test_b" name="test_slow[x]" time="97.0"/>
<testcase classname="tests.core.test_c" name="test_middle" time="12.25"/>
</testsuite></testsuites>"""


def test_the_slowest_tests_of_the_last_test_command_are_printed_slowest_first(tmp_path):
    (tmp_path / ".fireeval-test-times.json").write_text(json.dumps(
        {"setup": 20, "pytest": 170, "book": 150, "page_check": 9, "total": 350, "workers": 2, "cores": 2,
         "load_start": "0.5 0.5 0.5", "load_end": "1.0 1.0 1.0", "finished": "2026-11-28T03:10:00Z"}))
    lines = _bench(tmp_path)
    assert any("no .fireeval-pytest-junit.xml" in line for line in lines), lines
    (tmp_path / ".fireeval-pytest-junit.xml").write_text(JUNIT)
    lines = _bench(tmp_path)
    start = lines.index(_row(lines, "the 3 slowest of 3 tests"))
    assert [line.split()[-1] for line in lines[start + 1:start + 4]] == [
        "tests.book.test_b::test_slow[x]", "tests.core.test_c::test_middle", "tests.core.test_a::test_fast"]
    assert "97.0 s" in lines[start + 1]
    (tmp_path / ".fireeval-pytest-junit.xml").write_text("<testsuites>")
    done = subprocess.run([sys.executable, str(SCRIPT), "--build", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode != 0 and "not a junit XML report" in done.stderr and "Fix:" in done.stderr


def test_pytest_now_times_a_part_of_the_suite_without_a_verdict(tmp_path):
    (tmp_path / "test_tiny.py").write_text("import time\n\ndef test_one():\n    time.sleep(0.3)\n\n"
                                           "def test_two():\n    pass\n")
    done = subprocess.run([sys.executable, str(SCRIPT), "--build", str(tmp_path), "--pytest",
                           str(tmp_path / "test_tiny.py")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    row = _row(lines, "pytest -n 2 (now,")
    assert "s cpu" in row and "load" in row and "the 180 s target is for the whole" in row and "met" not in row
    slowest = lines[lines.index(_row(lines, "the 2 slowest of 2 tests")) + 1]
    assert slowest.endswith("test_tiny::test_one"), lines
