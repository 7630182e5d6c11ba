"""TREC-8 Ad Hoc (1999): 129 runs, official qrels, run/group table, NIST reference scores.

All paths are registry paths (see :mod:`fireeval.datasets`); ``root`` is a data
directory to search first.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fireeval.core.judgements import Qrels
from fireeval.core.parsed_cache import read_runset
from fireeval.core.runset import RunSet
from fireeval.core.validation import BOOL, STR, Instance, Int, Options, validate_params
from fireeval.datasets import ROOT, data_path, registry

__all__ = ["run_names", "load_runs", "load_qrels", "load_runs_table", "load_official_map", "load_gloo_official",
           "load_trec_eval_output", "TREC_EVAL_RUNS", "TREC_EVAL_VERSIONS", "FILES"]

QRELS = "trec8_adhoc/qrels.trec8.adhoc.txt.gz"
RUNS_TABLE = "trec8_adhoc/runs.tsv"
OFFICIAL = "trec8_adhoc/reference/official-scores.map"
GLOO = "trec8_adhoc/reference/gloo-official.tsv"
#: The runs and trec_eval versions whose own output (``trec_eval -q -m all_trec``, official qrels) the data hold.
TREC_EVAL_RUNS = ("uwmt8a0", "READWARE", "unc8al52", "UB99SW", "ok8amxc", "apl8n")
TREC_EVAL_VERSIONS = ("9.0.7", "10.0")
TREC_EVAL_OUTPUT = "trec8_adhoc/reference/trec_eval/v{version}.{run}.all_trec.q.txt.gz"


@validate_params()
def run_names() -> list[str]:
    """The 129 run tags, from the registry (no file access)."""
    prefix = "trec8_adhoc/runs/input."
    return sorted(p[len(prefix):-len(".gz")] for p in registry() if p.startswith(prefix))


FILES = [QRELS, RUNS_TABLE] + [f"trec8_adhoc/runs/input.{n}.gz" for n in run_names()]


@validate_params(names=[Instance(list, tuple, fix="pass a list of run tags"), None], root=ROOT, download=BOOL,
                 depth=[Int(1), None])
def load_runs(names=None, root=None, download: bool = False, depth: int | None = None) -> RunSet:
    """All (or the named) TREC-8 runs as one :class:`RunSet`, named by run tag; ``depth`` keeps each run's top
    ``depth`` documents per topic. Read through the parsed-runs cache
    (:func:`fireeval.core.parsed_cache.read_runset`): parsed once per machine, the same RunSet as
    ``RunSet.read(paths, names, depth)``."""
    names = list(names) if names is not None else run_names()
    runs = read_runset({n: data_path(f"trec8_adhoc/runs/input.{n}.gz", root, download) for n in names})
    if depth is None:
        return runs
    return RunSet(runs.names, runs.topics, runs.docnos, np.ascontiguousarray(runs.docs[..., :depth]))


@validate_params(root=ROOT, download=BOOL)
def load_qrels(root=None, download: bool = False) -> Qrels:
    """The official TREC-8 ad hoc qrels (86,830 judgements, binary)."""
    return Qrels.read(data_path(QRELS, root, download))


@validate_params(root=ROOT)
def load_runs_table(root=None) -> pd.DataFrame:
    """run, group, type, field_flags, pooled (bool: contributed its top 100 to the pool), official_map."""
    table = pd.read_csv(data_path(RUNS_TABLE, root), sep="\t", dtype={"run": str, "group": str})
    table["pooled"] = table.pop("pooled_depth100").eq("yes")
    return table


@validate_params(root=ROOT, download=BOOL)
def load_official_map(root=None, download: bool = False) -> pd.Series:
    """NIST's official MAP per run (4 decimals)."""
    frame = pd.read_csv(data_path(OFFICIAL, root, download), sep=r"\s+", header=None, names=["run", "map"],
                        dtype={"run": str})
    return frame.set_index("run")["map"]


@validate_params(root=ROOT)
def load_gloo_official(root=None) -> pd.DataFrame:
    """NIST's own (unfinished) leave-one-group-out scores per run: a sanity bound, not a golden value."""
    return pd.read_csv(data_path(GLOO, root), sep="\t", dtype={"run": str}).set_index("run")


@validate_params(run=Options(*TREC_EVAL_RUNS), version=Options(*TREC_EVAL_VERSIONS), root=ROOT)
def load_trec_eval_output(run: str, version: str = "9.0.7", root=None) -> pd.DataFrame:
    """What NIST's trec_eval ``version`` printed for ``trec_eval -q -m all_trec`` on ``run`` (official qrels).

    One row per printed line, in the printed order: ``measure``, ``topic`` (``"all"`` for the
    summary) and ``printed``, the value exactly as printed (text: ``0.2143``, ``1000``,
    ``'1-0--'`` for relstring, the tag for runid). ``run`` is one of :data:`TREC_EVAL_RUNS`,
    ``version`` one of :data:`TREC_EVAL_VERSIONS`.
    """
    frame = pd.read_csv(data_path(TREC_EVAL_OUTPUT.format(version=version, run=run), root), sep="\t", header=None,
                        names=["measure", "topic", "printed"], dtype=str, keep_default_na=False, quoting=3)
    frame["measure"] = frame["measure"].str.strip()
    return frame
