"""The TREC chapters' inputs (metrics, pool_depth, pool_leave_out) in one call each.

Runs and qrels come from TREC-8 Ad Hoc (the registry's real data), from the seeded
synthetic collection, or -- beside TREC-8's runs -- from the reader's own files:

* ``extra_runs``: TREC run files (six columns, one run tag per file). Each becomes a
  run of its own group, named by its tag, scored and placed beside the shipped runs;
  it is *unpooled* (it never helped build the pool) unless named in
  ``extra_runs_pooled`` (by the path as given or by its tag).
* ``qrels``: a TREC qrels file used instead of TREC-8's; the runs are scored on its
  topics (those the runs retrieve for), and NIST's reference scores, computed with
  TREC-8's qrels, are then not compared.

The reader's files are validated, not checksummed: format (with the file and line),
one run tag per file, tags distinct from each other and from the shipped runs, topics
judged in the qrels. Naming any of them makes the chapter refuse to run on synthetic
data (:func:`fireeval.datasets.choose_source`).
"""
from __future__ import annotations

import os

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fireeval.book.inputs import Inputs, decide, reader_label
from fireeval.core.judgements import Qrels
from fireeval.core.parsed_cache import read_runset
from fireeval.core.runset import RunSet
from fireeval.core.trec import read_run, read_run_table
from fireeval.datasets import data_path, trec8
from fireeval.core.validation import ANY, COLLECTION, SEED, Instance, Int, Options, validate_params
from fireeval.datasets import SOURCES

__all__ = ["TrecInputs", "metrics_inputs", "pooled_inputs", "read_reader_runs", "read_reader_qrels",
           "ReaderInputError"]

#: The seeded stand-in of each pooled chapter (n_docs 5000, 1000 documents per run).
SYNTHETIC = {"pool_depth": dict(n_topics=25, n_groups=8, runs_per_group=3),
             "pool_leave_out": dict(n_topics=50, n_groups=10, runs_per_group=3)}
RUN_PATH = "trec8_adhoc/runs/input.{}.gz"


class ReaderInputError(ValueError):
    """One of the reader's own files is not usable: one line naming the file and the fix."""


@dataclass(frozen=True)
class TrecInputs(Inputs):
    """A TREC chapter's runs and qrels, and where they came from.

    ``runs`` holds the shipped runs first, then the reader's (``reader_runs``, by tag);
    ``table`` has one row per run: run, group, pooled (bool), yours (bool), and TREC-8's
    type/field_flags/official_map where known; ``as_read`` each run as read, for pytrec_eval
    (metrics only: a :class:`~fireeval.core.trec.RunTable` of each TREC-8 file, a frame with query, docno and
    score of each of the reader's runs and of the stand-in's); ``official_map`` and ``gloo`` NIST's reference scores
    of the shipped runs, None when not comparable (synthetic, or the reader's qrels);
    ``complete`` is True when the data are all of TREC-8 as NIST pooled it (every run,
    its qrels, no pooled run of the reader's), so the rebuilt pool must equal the judged set.
    """

    runs: RunSet | None = None
    qrels: Qrels | None = None
    table: pd.DataFrame | None = None
    as_read: dict | None = None
    official_map: pd.Series | None = None
    gloo: pd.DataFrame | None = None
    reader_runs: tuple = ()
    reader_qrels: str | None = None
    complete: bool = False

    @property
    def shipped(self) -> list:
        """Names of the runs that are not the reader's."""
        return [n for n in self.runs.names if n not in self.reader_runs]

    def label(self) -> str:
        """The data label of the claims: ``real: TREC-8 Ad Hoc, 129 runs + 1 of yours (x)``."""
        base = (("real: TREC-8 Ad Hoc, " if self.real else "stand-in: synthetic, ")
                + f"{len(self.shipped)} runs" + reader_label(self.reader_runs))
        return base + (f", your qrels ({Path(self.reader_qrels).name})" if self.reader_qrels else "")


def _as_list(value) -> list:
    if value in (None, "", (), [], {}):
        return []
    return [value] if isinstance(value, (str, Path)) else list(value)


@validate_params(path=Instance(str, os.PathLike))
def read_reader_qrels(path) -> Qrels:
    """The reader's qrels file, validated: TREC format (file and line on error), at least one relevant document."""
    try:
        qrels = Qrels.read(path)
    except (OSError, ValueError) as err:
        raise ReaderInputError(f"qrels: {err}") from None
    if not (qrels.frame["relevance"].to_numpy() >= 1).any():
        raise ReaderInputError(f"qrels: {path}: no judgement is relevant (grade >= 1), so every measure is 0. "
                               "Fix: give qrels with relevance grades >= 1 for the relevant documents.")
    return qrels


