"""``fireeval.evaluate(qrels, run, measures)``: one entry point over both scoring engines.

Inputs are validated and normalised first (scikit-learn style: nothing is read or
scored before every argument is known to be usable), then dispatched: a
:class:`~fireeval.core.runset.RunSet` goes to the vectorised in-memory engine
(:func:`fireeval.core.evaluation.score_run_set`), every other run -- files, dicts, data
frames, :class:`~fireeval.core.trec.RunTable` -- to the streaming engine of
``fireeval evaluate`` (:class:`~fireeval.core.stream.QrelsIndex` and
:func:`~fireeval.core.stream.score_run`), one run at a time. Without a data frame in
and with ``output="dict"``, pandas is never imported.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from fireeval.core.validation import ANY, Check, STR, validate_params

__all__ = ["evaluate", "iter_run_scores", "ranx_note"]

_OUTPUTS = ("frame", "dict")
_TEXT_KINDS = ("runid", "relstring")  # printed by ``fireeval evaluate``; the API returns numbers
_QRELS_FORMS = ("a TREC qrels file (str or Path), a dict {topic: {docno: grade}}, a DataFrame with columns "
                "query_id, doc_id, relevance (or PyTerrier's qid, docno, label, or query, docno, relevance), "
                "ir_measures' Qrel tuples (an iterable), a fireeval Qrels or QrelsIndex")
_RUN_FORMS = ("a TREC run file (str or Path), a list of run files or a folder of them, a dict "
              "{topic: {docno: score}}, a DataFrame with columns query_id, doc_id, score (or PyTerrier's qid, docno, "
              "score, or query, docno, score or rank), ir_measures' ScoredDoc tuples (an iterable), a fireeval "
              "RunTable or RunSet, or for many runs a dict {run name: run}")
_MEASURE_FORMS = ("one measure name or a list of names, e.g. 'map', ['AP', 'P@10', 'ndcg_cut.10', 'C@1'], "
                  "'official' or 'all_trec', or ir_measures' measure objects (ir_measures.nDCG@10)")
#: one line beside the values of ranx's names: the conventions fireeval keeps and how to get ranx's
_RANX_NOTE = ("{names}: ranx's names, scored with trec_eval's conventions: tied scores ordered by docno, descending, "
              "and read as {precision}s (ranx: doubles, tied documents in its sort's order); to get ranx's values "
              "give tied documents distinct scores{double}")


@validate_params(measures=ANY, precision=STR, double=STR)
def ranx_note(measures, precision: str, double: str = "trec_eval_version='10.0'") -> str | None:
    """The one line said beside the values of ranx's names (``ndcg@10``): the conventions fireeval keeps where
    ranx's differ and how to get ranx's; None when no measure was asked by a ranx name.

    Parameters
    ----------
    measures : iterable of Measure
        The parsed measures (:func:`fireeval.core.measures.parse`); those whose ``owner`` is ``"ranx"`` are named.
    precision : str
        The floating type the values were computed in (``"float"`` or ``"double"``), said in the line.
    double : str
        How to get doubles, added when ``precision`` is ``"float"``.

    Returns
    -------
    str or None
        The note, one line; None when no measure has a ranx name.

    Examples
    --------
    >>> from fireeval.core.measures import parse
    >>> ranx_note(parse("ndcg@10", printing=True), "double")[:40]
    "ndcg@10: ranx's names, scored with trec_"
    """
    names = [m.name for m in measures if m.owner == "ranx"]
    if not names:
        return None
    return _RANX_NOTE.format(names=", ".join(names), precision=precision,
                             double=f", and {double} for doubles" if precision == "float" else "")


def _ir_measures_name(obj):
    """The name of an ir_measures measure object (``ir_measures.nDCG@10`` -> ``"nDCG@10"``), else None."""
    module = type(obj).__module__ or ""
    return str(obj) if module.split(".")[0] == "ir_measures" and hasattr(obj, "NAME") else None


def _records(obj, what: str, value: str):
    """ir_measures' namedtuples (``Qrel``, ``ScoredDoc``: any iterable of them) as ``{topic: {docno: value}}``;
    other forms are given back as they are (a one-shot iterator as a list)."""
    if isinstance(obj, (str, bytes, dict, os.PathLike, list, tuple)) or _is_frame(obj) or not hasattr(obj, "__iter__"):
        items = obj
    else:
        items = list(obj)  # a generator or ir_measures' lazy iterables: read once
    if not isinstance(items, (list, tuple)) or not items or not hasattr(items[0], "_fields"):
        return items
    fields = ("query_id", "doc_id", value)
    out = {}
    for row in items:
        if not all(hasattr(row, f) for f in fields):
            raise TypeError(f"{what}: a tuple with fields {', '.join(getattr(row, '_fields', ()))}. Fix: give "
                            f"ir_measures' namedtuples with fields {', '.join(fields)}")
        judged = out.setdefault(str(row.query_id), {})
        if str(row.doc_id) in judged:
            raise ValueError(f"{what}: document {row.doc_id} is listed twice for topic {row.query_id}. Fix: keep one "
                             f"{value} per (topic, document)")
        judged[str(row.doc_id)] = getattr(row, value)
    return out


# ---------------------------------------------------------------- type checks that never import pandas
def _is_frame(obj) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _instance(obj, module: str, name: str) -> bool:
    mod = sys.modules.get(module)
    return mod is not None and isinstance(obj, getattr(mod, name))


def _is_path(obj) -> bool:
    return isinstance(obj, (str, os.PathLike))


def _first_line_fields(path) -> int | None:
    """Fields on the first non-blank line of a (possibly gzip) text file; None if unreadable."""
    import gzip
    import zlib

    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            for _, line in zip(range(50), fh):
                if line.strip():
                    return len(line.split())
    except (OSError, EOFError, zlib.error):
        return None
    return None


def _string_array(strings):
    """A pyarrow string array from Python strings, built from its buffers (``pa.array`` imports pandas)."""
    import pyarrow as pa

    encoded = [str(x).encode("utf-8") for x in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets),
                                                             pa.py_buffer(b"".join(encoded))])


# ---------------------------------------------------------------- validation
def _check_flag(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {value!r}. Fix: pass {name}=True or {name}=False")
    return bool(value)


def _check_int(name, value, low, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be a whole number >= {low}{none}, not {value!r}. Fix: pass e.g. "
                         f"{name}={max(low, 1)}")
    return int(value)


def _check_output(name, value):
    if not isinstance(value, str) or value not in _OUTPUTS:
        raise ValueError(f"output must be 'frame' (a tidy DataFrame) or 'dict', not {value!r}. Fix: pass "
                         "output='frame' or output='dict'")


def _parse_measure_names(measures, version: str, text: bool = False) -> list:
    """The measures (``Measure`` objects, in the order given, each name once), or a one-line error."""
    from fireeval.core.evaluation import Measure

    if isinstance(measures, (str, Measure)) or _ir_measures_name(measures):
        measures = [measures]  # one name is one measure, never its letters
    elif not isinstance(measures, (list, tuple)):
        raise TypeError(f"measures: a {type(measures).__name__} is not a measure name. Fix: pass {_MEASURE_FORMS}")
    if not measures:
        raise ValueError(f"no measure given. Fix: pass {_MEASURE_FORMS}")
    parsed, seen = [], set()
    for name in measures:
        for m in _measures_of(_ir_measures_name(name) or name, version, text):
            if m.name not in seen:  # asked twice (P.10 and P_10): once
                seen.add(m.name)
                parsed.append(m)
    return parsed


def _measures_of(name, version: str, text: bool) -> list:
    """The measures one item of ``measures`` stands for (a name, a nickname or a ``Measure``)."""
    from fireeval.core.evaluation import Measure, parse_measures

    if isinstance(name, Measure):
        if not text and name.kind in _TEXT_KINDS:
            raise ValueError(f"measure {name.name!r} is text, not a number (fireeval evaluate prints it). Fix: "
                             "leave it out; a run's name is the 'run' of every result")
        return [name]
    if not isinstance(name, str):
        raise TypeError(f"measure {name!r} is a {type(name).__name__}. Fix: pass {_MEASURE_FORMS}")
    try:
        found = parse_measures(name, version, printing=True)
    except ValueError as err:  # said as the CLI says it: "-m NAME: ... --trec-eval 10.0"
        message = str(err).removeprefix(f"-m {name}: ").replace("--trec-eval 10.0", "trec_eval_version='10.0'")
        raise ValueError(f"measure {name!r}: {message}") from None
    if not text and any(m.kind in _TEXT_KINDS for m in found) and len(found) == 1:
        raise ValueError(f"measure {name!r} is text, not a number (fireeval evaluate prints it). Fix: "
                         "leave it out; a run's name is the 'run' of every result")
    return [m for m in found if text or m.kind not in _TEXT_KINDS]  # nicknames: the numbers only


# ---------------------------------------------------------------- qrels
def _qrels_columns(frame, what):
    """(topic, docno, value) column names of an ir_measures or trec DataFrame, or None."""
    columns = set(map(str, frame.columns))
    for topic, doc in (("query_id", "doc_id"), ("qid", "docno"), ("query", "docno")):  # (PyTerrier's query: text)
        if {topic, doc} <= columns:
            return topic, doc
    raise ValueError(f"{what}: a DataFrame needs columns query_id, doc_id (ir_measures), qid, docno (PyTerrier) or "
                     "query, docno (trec); "
                     f"it has {', '.join(map(str, frame.columns))}. Fix: rename its columns")


def _as_numbers(values, what, name, fix):
    """``np.asarray(values, dtype=float)``, with a Python int beyond a double's range (``10**400``: numpy's bare
    OverflowError) refused in one line."""
    try:
        return np.asarray(values, dtype=float)
    except OverflowError:
        bad = next(v for v in values if isinstance(v, int) and not -2**1023 < v < 2**1023)
        raise ValueError(f"{what}: {name} {str(bad)[:20]}... ({len(str(abs(bad)))} digits) is beyond a double's "
                         f"range. Fix: {fix}") from None


def _grades(values, what):
    """Integer grades, or a one-line error (a run's scores where qrels belong are the usual cause)."""
    values = np.asarray(values)
    if values.dtype == object:
        bad = next((v for v in values if not isinstance(v, (int, float, np.integer, np.floating))), None)
        if bad is not None:  # text such as "1" would pass astype(float): a guess
            raise ValueError(f"{what}: relevance {bad!r} is not a number. Fix: give integer grades "
                             "(0 = non-relevant)")
        try:
            values = values.astype(float)
        except OverflowError:
            _as_numbers(list(values), what, "relevance", "give integer grades between -2**31 and 2**31")
            raise
        except (TypeError, ValueError):
            bad = next(v for v in values if not isinstance(v, (int, float, np.number)))
            raise ValueError(f"{what}: relevance {bad!r} is not a number. Fix: give integer grades "
                             "(0 = non-relevant)") from None
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    if values.dtype.kind == "f":
        whole = np.isfinite(values) & (values == np.round(values))
        if not whole.all():
            bad = float(values[~whole][0])
            raise ValueError(f"{what}: relevance {bad!r} is not a whole number, so these look like a run's "
                             "scores. Fix: qrels come first, evaluate(qrels, run, measures), with integer grades")
    elif values.dtype.kind not in "iu":
        raise ValueError(f"{what}: relevance values of type {values.dtype} are not numbers. Fix: give integer "
                         "grades (0 = non-relevant)")
    if len(values) and np.abs(values).max() >= 2**31:
        raise ValueError(f"{what}: relevance {values[np.argmax(np.abs(values))]} is out of range. Fix: use "
                         "grades between -2**31 and 2**31")
    return values.astype(np.int64)


def _qrels_arrays(qrels):
    """``(topics, docnos, grades)`` of an in-memory qrels form, validated."""
    if isinstance(qrels, dict):
        if not qrels:
            raise ValueError("qrels: the dict is empty. Fix: give at least one judgement {topic: {docno: grade}}")
        topics, docs, grades = [], [], []
        for topic, judged in qrels.items():
            if not isinstance(judged, dict):
                raise TypeError(f"qrels: topic {topic!r} maps to a {type(judged).__name__}, not a dict "
                                f"{{docno: grade}}. Fix: pass {_QRELS_FORMS}")
            for doc, grade in judged.items():
                if isinstance(grade, dict):
                    raise ValueError("qrels: a dict of dicts of dicts looks like many runs {run: {topic: {docno: "
                                     "score}}}. Fix: qrels come first, evaluate(qrels, run, measures)")
                if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, (int, float, np.number)):
                    raise ValueError(f"qrels: topic {topic}, document {doc}: relevance {grade!r} is not a number. "
                                     "Fix: give integer grades (0 = non-relevant)")
                topics.append(str(topic))
                docs.append(str(doc))
                grades.append(grade)
        if not topics:
            raise ValueError("qrels: no judgement in the dict. Fix: give at least one {topic: {docno: grade}}")
        return np.asarray(topics, dtype=str), np.asarray(docs, dtype=str), _grades(np.asarray(grades), "qrels")
    topic, doc = _qrels_columns(qrels, "qrels")
    columns = set(map(str, qrels.columns))
    grade = "relevance" if "relevance" in columns or "label" not in columns else "label"  # (label: PyTerrier's)
    if grade not in columns:
        hint = (" This looks like a run (it has a score column). Fix: qrels come first, evaluate(qrels, run, "
                "measures)" if "score" in columns else " Fix: name the grade column relevance")
        raise ValueError(f"qrels: the DataFrame has no relevance column.{hint}")
    if not len(qrels):
        raise ValueError("qrels: the DataFrame is empty. Fix: give at least one judgement")
    return (qrels[topic].astype(str).to_numpy(dtype=str), qrels[doc].astype(str).to_numpy(dtype=str),
            _grades(qrels[grade].to_numpy(), "qrels"))


