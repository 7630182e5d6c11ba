"""Score runs one at a time against qrels held once: the engine of ``fireeval evaluate``.

:class:`QrelsIndex` interns the judged documents once per collection (sorted int64
keys, one per judged (topic, document)); :func:`score_run` looks a run's documents up
in it and computes the measures of :mod:`fireeval.core.measures` on the run's
(topics x ranks) grade array, a block of topics at a time so memory stays bounded.
No pandas: the command starts fast and a run costs a few vectorised passes.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from fireeval.core import ranking
from fireeval.core.measures import Context, Measure, check_version, parse
from fireeval.core.measures.base import GM_EPSILON, summarise
from fireeval.core.measures.text import relstrings
from fireeval.core.trec import (RunTable, as_bytes_array, bytes_hash, fixed_bytes, intern_rows, raise_bad_qrels,
                                read_qrels_columns, topic_codes)

from fireeval.core.validation import ANY, BOOL, Int, Options, STR, validate_params

__all__ = ["QrelsIndex", "score_run", "RunScores"]

_BLOCK = 4_000_000  # grade cells per block of topics (~32 MB of float64)
# judged (topic, document) look-up: a dense (topics x vocabulary) byte table when it has at most this many
# cells per run row (filling it costs less than hash probing), built this many bytes at a time
_DENSE_CELLS_PER_ROW = 256
_DENSE_BLOCK_BYTES = 1 << 25
#: the summary of a run's values over topics, without re-checking arrays the engine made (issue 38)
_summarise = summarise.__wrapped__


class _IntIndex:
    """Open-addressing hash table (linear probing, vectorised) from distinct 64-bit keys to positions.

    numpy's binary search costs ~20 cache misses per query; this costs one or two. The
    table holds the keys themselves (no second gather to confirm a hit) and is at most a
    quarter full, so most absent keys -- most of a run's documents are unjudged -- end at
    their first slot. It is built in one pass: keys in order of their home
    slot each take the first free slot at or after it (a running maximum), so every key
    sits in an unbroken stretch of full slots from its home; probing runs past the last
    home slot into overflow slots rather than wrapping, and the table ends in an empty one.
    """

    _EMPTY = np.uint64(2**64 - 1)

    def __init__(self, keys, hashed: bool = False):
        """``hashed``: the keys are already well-mixed hashes (:func:`~fireeval.core.trec.bytes_hash`), so
        their top bits are the home slot as they are; sorted hashed keys then need no sort here."""
        keys = np.ascontiguousarray(keys).view(np.uint64)
        n = len(keys)
        self.hashed = hashed
        self.bits = max(4, (4 * max(n, 1)).bit_length())  # four to eight times as many home slots as keys
        special = np.flatnonzero(keys == self._EMPTY)  # the one key value that marks an empty slot
        self.special = int(special[0]) if len(special) else -1
        pending = np.flatnonzero(keys != self._EMPTY) if len(special) else np.arange(n)
        home = self._home(keys[pending])
        if not (home[1:] >= home[:-1]).all():
            by_home = np.argsort(home)
            home, pending = home[by_home], pending[by_home]
        step = np.arange(len(home))
        slot = np.maximum.accumulate(home - step) + step if len(home) else home  # first free slot from home
        size = max(1 << self.bits, int(slot[-1]) + 1 if len(slot) else 0) + 1  # the last slot stays empty
        self.slot_keys = np.full(size, self._EMPTY, dtype=np.uint64)
        self.slot_pos = np.full(size, -1, dtype=np.int64 if n >= 2**31 else np.int32)
        self.slot_keys[slot] = keys[pending]
        self.slot_pos[slot] = pending
        self.max_probe = int((slot - home).max()) + 1 if len(slot) else 0

    def _home(self, keys):
        if self.hashed:
            return (keys >> np.uint64(64 - self.bits)).astype(np.int64)
        with np.errstate(over="ignore"):
            mixed = keys * np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits mix every bit
        return (mixed >> np.uint64(64 - self.bits)).astype(np.int64)

    def get(self, queries) -> np.ndarray:
        """Position of each query key, -1 when absent."""
        queries = np.ascontiguousarray(queries).view(np.uint64)
        slot = self._home(queries)
        found = self.slot_keys[slot]
        out = np.where(found == queries, self.slot_pos[slot], -1).astype(np.int64, copy=False)  # empty: -1 too
        active = np.flatnonzero((found != queries) & (found != self._EMPTY))  # collided: probe on
        for _ in range(self.max_probe - 1):
            if not active.size:
                break
            slot_a = slot[active] + 1  # (never past the end: the last slot is empty, probing stops there)
            slot[active] = slot_a
            found = self.slot_keys[slot_a]
            hit = found == queries[active]
            out[active[hit]] = self.slot_pos[slot_a[hit]]
            active = active[~hit & (found != self._EMPTY)]
        if self.special >= 0:
            out[queries == self._EMPTY] = self.special
        return out


class QrelsIndex:
    """Judgements interned once: topics, document vocabulary, sorted (topic, document) keys.

    Build with :meth:`read` (a qrels file) or from parallel arrays. ``relevance_level``
    is trec_eval's ``-l``.

    Parameters
    ----------
    query, docno : array_like of str or bytes
        Each judgement's topic and document.
    relevance : array_like of int
        Each judgement's grade.
    relevance_level : int
        The least grade counted as relevant (trec_eval's ``-l``).
    source : path-like, optional
        The file the arrays came from: a duplicate judgement is reported at its line.

    Examples
    --------
    >>> index = QrelsIndex(["1", "1", "2"], ["d1", "d2", "d1"], [1, 0, 2])
    >>> index.topics.tolist(), index.vocabulary.tolist(), index.grades.tolist()
    (['1', '2'], [b'd1', b'd2'], [1.0, 0.0, 2.0])
    """

    def __init__(self, query, docno, relevance, relevance_level: int = 1, source=None):
        query, docno = as_bytes_array(query), as_bytes_array(docno)
        self.relevance_level = int(relevance_level)
        t, self.topics = topic_codes(query)  # topics sorted as strings, as trec_eval prints them
        t = t.astype(np.int64)
        # documents are found by a 64-bit hash of their bytes (padded to whole words), computed once here
        if docno.dtype.itemsize % 8 == 0 and len(docno):  # as the reader gives them: whole words
            rows = docno.view(np.uint8).reshape(len(docno), -1)
        else:
            rows, _ = fixed_bytes(docno, -(-max(docno.dtype.itemsize, 1) // 8) * 8)
        d, firsts, hashes = intern_rows(rows)
        hashes = hashes[firsts]
        self._vocab_rows = rows[firsts]
        self.vocabulary = self._vocab_rows.view(f"S{rows.shape[1]}").ravel()  # distinct docnos, bytes
        del rows
        self._n_vocab = len(firsts)
        keys = t * self._n_vocab + d
        order = np.argsort(keys)  # (keys are distinct, or refused below)
        self.keys, self.grades = keys[order], np.asarray(relevance, dtype=np.int64)[order].astype(float)
        if (self.keys[1:] == self.keys[:-1]).any():  # a document judged twice for one topic
            if source is not None:
                raise_bad_qrels(source)  # names the line
            raise ValueError("qrels judge a document twice for one topic; keep one line per (topic, document)")
        self.row_topic = t[order]
        self._vocab_dict = self._vocab_index = None
        # intern_rows numbers the documents in hash order (unless two distinct docnos shared a hash)
        ordered = hashes if (hashes[1:] >= hashes[:-1]).all() else np.sort(hashes)
        if (ordered[1:] == ordered[:-1]).any():  # a collision: fall back to a dict
            self._vocab_dict = {d: i for i, d in enumerate(self.vocabulary.tolist())}
        else:
            self._vocab_index = _IntIndex(hashes, hashed=True)
        self._pair_index = self._dense_table = None
        # one-byte grade codes for the dense look-up table (255 = unjudged), when the grades span < 255
        self._low = float(self.grades.min()) if len(self.grades) else 0.0
        self._byte_codes = ((self.grades - self._low).astype(np.uint8)
                            if len(self.grades) and self.grades.max() - self._low < 255 else None)
        n_topics = len(self.topics)
        self._counts = {}
        # ideal gains: each topic's positive grades sorted descending, zero-padded
        self.ideal = ranking.ideal_gains(self.row_topic, self.grades, n_topics)

    @classmethod
    def read(cls, path, relevance_level: int = 1) -> "QrelsIndex":
        """Read a qrels file (plain or gzip), validated as :func:`fireeval.core.trec.read_qrels_table`."""
        return cls(*read_qrels_columns(path, check_duplicates=False), relevance_level=relevance_level, source=path)

    @classmethod
    def from_qrels(cls, qrels) -> "QrelsIndex":
        """From a :class:`fireeval.core.judgements.Qrels`."""
        frame = qrels.frame
        return cls(frame["query"].astype(str).to_numpy(), frame["docno"].astype(str).to_numpy(),
                   frame["relevance"].to_numpy(), qrels.relevance_level)

    def rows(self):
        """``(topics, docnos, grades)``: one entry per judgement, as str, str and int arrays (sorted by topic)."""
        docnos = self.vocabulary[self.keys % max(self._n_vocab, 1)] if len(self.keys) else self.vocabulary[:0]
        return (self.topics[self.row_topic].astype(str), np.char.decode(docnos, "utf-8").astype(str),
                self.grades.astype(np.int64))

    def counts(self, level: int):
        """(relevant, judged non-relevant) documents per topic at ``level``."""
        if level not in self._counts:
            rel = np.bincount(self.row_topic, weights=self.grades >= level, minlength=len(self.topics))
            non = np.bincount(self.row_topic, weights=(self.grades >= 0) & (self.grades < level),
                              minlength=len(self.topics))
            self._counts[level] = rel.astype(np.int64), non.astype(np.int64)
        return self._counts[level]

    def _judged_codes(self, docnos, hashes=None) -> np.ndarray:
        """Vocabulary code of each docno (-1: never judged); ``hashes``: their bytes_hash, when known."""
        if self._vocab_dict is not None or not self._n_vocab:
            get = (self._vocab_dict or {}).get
            return np.fromiter((get(d, -1) for d in as_bytes_array(docnos).tolist()), dtype=np.int64,
                               count=len(docnos))
        docnos = as_bytes_array(docnos)
        if hashes is None or docnos.dtype.itemsize % 8:
            rows, _ = fixed_bytes(docnos, -(-max(docnos.dtype.itemsize, 1) // 8) * 8)
            hashes = bytes_hash(rows)
        code = self._vocab_index.get(hashes)
        # confirm the bytes of the matches only (a hash match is not proof), word by word; the wider side
        # must be zero beyond the narrower one (a hash does not depend on zero padding)
        hit = np.flatnonzero(code >= 0)
        if not len(hit):
            return code
        mine = np.ascontiguousarray(docnos[hit]).view(np.uint8).reshape(len(hit), -1)
        if mine.shape[1] % 8:
            mine, _ = fixed_bytes(docnos[hit], -(-mine.shape[1] // 8) * 8)
        mine, judged = mine.view(np.uint64), self._vocab_rows.view(np.uint64)[code[hit]]
        common = min(mine.shape[1], judged.shape[1])
        if common <= 8:  # word by word: numpy's all(axis=1) over rows of a few words costs ten times more
            same = mine[:, 0] == judged[:, 0]
            for word in range(1, common):
                same &= mine[:, word] == judged[:, word]
        else:
            same = (mine[:, :common] == judged[:, :common]).all(axis=1)
        if mine.shape[1] > common:
            same &= ~mine[:, common:].any(axis=1)
        elif judged.shape[1] > common:
            same &= ~judged[:, common:].any(axis=1)
        code[hit[~same]] = -1
        return code

    def lookup(self, run: RunTable):
        """Per run row: index of its topic in :attr:`topics` (-1: not judged) and its grade (NaN: unjudged)."""
        topic_pos = np.searchsorted(self.topics, run.topics)  # both sorted as strings
        topic_pos = np.minimum(topic_pos, max(len(self.topics) - 1, 0))
        topic_pos = np.where(self.topics[topic_pos] == run.topics, topic_pos, -1) if len(self.topics) else \
            np.full(len(run.topics), -1)
        judged = self._judged_codes(run.dictionary, getattr(run, "dictionary_hashes", None))
        doc = judged[run.doc_codes]
        row_topic = np.repeat(topic_pos.astype(np.int32), np.diff(run.starts))
        grades = np.full(len(doc), np.nan)
        valid = np.flatnonzero((row_topic >= 0) & (doc >= 0))
        if not len(self.keys) or not len(valid):
            return topic_pos, grades
        topic, doc = row_topic[valid], doc[valid]
        if self._byte_codes is not None and len(self.topics) * self._n_vocab <= _DENSE_CELLS_PER_ROW * len(doc):
            grades[valid] = self._dense_grades(topic, doc)
            return topic_pos, grades
        if self._pair_index is None:
            self._pair_index = _IntIndex(self.keys)
        keys = topic.astype(np.int64) * self._n_vocab + doc
        pos = np.concatenate([self._pair_index.get(part)  # in parts: bounded temporaries
                              for part in np.array_split(keys, max(1, len(keys) // 2_000_000))])
        values = np.full(len(pos), np.nan)
        values[pos >= 0] = self.grades[pos[pos >= 0]]
        grades[valid] = values
        return topic_pos, grades

    def _dense_grades(self, topic, doc):
        """Grade of each (topic, document) through a (topics x vocabulary) table of one-byte grade codes,
        a block of topics at a time. ``topic`` is non-decreasing (run rows are grouped by topic), so
        consecutive look-ups stay in one topic's row of the table: cache hits, unlike a hash table."""
        n_vocab, unjudged, codes = self._n_vocab, np.uint8(255), self._byte_codes
        out = np.empty(len(topic))
        block = max(1, _DENSE_BLOCK_BYTES // n_vocab)
        edges = np.arange(0, len(self.topics) + block, block)
        row_bounds, qrels_bounds = np.searchsorted(topic, edges), np.searchsorted(self.row_topic, edges)
        for b, first in enumerate(edges[:-1]):
            rows = slice(row_bounds[b], row_bounds[b + 1])
            if rows.start == rows.stop:
                continue
            judged = slice(qrels_bounds[b], qrels_bounds[b + 1])
            table = self._dense_table if len(edges) == 2 else None  # a single block is kept for the next run
            if table is None:
                table = np.full(min(block, len(self.topics) - first) * n_vocab, unjudged)
                table[self.keys[judged] - first * n_vocab] = codes[judged]
                if len(edges) == 2:
                    self._dense_table = table
            found = table[(topic[rows] - first).astype(np.int64) * n_vocab + doc[rows]]
            out[rows] = np.where(found == unjudged, np.nan, found + self._low)
        return out


@dataclass(frozen=True)
class RunScores:
    """One run's per-topic values: ``values[name]`` of shape (n_topics,), with trec_eval summaries.

    ``missing`` marks the evaluated topics the run has no line for (only with ``complete``);
    ``printed`` the topics trec_eval prints a per-topic line for (9.0.7 skips missing ones,
    10.0 prints them). ``overrides`` holds summary values trec_eval does not average
    (``runid``; ``num_rel`` with ``-c``). Text measures (``relstring``) hold strings.

    Parameters
    ----------
    run : str
        The run's tag.
    topics : ndarray of str
        The evaluated topics.
    values : dict
        ``{measure name: per-topic values}``.
    aggregates : dict
        ``{measure name: how it is summarised}`` (``"mean"``, ``"gm"``, ``"sum"``, ``"none"`` ...).
    ignored_topics : list
        The run's topics without judgements.
    missing, printed : bool ndarray, optional
        As above.
    overrides : dict, optional
        Summary values used as given.

    Examples
    --------
    Usually made by :func:`score_run`:

    >>> import os, tempfile
    >>> from fireeval.core.trec import read_run_table
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("1 Q0 d1 1 0.9 sys\\n1 Q0 d2 2 0.5 sys\\n2 Q0 d2 1 0.7 sys\\n")
    >>> scores = score_run(read_run_table(path), QrelsIndex(["1", "1", "2"], ["d1", "d2", "d1"], [1, 0, 2]), ["P_1"])
    >>> scores.run, scores.values["P_1"].tolist(), scores.summary()
    ('sys', [1.0, 0.0], {'P_1': 0.5})
    """

    run: str
    topics: np.ndarray
    values: dict
    aggregates: dict
    ignored_topics: list
    missing: np.ndarray | None = None
    printed: np.ndarray | None = None
    overrides: dict | None = None

    def summary(self) -> dict:
        out = {}
        for m, v in self.values.items():
            how = self.aggregates[m]
            if self.overrides and m in self.overrides:
                out[m] = self.overrides[m]
            elif how == "gm" and self.printed is not None and not self.printed.all() and len(v):
                # 9.0.7 -c: the logs of the scored topics in order, then the floor once per missing topic
                logs = np.log(np.maximum(v[self.printed], GM_EPSILON))
                total = (np.cumsum(logs)[-1] if len(logs) else 0.0) + (~self.printed).sum() * np.log(GM_EPSILON)
                out[m] = float(np.exp(total / len(v)))
            elif how != "none":
                out[m] = float(_summarise(v[None, :], how)[0])
        return out


@validate_params(run=ANY, qrels=ANY, measures=ANY, complete=BOOL, judged_only=BOOL, relevance_level=[Int(0), None], max_retrieved=[Int(), None], rounding=[Options('trec_eval9', 'nearest'), None], version=STR)
def score_run(run: RunTable, qrels: QrelsIndex, measures, *, complete: bool = False, judged_only: bool = False,
              relevance_level: int | None = None, max_retrieved: int | None = None,
              rounding: str | None = None, version: str = "9.0.7") -> RunScores:
    """Score one run on its evaluation topics, as :func:`fireeval.core.evaluation.score_run_set` does.

    Topics are those of the run that have judgements (others are reported in
    ``ignored_topics``, trec_eval ignores them), or every qrels topic with ``complete``.

    Parameters
    ----------
    run, qrels
        A run read with :func:`fireeval.core.trec.read_run_table` and the judgements.
    measures : list of str or Measure
        As :func:`fireeval.core.evaluation.parse_measures` reads them.
    complete, judged_only, relevance_level, max_retrieved
        trec_eval's ``-c``, ``-J``, ``-l`` and ``-M``.
    version : {"9.0.7", "10.0"}
        The trec_eval to reproduce: 10.0 rounds the recall cut-offs of ``iprec_at_recall``
        and ``11pt_avg`` to nearest, and with ``complete`` scores a topic missing from the
        run as a ranking of one unjudged document (then prints it); 9.0.7 counts it 0 in
        the averages and prints nothing for it.
    rounding : str, optional
        Overrides the cut-off rounding (``"nearest"`` or ``"trec_eval9"``).

    Returns
    -------
    RunScores
        ``values[measure]`` per evaluation topic, the run's tag and the ignored and missing topics.

    Examples
    --------
    >>> from fireeval.core.trec import RunTable
    >>> q = QrelsIndex(["1", "1"], ["a", "b"], [1, 0])
    >>> r = RunTable("r", "t", np.array(["1"]), np.array([0, 2]), np.array([1, 0]), np.array([b"a", b"b"]),
    ...              np.array([2.0, 1.0]))
    >>> score_run(r, q, ["P_5", "relstring"]).values["relstring"].tolist()
    ['01']
    """
    check_version(version)
    if rounding is None:
        rounding = "nearest" if version == "10.0" else "trec_eval9"
    parsed = _parsed(measures, version)
    level = qrels.relevance_level if relevance_level is None else int(relevance_level)
    if max_retrieved is not None and max_retrieved < 0:
        raise ValueError(f"max_retrieved must be >= 0, not {max_retrieved}")
    topic_pos, row_grade = qrels.lookup(run)
    ignored = [str(t) for t, p in zip(run.topics, topic_pos) if p < 0]
    eval_pos, run_row, missing = _evaluation_rows(topic_pos, len(qrels.topics), complete)
    n_eval = len(eval_pos)
    sizes = np.diff(run.starts)
    n_ret, depth = _retrieved(sizes, run_row, missing, max_retrieved, version)
    rank = np.arange(len(row_grade), dtype=np.int64) - np.repeat(run.starts[:-1], sizes)
    rank = rank.astype(np.int32)
    row_eval = np.repeat(run_row.astype(np.int32), sizes)
    keep = (row_eval >= 0) & (rank < (depth if max_retrieved is None else min(depth, max_retrieved)))
    n_rel_all, n_non_all = qrels.counts(level)
    values = {m.name: (np.empty(n_eval, dtype=object) if m.kind in ("relstring", "runid") else np.zeros(n_eval))
              for m in parsed}
    # run and qrels topics are both in string order, so rows are already grouped by evaluation row
    if keep.all():
        cells = (row_eval, rank, row_grade)
    else:
        cells = (row_eval[keep], rank[keep], row_grade[keep])
    del keep
    counts = (n_rel_all[eval_pos], n_non_all[eval_pos], qrels.ideal[eval_pos], n_ret)
    _score_blocks(values, parsed, cells, counts, depth, (level, rounding, judged_only), run.tag)
    if missing.any():
        _reset_missing(values, parsed, missing, version)
    # trec_eval -c sums, over every qrels topic, the judgements with a grade above 0 (whatever -l says)
    overrides = {m.name: run.tag if m.kind == "runid" else float((qrels.grades > 0).sum())
                 for m in parsed if m.kind == "runid" or (m.kind == "num_rel" and complete)}
    printed = ~missing if version == "9.0.7" else np.ones(n_eval, dtype=bool)
    return RunScores(run.tag, qrels.topics[eval_pos], values, {m.name: m.aggregate for m in parsed}, ignored,
                     missing, printed, overrides)


def _parsed(measures, version: str) -> list:
    """The measures of ``score_run``'s argument: names parsed (printed as written), ``Measure`` kept."""
    if isinstance(measures, (str, Measure)):  # one name, not its letters
        measures = [measures]
    parsed = []
    for m in measures:
        parsed.extend([m] if isinstance(m, Measure) else parse(m, version, printing=True))
    return parsed


def _evaluation_rows(topic_pos, n_qrels_topics: int, complete: bool):
    """``(eval_pos, run_row, missing)``: the qrels topics evaluated (those of the run, or all with ``complete``),
    each run topic's evaluation row (-1: not evaluated), and the evaluated topics the run lacks."""
    if complete:
        eval_pos = np.arange(n_qrels_topics)
    else:
        eval_pos = np.sort(topic_pos[topic_pos >= 0])
    n_eval = len(eval_pos)
    row_of_qtopic = np.full(n_qrels_topics, -1, dtype=np.int64)
    row_of_qtopic[eval_pos] = np.arange(n_eval)
    run_row = np.where(topic_pos >= 0, row_of_qtopic[np.maximum(topic_pos, 0)], -1)
    missing = np.ones(n_eval, dtype=bool)
    missing[run_row[run_row >= 0]] = False
    return eval_pos, run_row, missing


def _score_blocks(values: dict, parsed: list, cells, counts, depth: int, options, tag) -> None:
    """Fill ``values`` block by block of evaluation rows: each block's ranked grades (NaN-padded to ``depth``)
    scored by every measure on one shared :class:`Context`."""
    r_eval, r_rank, r_grade = cells
    n_rel, n_non, ideal_all, n_ret = counts
    level, rounding, judged_only = options
    n_eval = len(n_ret)
    block = max(1, _BLOCK // depth)
    bounds = np.searchsorted(r_eval, np.arange(0, n_eval + block, block))
    for b, lo in enumerate(range(0, n_eval, block)):
        hi = min(lo + block, n_eval)
        sel = slice(bounds[b], bounds[b + 1])
        grades = np.full((hi - lo, depth), np.nan)
        grades[r_eval[sel] - lo, r_rank[sel]] = r_grade[sel]
        ret = n_ret[lo:hi]
        if judged_only:
            grades, ret = ranking.condense(grades)
        ctx = Context(grades, n_rel[lo:hi], ideal_all[lo:hi], level, n_non[lo:hi], ret, rounding)
        for m in parsed:
            values[m.name][lo:hi] = (relstrings(grades, ret, m.k) if m.kind == "relstring" else
                                     tag if m.kind == "runid" else m.compute(ctx))


def _retrieved(sizes, run_row, missing, max_retrieved, version: str):
    """``(n_ret, depth)``: documents retrieved per evaluated topic (cut at ``max_retrieved``) and the longest
    list scored (at least 1)."""
    sizes_cut = sizes if max_retrieved is None else np.minimum(sizes, max_retrieved)
    n_ret = np.zeros(len(missing), dtype=np.int64)
    n_ret[run_row[run_row >= 0]] = sizes_cut[run_row >= 0]
    if version == "10.0":
        # 10.0 evaluates a topic the run lacks (-c) on a stand-in ranking: one document, unjudged (-M 0: none)
        n_ret[missing] = 1 if max_retrieved is None else min(1, max_retrieved)
    return n_ret, max(int(sizes_cut[run_row >= 0].max()) if (run_row >= 0).any() else 0, 1)


def _reset_missing(values: dict, parsed: list, missing, version: str) -> None:
    """The values of the evaluated topics the run lacks: 9.0.7 never scores them (0 in every average, empty
    relstring); 10.0 scores a stand-in ranking, then resets num_ret, utility, unj, rbp_resid and relstring."""
    for m in parsed:
        if m.kind == "relstring":
            values[m.name][missing] = ""
        elif version == "10.0":
            if m.kind in ("num_ret", "utility", "unj", "rbp_resid"):
                values[m.name][missing] = 0.0
        elif m.kind != "runid":
            values[m.name][missing] = 0.0


def warn_ignored(scores: RunScores, source: str) -> None:
    """trec_eval's convention, said aloud: run topics without judgements are ignored."""
    if scores.ignored_topics:
        shown = ", ".join(scores.ignored_topics[:5]) + (" ..." if len(scores.ignored_topics) > 5 else "")
        warnings.warn(f"{source}: {len(scores.ignored_topics)} topic(s) have no judgements and are ignored "
                      f"(trec_eval convention): {shown}", stacklevel=2)