@validate_params(paths=ANY, qrels=Instance(Qrels), taken=COLLECTION, pooled=COLLECTION)
def read_reader_runs(paths, qrels: Qrels, taken=(), pooled=()) -> tuple[dict, dict, list]:
    """``(frames, sources, pooled_tags)`` of the reader's run files, validated against ``qrels``.

    Each file must be a TREC run (six columns) with one run tag, distinct from ``taken``
    (the shipped runs) and from the other files' tags; at least one topic it retrieves for must
    be judged in ``qrels`` (the others are dropped, as trec_eval ignores them; a qrels topic it
    does not retrieve for scores 0 there; both warned).
    ``pooled`` names the runs that helped build the pool, by path as given or by tag.
    """
    frames, sources = {}, {}
    judged = set(qrels.topics)
    taken = set(taken)
    by_path = {}
    for path in _as_list(paths):
        try:
            frame = read_run(path, ordered=False)  # every line's tag (RunSet puts it in trec_eval order)
        except (OSError, ValueError) as err:
            raise ReaderInputError(f"extra_runs: {err}") from None
        tags = pd.unique(frame["tag"].astype(str))
        if len(tags) > 1:
            raise ReaderInputError(f"extra_runs: {path}: holds {len(tags)} run tags ({', '.join(tags[:3])}"
                                   f"{' ...' if len(tags) > 3 else ''}). Fix: one run per file, one tag in column 6.")
        tag = str(tags[0])
        if tag in taken or tag in frames:
            other = "a shipped TREC-8 run" if tag in taken else f"the run in {sources[tag]}"
            raise ReaderInputError(f"extra_runs: {path}: run tag {tag!r} is already {other}. "
                                   "Fix: give the run a tag of its own (column 6 of every line).")
        topics = set(frame["query"].astype(str))
        unknown = sorted(topics - judged)
        if len(unknown) == len(topics):
            raise ReaderInputError(
                f"extra_runs: {path}: none of its {len(topics)} topics is in the qrels (e.g. {', '.join(unknown[:3])}; "
                f"the qrels judge {len(judged)} topics, {min(judged)}-{max(judged)}). "
                "Fix: give a run over the qrels' topics, or your own qrels with -p qrels PATH.")
        if unknown:  # trec_eval's convention: topics without judgements are ignored, with a warning
            warnings.warn(f"extra_runs: {path}: {len(unknown)} of its {len(topics)} topics have no judgements in the "
                          f"qrels and are ignored, as trec_eval does (e.g. {', '.join(unknown[:3])}).", stacklevel=3)
            frame = frame[frame["query"].astype(str).isin(judged)].reset_index(drop=True)
            topics -= set(unknown)
        missing = len(judged - topics)
        if missing:
            warnings.warn(f"extra_runs: {path}: retrieves nothing for {missing} of the {len(judged)} judged topics; "
                          "it scores 0 on them.", stacklevel=3)
        frames[tag], sources[tag] = frame, path
        by_path[str(path)] = tag
    pooled_tags = []
    for name in _as_list(pooled):
        tag = by_path.get(str(name), str(name) if str(name) in frames else None)
        if tag is None:
            raise ReaderInputError(f"extra_runs_pooled: {name!r} is none of extra_runs ({', '.join(by_path) or 'none'}). "
                                   "Fix: name each pooled run by its path as given in extra_runs, or by its run tag.")
        pooled_tags.append(tag)
    return frames, sources, pooled_tags


def _restrict(runs: RunSet, qrels: Qrels, path) -> tuple[RunSet, Qrels]:
    """Runs and qrels on the topics both have (the reader's qrels may judge a subset, or more)."""
    keep = np.isin(runs.topics, qrels.topics)
    if not keep.any():
        raise ReaderInputError(f"qrels: {path}: judges none of the runs' topics (runs: {runs.topics[0]}-"
                               f"{runs.topics[-1]}; qrels: {qrels.topics[0]}-{qrels.topics[-1]}). "
                               "Fix: give qrels for the runs' topics (TREC-8: 401-450).")
    if not keep.all():
        runs = RunSet(runs.names, runs.topics[keep], runs.docnos, runs.docs[:, keep])
    frame = qrels.frame
    return runs, Qrels(frame[frame["query"].astype(str).isin(set(runs.topics))].reset_index(drop=True),
                       qrels.relevance_level)