def _check_qrels(qrels, sniff: bool = True):
    """A one-line error for a qrels argument in no accepted form (before any reading)."""
    if _is_path(qrels) and not sniff:
        return
    if _is_path(qrels):
        path = Path(qrels)
        if not path.is_file():
            raise FileNotFoundError(f"qrels: {path} is not a file. Fix: give the path of a TREC qrels file "
                                    "(query iteration docno relevance)")
        if _first_line_fields(path) == 6:
            raise ValueError(f"qrels: {path} has 6 columns per line: a run file, not qrels. Fix: qrels come first, "
                             "evaluate(qrels, run, measures)")
        return
    if isinstance(qrels, dict) or _is_frame(qrels) or _instance(qrels, "fireeval.core.judgements", "Qrels") \
            or _instance(qrels, "fireeval.core.stream", "QrelsIndex"):
        return
    raise TypeError(f"qrels: a {type(qrels).__name__} is not a form of judgements fireeval reads. Fix: pass "
                    f"{_QRELS_FORMS}")


def _qrels_index(qrels, level: int):
    """A :class:`QrelsIndex` of any accepted qrels form."""
    from fireeval.core.stream import QrelsIndex

    # (score_run is given the level too: a QrelsIndex or Qrels of another level is used as it is)
    if _instance(qrels, "fireeval.core.stream", "QrelsIndex"):
        return qrels
    if _is_path(qrels):
        return QrelsIndex.read(qrels, relevance_level=level)
    if _instance(qrels, "fireeval.core.judgements", "Qrels"):
        return QrelsIndex.from_qrels(qrels)
    topics, docs, grades = _qrels_arrays(qrels)
    return QrelsIndex(_string_array(topics.tolist()), _string_array(docs.tolist()), grades, relevance_level=level)


