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

from fireeval.core.judgements import Qrels
from fireeval.core.trec import RunTable, as_bytes_array, bytes_hash, raise_bad_run, read_run, trec_order

__all__ = ["RunSet"]


def _factorize(columns: list) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize`` of the columns one after another: (a code per row, the distinct values in order of first
    appearance, as objects). Columns of pyarrow strings (what :func:`fireeval.core.trec.read_run` returns) are
    encoded by pyarrow without a copy to Python strings per row, several times faster; the codes are the same."""
    if all(isinstance(c.array, pd.arrays.ArrowStringArray) for c in columns):
        import pyarrow as pa

        encoded = pa.chunked_array([pa.array(c.array) for c in columns]).combine_chunks().dictionary_encode()
        if encoded.null_count == 0:
            return (encoded.indices.to_numpy().astype(np.intp),
                    np.asarray(encoded.dictionary.to_pylist(), dtype=object))
    return pd.factorize(np.concatenate([c.to_numpy(dtype=object) for c in columns]))


def _run_rows(name: str, run) -> tuple:
    """``(topic names, topic index per row, docno bytes per row, 1-based rank per row)`` of one run of
    :meth:`RunSet.from_tables`, rows in trec_eval order."""
    if isinstance(run, RunTable):
        sizes = np.diff(run.starts)
        rank = np.arange(len(run.doc_codes)) - np.repeat(run.starts[:-1], sizes) + 1
        return run.topics, np.repeat(np.arange(len(run.topics)), sizes), run.dictionary[run.doc_codes], rank
    if len(run) == 0:
        raise ValueError(f"run {name!r} is empty: it retrieves no document for any topic. Fix: leave it out or "
                         "give its documents")
    frame = run if "rank" in run else trec_order(run)
    topic, topics = pd.factorize(frame["query"].astype(str).to_numpy(dtype=object))
    return (np.asarray(topics, dtype=str), topic, as_bytes_array(frame["docno"].to_numpy(dtype=object)),
            frame["rank"].to_numpy())


def _intern_first_seen(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(code per text, distinct texts as str objects)`` of a bytes (``S``) array, codes in order of first
    appearance: what ``pd.factorize`` gives for the decoded strings, without decoding every row."""
    def first_rows(codes):  # codes numbered in order of first appearance: the row where each first appears
        seen = np.maximum.accumulate(codes)
        return np.flatnonzero(np.r_[True, seen[1:] != seen[:-1]]) if len(codes) else np.zeros(0, dtype=np.int64)

    width = -(-max(texts.dtype.itemsize, 1) // 8) * 8  # whole 64-bit words, zero-padded
    words = np.ascontiguousarray(texts, dtype=f"S{width}").view(np.uint64).reshape(len(texts), -1)
    codes, _ = pd.factorize(bytes_hash(words))
    firsts = first_rows(codes)
    if not (words[firsts][codes] == words).all():  # two distinct docnos with one hash: code the texts exactly
        codes, _ = pd.factorize(texts.astype(object))
        firsts = first_rows(codes)
    return codes, np.asarray([t.decode("utf-8") for t in texts[firsts].tolist()], dtype=object)


@dataclass(frozen=True, eq=False)
class RunSet:
    """Ranked runs over a common topic list.

    Build with :meth:`from_frames` or :meth:`read`; the fields are:

    Parameters
    ----------
    names : list of str
        Run names (row order of ``docs``).
    topics : ndarray of str
        Sorted topic ids (column order of ``docs``).
    docnos : pandas.Index
        Document vocabulary; ``docs`` holds positions in it.
    docs : ndarray of int, shape (n_runs, n_topics, depth)
        Document code at each rank, -1 for no document.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = RunSet.from_frames({"r": pd.DataFrame({"query": ["1", "1"], "docno": ["a", "b"], "score": [0.2, 0.9]})})
    >>> runs.names, runs.topics.tolist(), runs.docs.shape
    (['r'], ['1'], (1, 1, 2))
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
        they already carry a ``rank`` column from :func:`fireeval.core.trec.read_run`.
        ``depth`` keeps only each run's top ``depth`` documents per topic. A document
        listed twice for one topic is an error (naming the file when ``sources`` maps
        run names to paths).
        """
        if not runs:
            raise ValueError("no runs given. Fix: pass at least one run")
        names = list(runs)
        frames = []
        for i, name in enumerate(names):
            frame = runs[name]
            if len(frame) == 0:
                raise ValueError(f"run {name!r} is empty: it retrieves no document for any topic. Fix: leave it out or "
                                 "give its documents")
            if "rank" not in frame:
                frame = trec_order(frame)
            frames.append(frame)
        sizes = np.array([len(f) for f in frames])
        run_idx = np.repeat(np.arange(len(names), dtype=np.int32), sizes)
        rank = np.concatenate([f["rank"].to_numpy() for f in frames])
        topic_codes, topics = _factorize([f["query"] for f in frames])
        order = np.argsort(np.asarray(topics, dtype=str))  # topics sorted as strings
        topic_codes = np.argsort(order)[topic_codes]
        topics = np.asarray(topics, dtype=str)[order]
        doc_codes, docnos = _factorize([f["docno"] for f in frames])
        cls._check_duplicates(names, run_idx, topic_codes, doc_codes, len(docnos), sources or {})
        return cls._assemble(names, run_idx, topic_codes, topics, doc_codes, docnos, rank, depth)

    @classmethod
    def _assemble(cls, names, run_idx, topic_codes, topics, doc_codes, docnos, rank, depth) -> "RunSet":
        """The RunSet of rows given as (run, topic, document code, 1-based rank), the top ``depth`` kept."""
        if depth is not None:
            keep = rank <= depth
            run_idx, topic_codes, doc_codes, rank = run_idx[keep], topic_codes[keep], doc_codes[keep], rank[keep]
        docs = np.full((len(names), len(topics), int(rank.max())), -1, dtype=np.int32)
        docs[run_idx, topic_codes, rank - 1] = doc_codes
        return cls(names, topics, pd.Index(docnos), docs)

    @classmethod
    def from_tables(cls, runs: Mapping[str, "RunTable | pd.DataFrame"], depth: int | None = None,
                    sources: Mapping[str, object] | None = None) -> "RunSet":
        """Build from ``{name: run}``, each run a :class:`fireeval.core.trec.RunTable` (what
        :func:`fireeval.core.trec.read_run_table` returns: validated, in trec_eval order) or a frame
        as :meth:`from_frames` takes.

        The same RunSet as :meth:`from_frames` of the same runs read with :func:`read_run` (names,
        topics, vocabulary in order of first appearance, codes), without making a Python string per
        row: a table's docnos stay bytes, coded by one hash table over their 64-bit hashes (the bytes
        confirmed; an exact pass over the texts if two distinct docnos ever shared a hash). A table's
        duplicates were refused when it was read; a frame's are checked as in :meth:`from_frames`.

        Examples
        --------
        >>> import os, tempfile
        >>> from fireeval.core.trec import read_run_table
        >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
        >>> _ = open(path, "w").write("2 Q0 b 1 0.7 s\\n1 Q0 a 1 0.5 s\\n1 Q0 b 2 0.9 s\\n")
        >>> runs = RunSet.from_tables({"s": read_run_table(path)})
        >>> runs.topics.tolist(), runs.docnos.tolist(), runs.docs.tolist()
        (['1', '2'], ['b', 'a'], [[[0, 1], [0, -1]]])
        """
        if not runs:
            raise ValueError("no runs given. Fix: pass at least one run")
        names = list(runs)
        parts = [_run_rows(name, runs[name]) for name in names]
        sizes = np.array([len(p[1]) for p in parts])
        run_idx = np.repeat(np.arange(len(names), dtype=np.int32), sizes)
        topics = np.unique(np.concatenate([p[0] for p in parts]).astype(str))  # sorted as strings
        topic_codes = np.concatenate([np.searchsorted(topics, p[0].astype(str))[p[1]] for p in parts])
        rank = np.concatenate([p[3] for p in parts])
        doc_codes, docnos = _intern_first_seen(np.concatenate([p[2] for p in parts]))
        framed = np.repeat([not isinstance(runs[n], RunTable) for n in names], sizes)
        if framed.any():  # tables were checked for duplicates when read
            cls._check_duplicates(names, run_idx[framed], topic_codes[framed], doc_codes[framed], len(docnos),
                                  sources or {})
        return cls._assemble(names, run_idx, topic_codes, topics, doc_codes, docnos, rank, depth)

    @staticmethod
    def _check_duplicates(names, run_idx, topic_codes, doc_codes, n_docs, sources):
        key = (run_idx.astype(np.int64) * (topic_codes.max() + 1) + topic_codes) * n_docs + doc_codes
        if len(pd.unique(key)) == len(key):
            return
        bad = names[run_idx[pd.Series(key).duplicated().to_numpy()][0]]
        if bad in sources:
            raise_bad_run(sources[bad])  # names the line
        raise ValueError(f"run {bad!r} lists a document twice for one topic. Fix: keep one line per (topic, document)")

    @classmethod
    def read(cls, paths: Sequence, names: Sequence[str] | None = None, depth: int | None = None) -> "RunSet":
        """Read TREC run files; names default to each file's run tag."""
        frames, sources = {}, {}
        for i, path in enumerate(paths):
            frame = read_run(path, check_duplicates=False)  # checked below, on integer codes
            name = names[i] if names is not None else str(frame["tag"].iloc[0])
            if name in frames:
                raise ValueError(f"{path}: run name {name!r} is used twice. Fix: pass distinct names")
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

    def _qrels_join(self, qrels: Qrels):
        """Join the qrels to this RunSet: per qrels row its topic index and judged-doc index,
        and for every vocabulary code the judged-doc index (-1 when never judged).

        The judged docnos are looked up in the vocabulary's hash table, built once per vocabulary
        (:attr:`_docno_index`) and reused by every later join: a chapter joins the same runs with
        qrels many times. A vocabulary with a repeated docno is looked up in the judged docnos instead.
        """
        frame = qrels.frame
        row_doc, judged_docs = pd.factorize(frame["docno"])
        row_topic = pd.Index(self.topics).get_indexer(frame["query"])
        vocabulary = self._docno_index
        if not vocabulary.is_unique:
            return row_topic, row_doc, len(judged_docs), pd.Index(judged_docs).get_indexer(self.docnos)
        code = vocabulary.get_indexer(judged_docs)  # each judged docno's code, -1 when no run retrieved it
        hit = code >= 0
        code_to_judged = np.full(len(vocabulary), -1, dtype=np.intp)
        code_to_judged[code[hit]] = np.flatnonzero(hit)
        return row_topic, row_doc, len(judged_docs), code_to_judged

    @cached_property
    def _docno_index(self) -> pd.Index:
        """The vocabulary as a pandas Index, whose hash table is built on its first look-up and then kept (when
        ``docnos`` is an Index already, that one: shared with the RunSets :meth:`select` makes)."""
        return self.docnos if isinstance(self.docnos, pd.Index) else pd.Index(self.docnos)

    def qrels_codes(self, qrels: Qrels):
        """Judged (topic index, doc code, grade) in this RunSet's coding.

        Judged documents that no run retrieved get code -1 (they still count for
        the number of relevant documents, which comes from the qrels directly).
        """
        row_topic, row_doc, n_judged, code_to_judged = self._qrels_join(qrels)
        judged_to_code = np.full(n_judged, -1, dtype=np.int64)
        hit = code_to_judged >= 0
        judged_to_code[code_to_judged[hit]] = np.flatnonzero(hit)
        return row_topic, judged_to_code[row_doc], qrels.frame["relevance"].to_numpy()

    def keys(self) -> np.ndarray:
        """One int64 key per (topic, document) cell: topic * n_docs + code; -1 for no document."""
        n_docs = np.int64(len(self.docnos))
        topic = np.arange(len(self.topics), dtype=np.int64)[None, :, None]
        return np.where(self.docs >= 0, topic * n_docs + self.docs, -1)

    def _lookup(self, qrels: Qrels) -> np.ndarray:
        """Per cell, the judgement's grade; NaN where the document is not judged or absent.

        A table (topics x judged documents) gathered at every cell when it is small;
        otherwise a binary search over sorted (topic, document) keys.
        """
        row_topic, row_doc, n_judged, code_to_judged = self._qrels_join(qrels)
        keep = row_topic >= 0
        row_topic, row_doc = row_topic[keep], row_doc[keep]
        row_value = qrels.frame["relevance"].to_numpy()[keep].astype(float)
        column = np.where(self.docs >= 0, code_to_judged[np.maximum(self.docs, 0)], -1)
        if len(self.topics) * (n_judged + 1) <= 50_000_000:
            # Column n_judged stays NaN: "never judged" and "no document" land there.
            table = np.full((len(self.topics), n_judged + 1), np.nan)
            table[row_topic, row_doc] = row_value
            column[column < 0] = n_judged
            return table[np.arange(len(self.topics))[None, :, None], column]
        qkeys = row_topic.astype(np.int64) * n_judged + row_doc
        order = np.argsort(qkeys)
        qkeys, row_value = qkeys[order], row_value[order]
        keys = np.where(column >= 0, np.arange(len(self.topics))[None, :, None] * n_judged + column, -1)
        if not len(qkeys):
            return np.full(keys.shape, np.nan)
        pos = np.clip(np.searchsorted(qkeys, keys), 0, len(qkeys) - 1)
        found = (keys >= 0) & (qkeys[pos] == keys)
        return np.where(found, row_value[pos], np.nan)

    def _select_topics(self, table, topics, fill):
        if topics is None or np.array_equal(np.asarray(topics, dtype=str), self.topics):
            return table
        cols = pd.Index(self.topics).get_indexer(np.asarray(topics, dtype=str))
        out = np.full(table.shape[:1] + (len(cols),) + table.shape[2:], fill, dtype=table.dtype)
        out[:, cols >= 0] = table[:, cols[cols >= 0]]
        return out

    def grades(self, qrels: Qrels, topics: np.ndarray | None = None) -> np.ndarray:
        """Relevance grade at every rank, NaN where unjudged or no document: (n_runs, n_eval_topics, depth).

        ``topics`` (default: this RunSet's topics) selects and orders the topic axis;
        topics the runs never saw give an all-NaN row (nothing retrieved).
        """
        return self._select_topics(self._lookup(qrels), topics, np.nan)

    def gains(self, qrels: Qrels, topics: np.ndarray | None = None) -> np.ndarray:
        """Relevance grade at every rank, shape (n_runs, n_eval_topics, depth).

        As :meth:`grades`, with unjudged documents (and empty ranks) at grade 0.
        """
        return np.nan_to_num(self.grades(qrels, topics), nan=0.0)

    def judged(self, qrels: Qrels) -> np.ndarray:
        """Boolean (n_runs, n_topics, depth): is the document at this rank in the qrels at all?"""
        return ~np.isnan(self._lookup(qrels))

    def retrieved_counts(self, topics: np.ndarray | None = None) -> np.ndarray:
        """Documents retrieved per run and topic (0 for topics a run lacks): (n_runs, n_eval_topics)."""
        return self._select_topics(self.n_retrieved[..., None], topics, 0)[..., 0]


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