def _reader_note(sources: dict, pooled_tags, qrels_path, qrels: Qrels | None) -> str:
    parts = []
    if sources:
        parts.append("the reader's own runs: " + ", ".join(
            f"{tag} ({Path(str(p)).name}, {'pooled' if tag in pooled_tags else 'unpooled'})"
            for tag, p in sources.items()))
    if qrels_path:
        parts.append(f"the reader's own qrels: {Path(str(qrels_path)).name} ({len(qrels.topics)} topics, "
                     f"{len(qrels.frame)} judgements) instead of TREC-8's")
    return ("; " + "; ".join(parts)) if parts else ""


def _synthetic_why(data_source):
    return "asked for" if data_source == "synthetic" else "no TREC-8 data found"


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], n_runs=Int(1), seed=SEED,
                 extra_runs=ANY, qrels=ANY)
def metrics_inputs(data_source="auto", data_dir=None, n_runs: int = 129, seed: int = 0, extra_runs=(),
                   qrels=None) -> TrecInputs:
    """The metrics chapter's runs (also each as read, for pytrec_eval), qrels and NIST's official MAP."""
    from fireeval.synthetic.trec_collection import simulate_trec

    extra, own_qrels = _as_list(extra_runs), qrels or None
    names = trec8.run_names()[:n_runs]
    files = ([] if own_qrels else [trec8.QRELS]) + [trec8.RUNS_TABLE, trec8.OFFICIAL] + [RUN_PATH.format(n) for n in names]
    source = decide(data_source, files, data_dir, {"extra_runs": extra, "qrels": own_qrels}, "the TREC-8 runs")
    if source == "synthetic":
        frames, qrels_frame, _ = simulate_trec(seed=seed)
        return TrecInputs("synthetic", f"SYNTHETIC stand-in ({_synthetic_why(data_source)}): simulated runs, "
                          "complete judgements", runs=RunSet.from_frames(frames), qrels=Qrels(qrels_frame),
                          as_read=frames)
    judgements = read_reader_qrels(own_qrels) if own_qrels else trec8.load_qrels(root=data_dir)
    paths = {n: data_path(RUN_PATH.format(n), data_dir) for n in names}
    tables = {n: read_run_table(path) for n, path in paths.items()}  # the scores pytrec_eval is given, as parsed
    mine, sources, _ = read_reader_runs(extra, judgements, taken=tables)
    # Without runs of the reader's, the RunSet comes from the parsed-runs cache (the same to the bit, without
    # assembling 6.6 million rows again: issue 38); with them, from the tables just read, as _read_runs does.
    runs = read_runset(paths) if not mine else RunSet.from_tables({**tables, **mine}, sources=sources)
    if own_qrels:
        runs, judgements = _restrict(runs, judgements, own_qrels)
    official = None if own_qrels else trec8.load_official_map(root=data_dir).reindex(names)
    note = (f"real data: {len(names)} TREC-8 Ad Hoc runs" + ("" if own_qrels else ", official qrels")
            + _reader_note(sources, (), own_qrels, judgements))
    return TrecInputs("real", note, reader_files=tuple(map(str, [*extra, *([own_qrels] if own_qrels else [])])),
                      runs=runs, qrels=judgements, as_read={**tables, **mine}, official_map=official, reader_runs=tuple(mine),
                      reader_qrels=str(own_qrels) if own_qrels else None,
                      complete=not own_qrels and len(names) == 129)


@validate_params(chapter=Options(*SYNTHETIC), data_source=Options(*SOURCES),
                 data_dir=[Instance(str, os.PathLike), None], max_runs=Int(0), pool_depth=Int(1), seed=SEED,
                 extra_runs=ANY, extra_runs_pooled=ANY, qrels=ANY)