def _qrels_frame_object(qrels, level: int):
    """A :class:`Qrels` (pandas) of any accepted qrels form, for the in-memory engine."""
    import pandas as pd

    from fireeval.core.judgements import Qrels

    if _instance(qrels, "fireeval.core.judgements", "Qrels"):
        return qrels  # (evaluate() is given the level)
    if _is_path(qrels):
        return Qrels.read(qrels, level)
    if _instance(qrels, "fireeval.core.stream", "QrelsIndex"):
        topics, docs, grades = qrels.rows()
        frame = pd.DataFrame({"query": topics.astype(object), "docno": docs.astype(object), "relevance": grades})
        return Qrels(frame, level)
    topics, docs, grades = _qrels_arrays(qrels)
    return Qrels(pd.DataFrame({"query": topics.astype(object), "docno": docs.astype(object), "relevance": grades}),
                 level)


# ---------------------------------------------------------------- runs
def _run_table(topics, docs, scores, tag, what, precision):
    """A :class:`RunTable` in trec_eval order (score descending, ties by docno descending) from columns."""
    from fireeval.core.trec import RunTable

    scores = _as_numbers(scores, what, "score", "give scores between -1.8e308 and 1.8e308")
    if not len(scores):
        raise ValueError(f"{what}: the run is empty. Fix: give at least one retrieved document")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise ValueError(f"{what}: topic {topics[bad]}, document {docs[bad]}: score {scores[bad]} is not a finite "
                         "number. Fix: give every document a finite score")
    names, t = np.unique(topics, return_inverse=True)  # topics sorted as strings, as trec_eval prints them
    vocab, d = np.unique(docs, return_inverse=True)  # code point order = UTF-8 byte order (trec_eval's strcmp)
    pair = t.astype(np.int64) * len(vocab) + d
    ordered_pairs = np.sort(pair)
    twice = ordered_pairs[1:] == ordered_pairs[:-1]
    if twice.any():
        key = ordered_pairs[1:][twice][0]
        raise ValueError(f"{what}: document {vocab[key % len(vocab)]} is listed twice for topic "
                         f"{names[key // len(vocab)]}. Fix: keep one score per (topic, document)")
    dtype = np.float32 if precision == "float" else np.float64
    with np.errstate(over="ignore"):
        compared = scores.astype(dtype) + dtype(0)  # as trec_eval's C float (9.0.7) or double (10.0)
    order = np.lexsort((-d, -compared, t))
    t = t[order]
    starts = np.r_[0, np.flatnonzero(t[1:] != t[:-1]) + 1, len(t)]
    return RunTable(what, str(tag), names[t[starts[:-1]]], starts, d[order].astype(np.int32),
                    _string_array(vocab.tolist()), scores[order])


