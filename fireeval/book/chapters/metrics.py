"""The metrics chapter's claims: fireeval against trec_eval (its C code and its printed output) and NIST's official MAP.

Two claims of the book's own, each decided by exact comparisons (no sampling, so no interval):

``metrics_oracle``
    fireeval scores every run and topic as trec_eval does: a family with one condition per
    measure (MAP, P@10, nDCG@10, RR), each the largest per-topic |fireeval − pytrec_eval| over
    every run, which must be at most 1e-6. trec_eval's own printed output (``-q -m all_trec``,
    versions 9.0.7 and 10.0, six TREC-8 runs) is the evidence and two readings of equal
    standing: no line may be printed otherwise.
``metrics_official_map``
    fireeval reproduces NIST's official MAP of every TREC-8 run to its four decimals: no run
    beyond the file's rounding (±5e-5) with scores read in double precision; single precision
    (today's trec_eval 9.0.7, fireeval's default) is a secondary row, with its reason.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test
from fireeval.core.validation import ANY, BOOL, STR, Instance, Int, validate_params

__all__ = ["metrics_claims", "PYTREC_EVAL", "ORACLE_MEASURES", "ROUNDING", "pytrec_eval_missing", "pytrec_eval_input"]

#: The distribution that provides ``import pytrec_eval``, as pinned in fireeval's ``test`` extra (pyproject.toml).
PYTREC_EVAL = "pytrec_eval-terrier>=0.5.11"  # as the test and oracle extras declare it
#: The measures compared with pytrec_eval, per topic (trec_eval names).
ORACLE_MEASURES = ("map", "P_10", "ndcg_cut_10", "recip_rank")
#: Half the last digit of a value printed to four decimals (NIST's file, trec_eval's output).
ROUNDING = 5e-5

_EXACT = Power.no_control("an exact comparison of values, not a sampled statistic: it passes whenever the values "
                          "agree, and a single differing run, topic or printed line fails it")


@validate_params()
def pytrec_eval_missing() -> str:
    """Why the oracle claim cannot be tested when ``import pytrec_eval`` fails, and exactly what to install."""
    return (f"pytrec_eval (trec_eval's C code for Python) is not installed here. Fix: pip install '{PYTREC_EVAL}' "
            "(the package that provides 'import pytrec_eval', as fireeval's test extra declares it), then run the "
            "chapter again")


@validate_params(data=ANY, column=STR)
def pytrec_eval_input(data, column: str = "score") -> dict:
    """A run or qrels as pytrec_eval takes it: ``{query: {docno: value}}``.

    ``data``: a run as :func:`fireeval.core.trec.read_run_table` reads it (its parsed doubles; each docno
    decoded once, not once per row), or a frame with columns query, docno and ``column`` (a run's ``score``,
    floats; qrels' ``relevance``, ints). Rows keep their order within a query. The run table is the half of
    :func:`fireeval.core.trec.read_run` that parses; the frame read_run builds from it gives the same dict,
    slower (it decoded 6.3 million docnos and built a frame for TREC-8's 129 runs: 9 CPU-s more).

    Parameters
    ----------
    data : RunTable or pandas.DataFrame
        The run or the qrels.
    column : str
        A frame's value column: ``score`` (as float) or ``relevance`` (as int).

    Returns
    -------
    dict

    Examples
    --------
    >>> import pandas as pd
    >>> pytrec_eval_input(pd.DataFrame({"query": ["1", "2", "1"], "docno": ["a", "b", "c"], "score": [0.5, 1, 2]}))
    {'1': {'a': 0.5, 'c': 2.0}, '2': {'b': 1.0}}
    """
    from fireeval.core.trec import RunTable

    if isinstance(data, RunTable):
        docnos = [d.decode("utf-8") for d in data.dictionary.tolist()]
        codes, scores, starts = data.doc_codes.tolist(), data.score.tolist(), data.starts.tolist()
        return {topic: {docnos[c]: s for c, s in zip(codes[a:b], scores[a:b])}
                for topic, a, b in zip(data.topics.tolist(), starts[:-1], starts[1:])}
    # Built from plain Python lists (iterating a pandas string column element by element took 15 s for the
    # 129 runs); rows keep their order within a query, as groupby keeps them.
    cast = int if column == "relevance" else float
    queries = data["query"].astype(str).to_numpy(dtype=object)
    docnos = data["docno"].astype(str).tolist()
    values = list(map(cast, data[column].tolist()))
    order = np.argsort(queries, kind="stable")
    bounds = np.flatnonzero(queries[order][1:] != queries[order][:-1]) + 1
    return {queries[rows[0]]: {docnos[i]: values[i] for i in rows}
            for rows in (part.tolist() for part in np.split(order, bounds)) if rows}


@validate_params(data=STR, real=BOOL, oracle_gaps=[Instance(Mapping), None], n_cells=Int(0),
                 printed=[Instance(Mapping), None], no_printed=[STR, None], official=ANY, double=ANY, single=ANY,
                 no_official=[STR, None])
def metrics_claims(data: str, real: bool, oracle_gaps: Mapping[str, float] | None, n_cells: int, *,
                   printed: Mapping[str, Mapping] | None = None, no_printed: str | None = None,
                   official=None, double=None, single=None, no_official: str | None = None) -> list[dict]:
    """Evaluated records of the chapter's two claims.

    Parameters
    ----------
    data : what the runs are (``"real: 129 TREC-8 runs"``, ``"stand-in: simulated runs"``).
    real : True for TREC-8 itself (the claims are then ``original``; else ``stand-in``).
    oracle_gaps : per measure of :data:`ORACLE_MEASURES`, the largest per-topic |fireeval − pytrec_eval|
        over all runs; None when pytrec_eval is not installed (the basis then says what to install).
    n_cells : run × topic × measure values compared with pytrec_eval.
    printed : per trec_eval version, the comparison with its own printed output:
        ``{"runs": 6, "lines": n, "differ": k, "printed": [...], "ours": [...]}`` -- lines compared,
        lines fireeval prints otherwise, and the numbers behind them (printed, and fireeval's).
    no_printed : why there is no printed output to compare with (synthetic data, your own qrels, files missing).
    official, double, single : NIST's official MAP per run, and fireeval's with scores read in double
        precision (trec_eval 10.0) and in single precision (trec_eval 9.0.7, the default); None without
        an official file (``no_official`` says why; default: the synthetic stand-in).

    Examples
    --------
    >>> p = {"9.0.7": {"runs": 1, "lines": 3, "differ": 0, "printed": [0.5, 1, 2], "ours": [0.5, 1, 2]}}
    >>> r = metrics_claims("real: 2 TREC-8 runs", True, dict.fromkeys(ORACLE_MEASURES, 0.0), 400, printed=p,
    ...                    official=[0.1, 0.2], double=[0.1, 0.2], single=[0.1, 0.2])
    >>> [x["label"] for x in r], r[0]["family"]["summary"]
    (['reproduced', 'reproduced'], 'holds at 4 of 4')
    >>> metrics_claims("real: 2 TREC-8 runs", True, None, 0)[0]["basis"][:52]
    "pytrec_eval (trec_eval's C code for Python) is not i"
    """
    standing = "original" if real else "stand-in"
    return [_oracle(data, standing, oracle_gaps, n_cells, printed, no_printed),
            _official(data, standing, official, double, single, no_official)]


def _untestable(claim: Claim) -> dict:
    """``claim.evaluate()`` of an untestable claim, without the Power object it leaves behind.

    Work-around: :meth:`Claim.evaluate` returns early for an untestable claim, before the step
    that removes its internal ``_power`` entry, and that object is not JSON (the headline fails).
    """
    record = claim.evaluate()
    record.pop("_power", None)
    return record


def _oracle(data, standing, gaps, n_cells, printed, no_printed) -> dict:
    rows, paper, ours = [], [], []
    for version, p in (printed or {}).items():
        rows.append(Alternative(
            f"trec_eval {version}'s own printed output ({p['runs']} runs, all {p['lines']} numeric lines of -q -m "
            "all_trec)", Estimate(p["differ"], method="exact: every printed line, fireeval's value printed as "
                                  "trec_eval prints it"),
            kind="oracle", test=Test("<=", 0), weight="equal",
            reason="trec_eval's own program: as direct a reading of 'as trec_eval does' as its C code run through "
                   "pytrec_eval"))
        paper += list(p["printed"])
        ours += list(p["ours"])
    if not printed:
        rows.append(Alternative("trec_eval's own printed output", why=no_printed or "no printed output to compare with",
                                kind="oracle", weight="equal", reason="trec_eval's own program (not computable here)"))
    evidence = (Evidence.compare(paper, ours, "trec_eval's own printed output (-q -m all_trec, versions "
                                 + " and ".join(printed) + ")", tolerance=ROUNDING,
                                 detail="; ".join(f"{v}: {p['differ']} of {p['lines']} lines printed otherwise"
                                                  for v, p in printed.items()))
                if printed else Evidence.none(no_printed or "no printed output of trec_eval to compare with"))
    claim = Claim(
        "metrics_oracle", "trec_eval (NIST)", "per-topic values; its -q -m all_trec output",
        "fireeval scores every run and topic as trec_eval does",
        "largest per-topic |fireeval − pytrec_eval| over all runs, per measure", Test("<=", 1e-6), data, fmt=".1e",
        untestable=None if gaps else pytrec_eval_missing(), standing=standing,
        short="fireeval's per-topic scores equal trec_eval's (MAP, P@10, nDCG@10, RR)",
        reading=Reading("'as trec_eval does' read as equal per-topic values, within 1e-6, for every run, topic and "
                        "measure; trec_eval's own printed lines as equal readings",
                        "trec_eval's own C code, run through pytrec_eval, and its printed output", "authors' code"),
        evidence=evidence, power=_EXACT)
    if not gaps:
        return _untestable(claim)
    method = f"exact: every run and topic ({n_cells} values in all), no sampling"
    return claim.evaluate_family({m: Estimate(gaps[m], method=method) for m in gaps},
                                 multiplicity="none: exact comparisons of every value, no interval to adjust",
                                 sensitivity=rows)


def _official(data, standing, official, double, single, no_official) -> dict:
    have = official is not None and double is not None
    why_not = no_official or "no official scores for the synthetic stand-in"

    def beyond(ours):
        return int(np.sum(np.abs(np.asarray(ours, float) - np.asarray(official, float)) > ROUNDING + 1e-12))

    claim = Claim(
        "metrics_official_map", "NIST, TREC-8 official results", "official-scores.map (MAP per run, 4 decimals)",
        "the official MAP of every TREC-8 run", "runs whose MAP differs from the official value beyond ±5e-5",
        Test("<=", 0) if have else None, data, fmt=".0f", standing=standing, untestable=None if have else why_not,
        short="fireeval reproduces NIST's official MAP of every TREC-8 run, to its four decimals",
        reading=Reading("equal to the official file within its rounding (±5e-5), every run's scores read in double "
                        "precision: the file's own values are those of the double-precision order where the two differ",
                        "MAP per run, printed to 4 decimals", "authors' output", "NIST's TREC-8 summary file"),
        evidence=Evidence.compare(official, double, "NIST's official TREC-8 MAP per run", tolerance=ROUNDING,
                                  detail="scores read in double precision (trec_eval 10.0)")
        if have else Evidence.none(why_not),
        power=_EXACT)
    if not have:
        return _untestable(claim)
    rows = [] if single is None else [Alternative(
        "scores read in single precision (trec_eval 9.0.7, fireeval's default)",
        Estimate(beyond(single), method="exact: every run"), kind="score precision", weight="secondary",
        reason="a reading the authors' own output rules out: single precision (today's trec_eval) ties near-equal "
               "scores that the program which wrote the official file kept apart; where the two orders differ, "
               "the file prints the value of the double-precision order")]
    return claim.evaluate(Estimate(beyond(double), method="exact: every run, scores read in double precision"),
                          sensitivity=rows)
