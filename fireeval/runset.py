"""Many ranked runs as one integer array, so metrics vectorise over runs and topics.

A :class:`RunSet` holds ``docs`` of shape ``(n_runs, n_topics, depth)``: the code of
the document at each rank (trec_eval order), or -1 where a run retrieved fewer
documents. Codes index ``docnos``, one vocabulary shared by all runs, so looking up
judgements for every run is one vectorised search (:meth:`RunSet.gains`).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .judgements import Qrels
from .trec import raise_bad_run, read_run, trec_order

__all__ = ["RunSet"]


@dataclass(frozen=True, eq=False)
class RunSet:
    """Ranked runs over a common topic list.

    Attributes
    ----------
    names : list of str
        Run names (row order of ``docs``).
    topics : ndarray of str
        Sorted topic ids (column order of ``docs``).
    docnos : pandas.Index
        Document vocabulary; ``docs`` holds positions in it.
    docs : ndarray of int, shape (n_runs, n_topics, depth)
        Document code at each rank, -1 for no document.
    """

    names: list
    topics: np.ndarray
    docnos: pd.Index
    docs: np.ndarray

    @classmethod
    def from_frames(cls, runs: Mapping[str, pd.DataFrame], depth: int | None = None,
                    sources: Mapping[str, object] | None = None) -> "RunSet":
        """Build from ``{name: frame}`` with columns query, docno, score.

        Frames are put in trec_eval order (score descending, docno descending) unless
        they already carry a ``rank`` column from :func:`fireeval.trec.read_run`.
        ``depth`` keeps only each run's top ``depth`` documents per topic. A document
        listed twice for one topic is an error (naming the file when ``sources`` maps
        run names to paths).
        """
        if not runs:
            raise ValueError("no runs given: pass at least one run")
        names = list(runs)
        frames = []
        for i, name in enumerate(names):
            frame = runs[name]
            if len(frame) == 0:
                raise ValueError(f"run {name!r} is empty: it retrieves no document for any topic")
            if "rank" not in frame:
                frame = trec_order(frame)
            frames.append(frame)
        sizes = np.array([len(f) for f in frames])
        run_idx = np.repeat(np.arange(len(names), dtype=np.int32), sizes)
        query = np.concatenate([f["query"].to_numpy(dtype=object) for f in frames])
        docno = np.concatenate([f["docno"].to_numpy(dtype=object) for f in frames])
        rank = np.concatenate([f["rank"].to_numpy() for f in frames])
        topic_codes, topics = pd.factorize(query)
        order = np.argsort(np.asarray(topics, dtype=str))  # topics sorted as strings
        topic_codes = np.argsort(order)[topic_codes]
        topics = np.asarray(topics, dtype=str)[order]
        doc_codes, docnos = pd.factorize(docno)
        cls._check_duplicates(names, run_idx, topic_codes, doc_codes, len(docnos), sources or {})
        if depth is not None:
            keep = rank <= depth
            run_idx, topic_codes, doc_codes, rank = run_idx[keep], topic_codes[keep], doc_codes[keep], rank[keep]
        docs = np.full((len(names), len(topics), int(rank.max())), -1, dtype=np.int32)
        docs[run_idx, topic_codes, rank - 1] = doc_codes
        return cls(names, topics, pd.Index(docnos), docs)

    @staticmethod
    def _check_duplicates(names, run_idx, topic_codes, doc_codes, n_docs, sources):
        key = (run_idx.astype(np.int64) * (topic_codes.max() + 1) + topic_codes) * n_docs + doc_codes
        if len(pd.unique(key)) == len(key):
            return
        bad = names[run_idx[pd.Series(key).duplicated().to_numpy()][0]]
        if bad in sources:
            raise_bad_run(sources[bad])  # names the line
        raise ValueError(f"run {bad!r} lists a document twice for one topic; keep one line per (topic, document)")

    @classmethod
    def read(cls, paths: Sequence, names: Sequence[str] | None = None, depth: int | None = None) -> "RunSet":
        """Read TREC run files; names default to each file's run tag."""
        frames, sources = {}, {}
        for i, path in enumerate(paths):
            frame = read_run(path, check_duplicates=False)  # checked below, on integer codes
            name = names[i] if names is not None else str(frame["tag"].iloc[0])
            if name in frames:
                raise ValueError(f"{path}: run name {name!r} is used twice; pass distinct names")
            frames[name], sources[name] = frame, path
        return cls.from_frames(frames, depth=depth, sources=sources)

    @property
    def shape(self):
        return self.docs.shape

    @cached_property
    def n_retrieved(self) -> np.ndarray:
        """Documents retrieved per run and topic, shape (n_runs, n_topics)."""
        return (self.docs >= 0).sum(axis=-1)

    def select(self, runs: Sequence[str] | np.ndarray | None = None, depth: int | None = None) -> "RunSet":
        """A RunSet with a subset of runs (by name or boolean mask) and/or a shallower depth."""
        idx = np.arange(len(self.names))
        if runs is not None:
            runs = np.asarray(runs)
            idx = idx[runs] if runs.dtype == bool else np.array([self.names.index(r) for r in runs])
        docs = self.docs[idx][..., :depth] if depth else self.docs[idx]
        return RunSet([self.names[i] for i in idx], self.topics, self.docnos, docs)

    def qrels_codes(self, qrels: Qrels):
        """Judged (topic index, doc code, grade) in this RunSet's coding.

        Judged documents that no run retrieved get code -1 (they still count for
        the number of relevant documents, which comes from the qrels directly).
        """
        frame = qrels.frame
        t = pd.Index(self.topics).get_indexer(frame["query"].astype(str))
        d = self.docnos.get_indexer(frame["docno"].astype(str))
        return t, d, frame["relevance"].to_numpy()

    def keys(self) -> np.ndarray:
        """One int64 key per (topic, document) cell: topic * n_docs + code; -1 for no document."""
        n_docs = np.int64(len(self.docnos))
        topic = np.arange(len(self.topics), dtype=np.int64)[None, :, None]
        return np.where(self.docs >= 0, topic * n_docs + self.docs, -1)

    def _lookup(self, qrels: Qrels):
        """For every cell: is it judged, and with which grade (one vectorised search)."""
        t, d, grades = self.qrels_codes(qrels)
        keep = (t >= 0) & (d >= 0)
        qkeys = t[keep].astype(np.int64) * len(self.docnos) + d[keep]
        order = np.argsort(qkeys)
        qkeys, grades = qkeys[order], grades[keep][order]
        keys = self.keys()
        if not len(qkeys):
            return np.zeros(keys.shape, bool), np.zeros(keys.shape)
        pos = np.clip(np.searchsorted(qkeys, keys), 0, len(qkeys) - 1)
        found = (keys >= 0) & (qkeys[pos] == keys)
        return found, np.where(found, grades[pos], 0).astype(float)

    def gains(self, qrels: Qrels, topics: np.ndarray | None = None) -> np.ndarray:
        """Relevance grade at every rank, shape (n_runs, n_eval_topics, depth).

        ``topics`` (default: this RunSet's topics) selects and orders the topic axis;
        topics the runs never saw give an all-zero row, as trec_eval -c scores them.
        Unjudged documents get grade 0.
        """
        table = self._lookup(qrels)[1]
        if topics is None:
            return table
        cols = pd.Index(self.topics).get_indexer(np.asarray(topics, dtype=str))
        out = np.zeros(table.shape[:1] + (len(cols),) + table.shape[2:])
        out[:, cols >= 0] = table[:, cols[cols >= 0]]
        return out

    def judged(self, qrels: Qrels) -> np.ndarray:
        """Boolean (n_runs, n_topics, depth): is the document at this rank in the qrels at all?"""
        return self._lookup(qrels)[0]


def evaluation_topics(runs: RunSet, qrels: Qrels, complete: bool = False, source: str | None = None):
    """Topics to average over, with trec_eval's conventions.

    Default: topics in both the run(s) and the qrels. ``complete=True`` (trec_eval
    ``-c``): every qrels topic, absent ones scoring 0. Run topics without any
    judgement are ignored with a warning, as trec_eval does.
    """
    judged = set(qrels.topics)
    extra = [t for t in runs.topics if t not in judged]
    if extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        warnings.warn(f"{source or 'run'}: {len(extra)} topic(s) have no judgements and are ignored "
                      f"(trec_eval convention): {shown}", stacklevel=2)
    if complete:
        return qrels.topics
    return np.array([t for t in runs.topics if t in judged], dtype=str)