def _run_from_dict(run: dict, name: str, precision):
    topics, docs, scores = [], [], []
    for topic, ranked in run.items():
        if not isinstance(ranked, dict):
            raise TypeError(f"run {name!r}: topic {topic!r} maps to a {type(ranked).__name__}, not a dict "
                            f"{{docno: score}}. Fix: pass {_RUN_FORMS}")
        for doc, score in ranked.items():
            if isinstance(score, (bool, np.bool_)) or not isinstance(score, (int, float, np.number)):
                raise ValueError(f"run {name!r}: topic {topic}, document {doc}: score {score!r} is not a number. "
                                 "Fix: give every document a numeric score")
            topics.append(str(topic))
            docs.append(str(doc))
            scores.append(score)
    return _run_table(np.asarray(topics, dtype=str), np.asarray(docs, dtype=str), scores, name, f"run {name!r}",
                      precision)


def _real_column(values, what: str, column: str) -> np.ndarray:
    """A DataFrame column of real numbers as floats; complex, dates, durations, text and booleans refused."""
    from fireeval.core.ranking import real_numbers

    return real_numbers(values, f"{what}: the {column} column")


def _run_from_frame(frame, name: str, precision):
    what = f"run {name!r}"
    topic, doc = _qrels_columns(frame, what)
    columns = set(map(str, frame.columns))
    if "score" in columns:
        scores = _real_column(frame["score"].to_numpy(), what, "score")
    elif "rank" in columns:
        scores = -_real_column(frame["rank"].to_numpy(), what, "rank")  # the best rank first
    else:
        hint = (" This looks like qrels (it has a relevance column). Fix: qrels come first, evaluate(qrels, run, "
                "measures)" if columns & {"relevance", "label"} else " Fix: add a score (or rank) column")
        raise ValueError(f"{what}: the DataFrame has no score or rank column.{hint}")
    try:
        scores = _as_numbers(scores, what, "score", "give scores between -1.8e308 and 1.8e308")
    except (TypeError, ValueError) as err:
        if "beyond a double" in str(err):
            raise
        raise ValueError(f"{what}: the score column holds values that are not numbers. Fix: give numeric "
                         "scores") from None
    tag = name
    for col in ("run", "tag", "run_id"):
        if name == "run" and col in columns and len(frame):
            tag = str(frame[col].iloc[0])
            break
    return _run_table(frame[topic].astype(str).to_numpy(dtype=str), frame[doc].astype(str).to_numpy(dtype=str),
                      scores, tag, what, precision)


def _runset_tables(runs):
    """One :class:`RunTable` per run of a :class:`RunSet` (its documents, already in trec_eval order)."""
    from fireeval.core.trec import RunTable

    dictionary = _string_array(runs.docnos)
    for i, name in enumerate(runs.names):
        docs = runs.docs[i]
        sizes = (docs >= 0).sum(axis=-1)
        kept = sizes > 0
        starts = np.r_[0, np.cumsum(sizes[kept])]
        codes = docs[kept][docs[kept] >= 0]  # row-major: topics in order, ranks in order
        yield name, RunTable(str(name), str(name), runs.topics[kept], starts, codes.astype(np.int32), dictionary,
                             -np.arange(len(codes), dtype=float))


