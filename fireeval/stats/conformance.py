"""The foundations chapter's claims: fireeval against trec_eval's own code and NIST's official scores.

Two claims, each an exact comparison (no sampling): per-topic values against
pytrec_eval (trec_eval's C code) and per-run MAP against NIST's official TREC-8 file.
"""
from __future__ import annotations

from collections.abc import Mapping

from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test

__all__ = ["metrics_claims"]

_EXACT = Power.no_control("an exact comparison of values, not a sampled statistic: it passes whenever the values "
                          "agree, and a single differing run or topic fails it")


def metrics_claims(data: str, real: bool, oracle_gaps: Mapping[str, float] | None, n_cells: int,
                   official=None, ours=None, still_outside: int | None = None, n_outside: int | None = None,
                   no_official: str | None = None) -> list[dict]:
    """Evaluated records of the two conformance claims.

    Parameters
    ----------
    data : what the runs are (``"real: 129 TREC-8 runs"``, ``"stand-in: simulated runs"``).
    real : True for TREC-8 itself (then the claims are ``original``).
    oracle_gaps : largest per-topic |fireeval − pytrec_eval| per measure, or None (pytrec_eval missing).
    n_cells : run × topic × measure values compared with pytrec_eval.
    official, ours : NIST's official MAP and fireeval's, per run, or None (no official file).
    still_outside : runs beyond the official file's rounding once the runs outside it are
        ordered by their scores in double precision (the official 1999 evaluation's reading).
    n_outside : runs beyond the rounding with single-precision ordering (today's trec_eval).
    no_official : why there are no official scores to compare with (default: the synthetic stand-in).

    Examples
    --------
    >>> r = metrics_claims("real: 2 TREC-8 runs", True, {"map": 0.0}, 100, [0.1, 0.2], [0.1, 0.2], 0, 0)
    >>> [x["verdict"] for x in r]
    ['reproduced', 'reproduced']
    """
    standing = "original" if real else "stand-in"
    largest = None if oracle_gaps is None else max(oracle_gaps.values())
    missing = "pytrec_eval is not installed (pip install 'fireeval[oracle]', or pytrec_eval-terrier)"
    oracle = Claim(
        "metrics_oracle", "trec_eval (via pytrec_eval)", "measures map, P_10, ndcg_cut_10, recip_rank",
        "fireeval scores every run and topic as trec_eval does",
        "largest per-topic |fireeval − pytrec_eval| over all runs", Test("<=", 1e-6) if oracle_gaps else None,
        data, fmt=".1e", untestable=None if oracle_gaps else missing, standing=standing,
        short="fireeval's per-topic scores equal trec_eval's (map, P@10, nDCG@10, RR)",
        reading=Reading("'as trec_eval does' read as equal per-topic values, within 1e-6, for every run and topic",
                        "trec_eval's own C code, run through pytrec_eval", "authors' code"),
        evidence=Evidence("pytrec_eval per-topic values (trec_eval's code)", n_cells, largest, 1e-6)
        if oracle_gaps else Evidence.none(missing),
        power=_EXACT)
    records = [oracle.evaluate(None if not oracle_gaps else Estimate(largest, method="exact: every run and topic"),
                               sensitivity=[Alternative(m, Estimate(v, method="exact: every run and topic"),
                                                        kind="measure") for m, v in (oracle_gaps or {}).items()])]
    have = official is not None and still_outside is not None
    why_not = no_official or "no official scores for the synthetic stand-in"
    official_claim = Claim(
        "metrics_official_map", "NIST, TREC-8 official results", "MAP per run, 4 decimals",
        "the official MAP of every TREC-8 run", "runs whose MAP differs from the official value beyond ±5e-5",
        Test("<=", 0) if have else None, data, fmt=".0f", standing=standing,
        untestable=None if have else why_not,
        short="fireeval reproduces NIST's official MAP of every TREC-8 run, to its four decimals",
        reading=Reading("equal to the official file within its rounding (±5e-5); ties in the scores are ordered as "
                        "the official file shows: in double precision where single precision ties them",
                        "MAP per run, printed to 4 decimals", "authors' output", "NIST's TREC-8 summary file"),
        evidence=Evidence.compare(official, ours, "NIST's official TREC-8 MAP per run", tolerance=5e-5,
                                  detail="single-precision ordering (today's trec_eval)")
        if have else Evidence.none(why_not),
        power=_EXACT)
    records.append(official_claim.evaluate(
        None if not have else Estimate(still_outside, method="exact: every run"),
        sensitivity=[] if not have else [Alternative("single-precision scores (today's trec_eval)",
                                                     Estimate(n_outside, method="exact: every run"))]))
    return records
