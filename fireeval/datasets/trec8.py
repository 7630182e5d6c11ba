"""TREC-8 Ad Hoc (1999): 129 runs, official qrels, run/group table, NIST reference scores.

All paths are registry paths (see :mod:`fireeval.datasets`); ``root`` is a data
directory to search first.
"""
from __future__ import annotations

import pandas as pd

from fireeval.datasets import data_path, registry
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet

__all__ = ["run_names", "load_runs", "load_qrels", "load_runs_table", "load_official_map", "load_gloo_official",
           "FILES"]

QRELS = "trec8_adhoc/qrels.trec8.adhoc.txt.gz"
RUNS_TABLE = "trec8_adhoc/runs.tsv"
OFFICIAL = "trec8_adhoc/reference/official-scores.map"
GLOO = "trec8_adhoc/reference/gloo-official.tsv"


def run_names() -> list[str]:
    """The 129 run tags, from the registry (no file access)."""
    prefix = "trec8_adhoc/runs/input."
    return sorted(p[len(prefix):-len(".gz")] for p in registry() if p.startswith(prefix))


FILES = [QRELS, RUNS_TABLE] + [f"trec8_adhoc/runs/input.{n}.gz" for n in run_names()]


def load_runs(names=None, root=None, download: bool = False, depth: int | None = None) -> RunSet:
    """All (or the named) TREC-8 runs as one :class:`RunSet`, named by run tag."""
    names = list(names) if names is not None else run_names()
    paths = [data_path(f"trec8_adhoc/runs/input.{n}.gz", root, download) for n in names]
    return RunSet.read(paths, names=names, depth=depth)


def load_qrels(root=None, download: bool = False) -> Qrels:
    """The official TREC-8 ad hoc qrels (86,830 judgements, binary)."""
    return Qrels.read(data_path(QRELS, root, download))


def load_runs_table(root=None) -> pd.DataFrame:
    """run, group, type, field_flags, pooled (bool: contributed its top 100 to the pool), official_map."""
    table = pd.read_csv(data_path(RUNS_TABLE, root), sep="\t", dtype={"run": str, "group": str})
    table["pooled"] = table.pop("pooled_depth100").eq("yes")
    return table


def load_official_map(root=None, download: bool = False) -> pd.Series:
    """NIST's official MAP per run (4 decimals)."""
    frame = pd.read_csv(data_path(OFFICIAL, root, download), sep=r"\s+", header=None, names=["run", "map"],
                        dtype={"run": str})
    return frame.set_index("run")["map"]


def load_gloo_official(root=None) -> pd.DataFrame:
    """NIST's own (unfinished) leave-one-group-out scores per run: a sanity bound, not a golden value."""
    return pd.read_csv(data_path(GLOO, root), sep="\t", dtype={"run": str}).set_index("run")