def _is_run_dict(obj) -> bool:
    """``{topic: {docno: score}}`` (one run), as opposed to ``{name: run}``."""
    first = next(iter(obj.values()), None)
    return isinstance(first, dict) and all(not isinstance(v, dict) for v in first.values())


def _named_runs(run: dict) -> list:
    """``[(name, run)]`` of a dict: one run ``{topic: {docno: score}}`` (named "run") or ``{name: run}``."""
    if not run:
        raise ValueError(f"run: the dict is empty. Fix: pass {_RUN_FORMS}")
    if _is_run_dict(run):
        return [("run", run)]
    out = []
    for name, one in run.items():
        if isinstance(one, (dict, str, os.PathLike)) or _is_frame(one) or \
                _instance(one, "fireeval.core.trec", "RunTable"):
            if isinstance(one, dict) and not _is_run_dict(one):
                raise TypeError(f"run {name!r}: expected {{topic: {{docno: score}}}}. Fix: pass {_RUN_FORMS}")
            out.append((str(name), one))
        else:
            raise TypeError(f"run {name!r} is a {type(one).__name__}. Fix: pass {_RUN_FORMS}")
    return out


def _check_runs(run):
    """The runs as ``[(name or None, source)]``, without reading anything; a one-line error otherwise.
    File paths are kept as given (``fireeval evaluate`` prints them)."""
    if _is_path(run):
        path = Path(run)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise ValueError(f"run: the folder {path} holds no run file. Fix: give a folder of TREC run files")
            return [(None, p) for p in files]
        return [(None, run)]
    if isinstance(run, (list, tuple)):
        if not run:
            raise ValueError(f"run: the list is empty. Fix: pass {_RUN_FORMS}")
        if not all(_is_path(p) for p in run):
            bad = next(p for p in run if not _is_path(p))
            raise TypeError(f"run: a list holds run files (str or Path), not {type(bad).__name__}. Fix: for many "
                            "in-memory runs pass a dict {run name: run}")
        return [(None, p) for p in run]
    if isinstance(run, dict):
        return _named_runs(run)
    if _is_frame(run) or _instance(run, "fireeval.core.trec", "RunTable"):
        return [(None, run)]
    if _instance(run, "fireeval.core.runset", "RunSet"):
        return [(None, run)]
    raise TypeError(f"run: a {type(run).__name__} is not a form of run fireeval reads. Fix: pass {_RUN_FORMS}")


def _check_run_paths(runs):
    for _, source in runs:
        if _is_path(source):
            if not Path(source).is_file():
                raise FileNotFoundError(f"run: {source} is not a file. Fix: give the path of a TREC run file "
                                        "(query Q0 docno rank score tag)")
            if _first_line_fields(source) == 4:
                raise ValueError(f"run: {source} has 4 columns per line: a qrels file, not a run. Fix: qrels come "
                                 "first, evaluate(qrels, run, measures)")


def _run_tables(runs, precision):
    """``(label, source, RunTable)`` per run, read one at a time (files: the next one read meanwhile)."""
    from fireeval.core.trec import read_ahead

    if len(runs) == 1 and _instance(runs[0][1], "fireeval.core.runset", "RunSet"):
        runs = list(_runset_tables(runs[0][1]))

    def read(item):
        return _read_run(item, precision)

    seen = set()
    for (name, source), table in read_ahead(runs, read):
        yield _label(name, source, table.tag, seen), source, table


def _read_run(item, precision):
    """The :class:`RunTable` of one ``(name, source)`` run."""
    from fireeval.core.trec import read_run_table

    name, source = item
    if _is_path(source):
        return read_run_table(source, precision)
    if isinstance(source, dict):
        return _run_from_dict(source, name, precision)
    if _is_frame(source):
        return _run_from_frame(source, name or "run", precision)
    return source  # a RunTable


def _label(name, source, tag, seen: set) -> str:
    """A run's name: the one given, else a file's tag, or its path when an earlier file had the same tag
    (as fireeval evaluate names it)."""
    if name is not None:
        return name
    label = tag if tag not in seen else str(source)
    seen.add(tag)
    return label


def _options(relevance_level, complete, judged_only, max_retrieved, trec_eval_version, qrels):
    """The scoring options, validated: ``(options for score_run, version)``."""
    from fireeval.core.evaluation import check_trec_eval_version

    try:
        version = check_trec_eval_version(trec_eval_version)
    except ValueError as err:
        raise ValueError(str(err).replace("trec_eval version", "trec_eval_version")) from None
    level = _check_int("relevance_level", relevance_level, 0, allow_none=True)
    if level is None:  # the level the judgements were built with, else trec_eval's default
        level = int(qrels.relevance_level) if _instance(qrels, "fireeval.core.judgements", "Qrels") or \
            _instance(qrels, "fireeval.core.stream", "QrelsIndex") else 1
    max_retrieved = _check_int("max_retrieved", max_retrieved, 0, allow_none=True)
    if max_retrieved is not None and max_retrieved >= 2**31:
        max_retrieved = None  # beyond any ranking (as trec_eval's atol saturates): no cut
    return {"complete": _check_flag("complete", complete), "judged_only": _check_flag("judged_only", judged_only),
            "relevance_level": level, "max_retrieved": max_retrieved}, version


