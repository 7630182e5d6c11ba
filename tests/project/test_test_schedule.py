"""How the suite is spread over xdist workers (tests/conftest.py, issue 38): `-n N` steals work, and the tests that
execute a chapter come first, grouped by chapter, biggest group first."""
from pathlib import Path
from types import SimpleNamespace

import pytest

import conftest


class Item(SimpleNamespace):
    def get_closest_marker(self, name):
        return object() if name in self.marks else None


def _item(name, marks=(), **params):
    return Item(name=name, marks=set(marks), callspec=SimpleNamespace(params=params) if params else None)


def test_a_chapter_is_read_from_the_tests_parameters():
    assert conftest.chapter_of(_item("a", ["notebook"], path=Path("notebooks/pool_depth.md"))) == "pool_depth"
    assert conftest.chapter_of(_item("b", ["notebook"], chapter="metrics")) == "metrics"
    assert conftest.chapter_of(_item("c", ["notebook"], args=["run", "axiou_measures", "-p", "x", "1"])) \
        == "axiou_measures"
    assert conftest.chapter_of(_item("d", ["notebook"])) == ""  # executes a chapter it does not name
    assert conftest.chapter_of(_item("e", [], chapter="metrics")) is None  # executes none


def test_chapter_executions_come_first_grouped_biggest_group_first():
    items = [_item("cheap-1"), _item("m1", ["notebook"], chapter="metrics"),
             _item("p1", ["notebook"], path=Path("pool_depth.md")), _item("cheap-2"),
             _item("p2", ["notebook"], args=["run", "pool_depth", "--quick"]), _item("m2", ["notebook"], chapter="metrics"),
             _item("p3", ["notebook"], chapter="pool_depth"), _item("cheap-3")]
    conftest.pytest_collection_modifyitems(None, None, items)
    assert [i.name for i in items] == ["p1", "p2", "p3", "m1", "m2", "cheap-1", "cheap-2", "cheap-3"]


def test_the_suite_collects_its_chapter_executions_first():
    """On the real collection: every test marked notebook before any other (checked on the order pytest uses)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-o", "addopts=", "-m", "notebook or not notebook", "tests/book/test_notebooks.py",
                           "tests/book/test_chapter_titles.py"], cwd=root, capture_output=True, text=True, timeout=600)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    executing = [i for i, name in enumerate(ids) if "test_notebook_runs_glues" in name or "without_any_data" in name]
    assert executing and executing == list(range(len(executing))), ids[:30]


@pytest.mark.parametrize("dist, stealing", [("load", True), ("loadscope", False), ("worksteal", False)])
def test_n_workers_steal_work_unless_another_dist_is_asked_for(dist, stealing):
    pytest.importorskip("xdist")
    from xdist.scheduler import WorkStealingScheduling

    config = SimpleNamespace(getoption=lambda name: dist, getvalue=lambda name: {"tx": ["2*popen"]}.get(name))
    made = conftest.pytest_xdist_make_scheduler(config, log=None)
    assert (made is not None) == stealing  # (None: xdist makes the scheduler --dist names, worksteal included)
    if stealing:
        assert isinstance(made, WorkStealingScheduling)