def pooled_inputs(chapter: str, data_source="auto", data_dir=None, max_runs: int = 0, pool_depth: int = 100,
                  seed: int = 0, extra_runs=(), extra_runs_pooled=(), qrels=None) -> TrecInputs:
    """The pool chapters' runs, qrels and run table (``chapter``: pool_depth or pool_leave_out, which sets the
    stand-in's size); pool_leave_out also gets NIST's leave-one-group-out scores (``gloo``)."""
    extra, own_qrels, pooled_named = _as_list(extra_runs), qrels or None, _as_list(extra_runs_pooled)
    if pooled_named and not extra:
        raise ReaderInputError("extra_runs_pooled names runs but extra_runs is empty. "
                               "Fix: list the run files in extra_runs too.")
    want_gloo = chapter == "pool_leave_out"
    names = trec8.run_names()[:max_runs] if max_runs else trec8.run_names()
    files = (([] if own_qrels else [trec8.QRELS]) + [trec8.RUNS_TABLE] + ([trec8.GLOO] if want_gloo else [])
             + [RUN_PATH.format(n) for n in names])
    source = decide(data_source, files, data_dir,
                    {"extra_runs": extra, "extra_runs_pooled": pooled_named, "qrels": own_qrels}, "the TREC-8 runs")
    if source == "synthetic":
        return _synthetic_pooled(chapter, data_source, pool_depth, seed)
    judgements = read_reader_qrels(own_qrels) if own_qrels else trec8.load_qrels(root=data_dir)
    paths = {n: data_path(RUN_PATH.format(n), data_dir) for n in names}
    mine, mine_sources, pooled_tags = read_reader_runs(extra, judgements, taken=paths, pooled=pooled_named)
    runs = _read_runs(paths, mine, mine_sources)
    if own_qrels:
        runs, judgements = _restrict(runs, judgements, own_qrels)
    table = _pooled_runs_table(trec8.load_runs_table(root=data_dir), names, mine, pooled_tags)
    for tag in pooled_tags:  # a pooled run's top pool_depth should have been judged
        _warn_unjudged(runs, judgements, tag, pool_depth, mine_sources[tag])
    comparable = not own_qrels and not pooled_tags  # NIST's scores are for TREC-8's own pool and qrels
    gloo = trec8.load_gloo_official(root=data_dir).reindex(names) if want_gloo and comparable else None
    note = (f"real data: {len(names)} TREC-8 Ad Hoc runs (of 129), "
            + ("" if own_qrels else "NIST's official qrels ")
            + "(a stand-in for the unavailable TRECVID 2003 runs)"
            + _reader_note(mine_sources, pooled_tags, own_qrels, judgements))
    return TrecInputs("real", note, reader_files=tuple(map(str, [*extra, *([own_qrels] if own_qrels else [])])),
                      runs=runs, qrels=judgements, table=table, gloo=gloo, reader_runs=tuple(mine),
                      reader_qrels=str(own_qrels) if own_qrels else None,
                      complete=comparable and len(names) == 129)


def _read_runs(paths: dict, mine: dict, mine_sources: dict) -> RunSet:
    """TREC-8's runs (``{name: path}``) as :func:`read_run_table` reads them (validated, in trec_eval order: no
    frame and no Python string per row), then the reader's frames ``mine``, as one RunSet. Without runs of the
    reader's, through the parsed-runs cache (:func:`fireeval.core.parsed_cache.read_runset`: parsed once per
    machine, the same RunSet to the bit); with them, read here, as their vocabulary and depth join TREC-8's."""
    if not mine:
        return read_runset(paths)
    return RunSet.from_tables({**{n: read_run_table(p) for n, p in paths.items()}, **mine}, sources=mine_sources)


def _synthetic_pooled(chapter: str, data_source, pool_depth: int, seed: int) -> TrecInputs:
    """:func:`pooled_inputs`' synthetic stand-in: simulated TREC-like runs of the chapter's size, pooled to
    ``pool_depth``."""
    from fireeval.synthetic.trec_collection import simulate_pooled_trec

    size = SYNTHETIC[chapter]
    frames, qrels_frame, table, _ = simulate_pooled_trec(**size, n_docs=5000, depth=1000, pool_depth=pool_depth,
                                                         seed=seed)
    table = table.assign(yours=False)
    n = size["n_groups"] * size["runs_per_group"]
    note = (f"SYNTHETIC stand-in ({_synthetic_why(data_source)}): {n} simulated runs of {size['n_groups']} "
            f"groups, {int(table['pooled'].sum())} pooled to depth {pool_depth}")
    return TrecInputs("synthetic", note, runs=RunSet.from_frames(frames), qrels=Qrels(qrels_frame), table=table)


def _pooled_runs_table(runs_table: pd.DataFrame, names, mine, pooled_tags) -> pd.DataFrame:
    """The TREC-8 runs table restricted to ``names`` (``yours`` False), then a row per reader run ``mine``
    (its own group, type ``yours``, ``pooled`` when its tag is among ``pooled_tags``)."""
    table = runs_table.set_index("run").loc[names].reset_index().assign(yours=False)
    if not mine:
        return table
    return pd.concat([table, pd.DataFrame({"run": list(mine), "group": list(mine), "type": "yours",
                                           "pooled": [t in pooled_tags for t in mine], "yours": True})],
                     ignore_index=True)


def _warn_unjudged(runs: RunSet, qrels: Qrels, tag: str, depth: int, path) -> None:
    one = runs.select([tag], depth=depth)
    top = int((one.docs >= 0).sum())
    judged = int((one.judged(qrels) & (one.docs >= 0)).sum())
    if top and judged < top:
        warnings.warn(f"extra_runs_pooled: {path}: {top - judged} of the {top} documents in its top {depth} are not "
                      "in the qrels, though it is marked pooled; they count as non-relevant.", stacklevel=3)