@validate_params(qrels=ANY, run=ANY, measures=ANY, relevance_level=Check(lambda name, value: _check_int(name, value, 0, allow_none=True)), complete=Check(_check_flag), judged_only=Check(_check_flag), max_retrieved=Check(lambda name, value: _check_int(name, value, 0, allow_none=True)), trec_eval_version=STR, score_precision=[STR, None], jobs=Check(lambda name, value: _check_jobs(value)))
def iter_run_scores(qrels, run, measures, *, relevance_level: int | None = None, complete: bool = False,
                    judged_only: bool = False, max_retrieved: int | None = None, trec_eval_version: str = "9.0.7",
                    score_precision: str | None = None, jobs: int | None = 1):
    """Score runs one at a time through the streaming engine: ``(run name, source, RunScores)`` per run.

    The engine of ``fireeval evaluate`` and of :func:`evaluate` for everything but a
    :class:`RunSet` (here a RunSet is streamed too). Arguments as :func:`evaluate`'s;
    ``measures`` may include the text measures ``runid`` and ``relstring``;
    ``score_precision`` (``"float"`` or ``"double"``) overrides the version's. Nothing is
    warned or checked about the topics: see :class:`~fireeval.core.stream.RunScores`'s
    ``ignored_topics`` and ``missing``. A file's run is named by its tag, or by its path
    when an earlier file had the same tag.

    ``jobs`` (default 1; None: every core this process may use) scores several runs in that
    many processes (this one and forked workers), each reading and scoring the next run not yet
    taken as it finishes one, against the judgements read once before the fork (shared, not
    copied); what is yielded is the same,
    in the same order, and an error surfaces at its run as with one job. Without
    ``os.fork`` (Windows) runs are scored in this process.

    Parameters
    ----------
    qrels, run, measures
        As :func:`evaluate`'s (``run`` may also be several files or a mapping of runs).
    relevance_level, complete, judged_only, max_retrieved, trec_eval_version
        trec_eval's ``-l``, ``-c``, ``-J``, ``-M`` and the version to reproduce.
    score_precision : {"float", "double"}, optional
        How scores are compared (default: the version's).
    jobs : int or None
        Processes scoring runs at once (see above).

    Yields
    ------
    tuple
        ``(run name, source, RunScores)`` for each run, in the order given.

    Examples
    --------
    >>> [(name, s.summary()) for name, _, s in iter_run_scores({"1": {"a": 1}}, {"1": {"a": 0.5}}, "map")]
    [('run', {'map': 1.0})]
    """
    qrels, run = _records(qrels, "qrels", "relevance"), _records(run, "run", "score")
    options, version = _options(relevance_level, complete, judged_only, max_retrieved, trec_eval_version, qrels)
    precision = score_precision or ("double" if version == "10.0" else "float")
    if precision not in ("float", "double"):
        raise ValueError(f"score_precision must be 'float' or 'double', not {score_precision!r}. Fix: pass one "
                         "of the two, or leave it out (the trec_eval version decides)")
    parsed = _parse_measure_names(measures, version, text=True)
    jobs = _check_jobs(jobs)
    _check_qrels(qrels, sniff=False)
    runs = _check_runs(run)
    return _iter_run_scores(_qrels_index(qrels, options["relevance_level"]), runs, parsed, options, version,
                            precision, jobs)


def _check_jobs(jobs):
    """``jobs`` validated; None: the cores this process may use."""
    from fireeval.core.trec import default_jobs

    return default_jobs() if jobs is None else _check_int("jobs", jobs, 1)


def _iter_run_scores(qrels_index, runs, parsed, options, version, precision, jobs=1):
    from fireeval.core.stream import score_run

    if jobs > 1 and len(runs) == 1 and _instance(runs[0][1], "fireeval.core.runset", "RunSet"):
        runs = list(_runset_tables(runs[0][1]))
    if jobs > 1 and len(runs) > 1:
        from fireeval.core.trec import map_in_workers

        def read_and_score(item):
            return score_run(_read_run(item, precision), qrels_index, parsed, version=version, **options)

        seen = set()
        for i, scores in enumerate(map_in_workers(read_and_score, runs, jobs)):
            name, source = runs[i]
            yield _label(name, source, scores.run, seen), source, scores
        return
    for label, source, table in _run_tables(runs, precision):
        yield label, source, score_run(table, qrels_index, parsed, version=version, **options)


# ---------------------------------------------------------------- results
def _stream_results(qrels_index, runs, measures, options, version, precision, jobs=1):
    """``[(run, topics, {measure: per-topic values}, {measure: summary})]`` through :func:`score_run`."""
    from fireeval.core.stream import warn_ignored

    out = []
    for label, source, scores in _iter_run_scores(qrels_index, runs, measures, options, version, precision, jobs):
        where = str(source) if _is_path(source) else f"run {label!r}"
        if not (~scores.missing).any():
            raise ValueError(f"{where}: no topic of the run has judgements in the qrels. Fix: check that the run "
                             "and qrels belong to the same collection (topic ids are compared as text: 0401 is "
                             "not 401)")
        warn_ignored(scores, where)
        if version == "10.0" and not options["complete"] and len(scores.topics) < len(qrels_index.topics):
            lacking = sorted(set(qrels_index.topics.tolist()) - set(scores.topics.tolist()))
            raise ValueError(f"{where}: the run has no line for topic {lacking[0]} of the qrels ({len(lacking)} "
                             "topic(s) missing); trec_eval 10.0 stops there (exit 4). Fix: pass complete=True to "
                             "score missing topics 0, or trec_eval_version='9.0.7', which skips them")
        out.append((label, scores.topics, scores.values, scores.summary()))
    return out


def _runset_results(qrels, runs, measures, options):
    """The same through :func:`fireeval.core.evaluation.score_run_set`, vectorised over the runs of a RunSet."""
    from fireeval.core.evaluation import score_run_set as evaluate_runset
    from fireeval.core.evaluation import summarise

    scores = evaluate_runset(runs, qrels, measures, complete=options["complete"],
                             judged_only=options["judged_only"], relevance_level=options["relevance_level"],
                             max_retrieved=options["max_retrieved"])
    if not len(scores.topics):
        raise ValueError("run: no topic of the runs has judgements in the qrels. Fix: check that the runs and qrels "
                         "belong to the same collection (topic ids are compared as text: 0401 is not 401)")
    summaries = {m: summarise(v, scores.aggregates[m]) for m, v in scores.values.items()}
    if options["complete"]:
        for m in measures:
            if m.kind == "num_rel":  # trec_eval -c: every qrels judgement above 0, whatever the level
                summaries[m.name] = np.full(len(scores.runs), float((qrels.frame["relevance"] > 0).sum()))
    return [(name, scores.topics, {m: v[i] for m, v in scores.values.items()},
             {m: float(s[i]) for m, s in summaries.items()}) for i, name in enumerate(scores.runs)]


def _as_dict(results, per_topic):
    out = {}
    for run, topics, values, summary in results:
        if not per_topic:
            out[run] = dict(summary)
            continue
        rows = {str(t): {m: float(v[j]) for m, v in values.items()} for j, t in enumerate(topics)}
        rows["all"] = dict(summary)
        out[run] = rows
    return out


def _as_frame(results, per_topic, names):
    import pandas as pd

    runs, measures, topics, values = [], [], [], []
    for run, topic_ids, per, summary in results:
        if per_topic and len(topic_ids):
            block = np.stack([np.asarray(per[m], dtype=float) for m in names], axis=1)  # topics x measures
            runs.append(np.full(block.size, run, dtype=object))
            measures.append(np.tile(np.asarray(names, dtype=object), len(topic_ids)))
            topics.append(np.repeat(np.asarray(topic_ids, dtype=object), len(names)))
            values.append(block.ravel())
        runs.append(np.full(len(names), run, dtype=object))
        measures.append(np.asarray(names, dtype=object))
        topics.append(np.full(len(names), "all", dtype=object))
        values.append(np.array([summary[m] for m in names], dtype=float))
    return pd.DataFrame({"run": np.concatenate(runs), "measure": np.concatenate(measures),
                         "topic": np.concatenate(topics), "value": np.concatenate(values)})


@validate_params(qrels=ANY, run=ANY, measures=ANY, per_topic=Check(_check_flag), relevance_level=Check(lambda name, value: _check_int(name, value, 0, allow_none=True)), complete=Check(_check_flag), judged_only=Check(_check_flag), max_retrieved=Check(lambda name, value: _check_int(name, value, 0, allow_none=True)), trec_eval_version=STR, output=Check(_check_output), jobs=Check(lambda name, value: _check_jobs(value)))
def evaluate(qrels, run, measures, *, per_topic: bool = False, relevance_level: int | None = None,
             complete: bool = False, judged_only: bool = False, max_retrieved: int | None = None,
             trec_eval_version: str = "9.0.7", output: str = "frame", jobs: int | None = 1):
    """Score runs against judgements, as trec_eval does: one call for every input form.

    Parameters
    ----------
    qrels
        The judgements, in any of these forms:

        ======================================  =============================================
        form                                    example
        ======================================  =============================================
        TREC qrels file (str or Path, gzip ok)  ``"qrels.txt"`` (query iteration docno grade)
        pytrec_eval dict                        ``{"q1": {"d1": 2, "d2": 0}}``
        DataFrame, ir_measures columns          ``query_id, doc_id, relevance``
        DataFrame, trec columns                 ``query, docno, relevance``
        fireeval types                          :class:`~fireeval.core.judgements.Qrels`,
                                                :class:`~fireeval.core.stream.QrelsIndex`
        ======================================  =============================================

    run
        One run or many:

        =====================================  =============================================
        form                                   example
        =====================================  =============================================
        TREC run file (str or Path, gzip ok)   ``"run.txt"`` (query Q0 docno rank score tag)
        many files                             ``["a.txt", "b.txt"]`` or a folder of them
        pytrec_eval dict                       ``{"q1": {"d1": 1.5, "d2": 0.3}}``
        DataFrame, ir_measures columns         ``query_id, doc_id, score``
        DataFrame, trec columns                ``query, docno, score`` (or ``rank``)
        many in-memory runs                    ``{"bm25": run, "dense": run}`` (any form)
        fireeval types                         :class:`~fireeval.core.trec.RunTable`,
                                               :class:`~fireeval.core.runset.RunSet` (many)
        =====================================  =============================================

        A run is ordered as trec_eval orders it (score descending, ties by docno
        descending; a file's rank column is ignored), and named by its dict key, its tag
        (files; the path when two files share a tag) or ``"run"``.
    measures : str or list of str
        One name is one measure: ``"map"``, ``"P_10"``, ``"P@10"``, ``"ndcg_cut.10"``,
        ``"C@1"`` (= ``success_1``), ``"bpref"``; nicknames and families expand
        (``"official"``, ``"all_trec"``, ``"P"`` -> P_5 ... P_1000). Every measure is
        reported under the name asked for (``"P@10"`` as ``P@10``).
    per_topic : bool, default False
        Also give each topic's value (trec_eval ``-q``); the summary is topic ``"all"``.
    relevance_level : int, optional
        Smallest grade that counts as relevant (trec_eval ``-l``). Default 1, or the
        ``relevance_level`` a :class:`Qrels` / :class:`QrelsIndex` was built with.
    complete : bool, default False
        Average over every qrels topic, a topic the run lacks scoring 0 (trec_eval ``-c``).
    judged_only : bool, default False
        Drop unjudged documents first: condensed-list measures (trec_eval ``-J``).
    max_retrieved : int, optional
        Keep each topic's top ``max_retrieved`` documents (trec_eval ``-M``; 0: none).
    trec_eval_version : {"9.0.7", "10.0"}
        The trec_eval to reproduce (score precision, cut-off rounding, 10.0's measures). Without
        ``complete``, 9.0.7 averages over the run's own topics; 10.0 stops on a qrels topic the run
        lacks, and so does this (a ValueError naming it).
    output : {"frame", "dict"}
        A tidy DataFrame, or plain dicts (no pandas needed).
    jobs : int or None, default 1
        Worker processes scoring several runs at once (forked after the judgements are
        read, which they share); None: every core this process may use. The results are
        the same. A :class:`RunSet` is scored in this process (vectorised) whatever ``jobs``.

    Returns
    -------
    pandas.DataFrame or dict
        ``output="frame"``: columns ``run, measure, topic, value``, topic ``"all"`` for the
        summary over topics (means; sums for the counts ``num_ret``, ``num_rel`` ...;
        geometric means for ``gm_*``; exactly trec_eval's). ``output="dict"``:
        ``{run: {measure: value}}``, or with ``per_topic`` ``{run: {topic: {measure:
        value}}}`` with the summary under topic ``"all"``. Runs, topics and measures keep
        their order (runs as given, topics sorted as text, measures as asked).

    Raises
    ------
    TypeError, ValueError, FileNotFoundError
        Before any scoring, in one line with the fix: an argument in no accepted form (the
        message lists them), run and qrels swapped (a run's scores or 6-column file as
        qrels, a 4-column file or a relevance column as run), an unknown measure, a bad
        parameter. :class:`~fireeval.core.trec.TrecFormatError` names a malformed file's
        line.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 0.7, "d4": 0.5}}
    >>> evaluate(qrels, run, ["map", "P@2"], output="dict")
    {'run': {'map': 0.6666666666666666, 'P@2': 0.5}}
    >>> evaluate(qrels, run, "map", per_topic=True, output="dict")["run"]["q2"]
    {'map': 0.5}

    DataFrames with ir_measures' columns, and a tidy frame back:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["d2", "d3", "d1"], "score": [3.0, 2.0, 1.0]})
    >>> evaluate(qrels, frame, ["recip_rank", "ndcg_cut_10"])
       run      measure topic     value
    0  run   recip_rank   all  0.500000
    1  run  ndcg_cut_10   all  0.669672

    Files, many runs at once:

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "qrels.txt"), "w") as fh:
    ...     _ = fh.write("q1 0 d1 1\\nq1 0 d2 0\\nq1 0 d3 2\\nq2 0 d4 1\\n")
    >>> with open(os.path.join(folder, "a.run"), "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 0.9 a\\nq1 Q0 d2 2 0.8 a\\nq1 Q0 d3 3 0.1 a\\nq2 Q0 d5 1 0.7 a\\n"
    ...                  "q2 Q0 d4 2 0.5 a\\n")
    >>> evaluate(os.path.join(folder, "qrels.txt"), [os.path.join(folder, "a.run")], "map", output="dict")
    {'a': {'map': 0.6666666666666666}}
    """
    # ---- validate every argument before reading or scoring anything
    qrels, run = _records(qrels, "qrels", "relevance"), _records(run, "run", "score")
    options, version = _options(relevance_level, complete, judged_only, max_retrieved, trec_eval_version, qrels)
    level = options["relevance_level"]
    per_topic = _check_flag("per_topic", per_topic)
    parsed = _parse_measure_names(measures, version)
    jobs = _check_jobs(jobs)
    if not parsed:
        raise ValueError(f"measures: {measures!r} name no numeric measure. Fix: pass {_MEASURE_FORMS}")
    _check_qrels(qrels)
    runs = _check_runs(run)
    _check_run_paths(runs)
    precision = "double" if version == "10.0" else "float"

    # ---- dispatch: a RunSet to the in-memory engine (vectorised over its runs), the rest streamed
    run_set = runs[0][1] if _instance(runs[0][1], "fireeval.core.runset", "RunSet") else None
    if run_set is not None and version == "9.0.7" and options["max_retrieved"] != 0:
        results = _runset_results(_qrels_frame_object(qrels, level), run_set, parsed, options)
    else:
        # (a RunSet with 10.0: its rounding and measures live in the streaming engine, which streams its runs;
        # -M 0, nothing retrieved, too)
        results = _stream_results(_qrels_index(qrels, level), runs, parsed, options, version, precision, jobs)
    names = [m.name for m in parsed]
    note = ranx_note(parsed, precision)
    if note:
        import warnings

        warnings.warn(note, stacklevel=2)
    if output == "dict":
        return _as_dict(results, per_topic)
    return _as_frame(results, per_topic, names)
