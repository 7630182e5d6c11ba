"""Claims and verdicts: a paper's finding stated as a test, decided by numbers with their uncertainty.

A chapter never *says* a finding holds: it states each finding of its paper as an
atomic :class:`Claim` -- the paper's words and section, the quantity measured here,
a :class:`Test` (a comparison with a threshold) -- attaches an :class:`Estimate` of
that quantity (a point value and an interval, saying how the interval was made) for
each convention the paper's text and its reference code disagree on, and lets
:meth:`Claim.evaluate` compute the verdict.

The verdict vocabulary is closed (:data:`VERDICTS`):

``reproduced``
    Under every convention, the whole interval satisfies the test (for an exact
    quantity, the value does).
``not reproduced``
    Under every convention the interval does not lie wholly on the claim's side:
    either it lies wholly on the other side (*contradicted*) or it straddles the
    threshold (*not shown*: the data here cannot tell). The record's ``basis``
    says which.
``depends``
    The conventions disagree; the record gives the verdict under each.
``not testable here``
    The data needed are not available; ``why`` says what is missing.

Intervals are never widened or narrowed to reach a verdict: the rule above is applied
to what the estimate carries. A record is plain JSON, ready for a notebook's headline.

>>> c = Claim("depth3", paper="Example 2024", section="§4", quote="rankings are stable at depth 3",
...           quantity="Kendall τ, MAP, depth-3 vs full qrels", test=Test(">", 0.9), data="real: TREC-8")
>>> c.evaluate({"trec_eval order": Estimate(0.93, 0.91, 0.95, "95% bootstrap over topics")})["verdict"]
'reproduced'
>>> c.evaluate({"a": Estimate(0.93, 0.91, 0.95, "boot"), "b": Estimate(0.85, 0.80, 0.88, "boot")})["verdict"]
'depends'
>>> c.evaluate({"a": Estimate(0.92, 0.88, 0.95, "boot")})["basis"]
'not shown: the interval straddles the threshold'
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["VERDICTS", "Estimate", "Test", "Claim", "verdict", "format_estimate", "summary_rows"]

VERDICTS = ("reproduced", "not reproduced", "depends", "not testable here")

_OPS = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}


@dataclass(frozen=True)
class Estimate:
    """A measured value with its interval and how the interval was made.

    ``low``/``high`` are both None for a quantity with no sampling uncertainty (then
    ``method`` says why, e.g. "exact: all 129 runs, no sampling"). The interval must
    contain ``value``.
    """

    value: float
    low: float | None = None
    high: float | None = None
    method: str = "exact"

    def __post_init__(self):
        value = float(self.value)
        object.__setattr__(self, "value", value)
        if (self.low is None) != (self.high is None):
            raise ValueError("give both ends of the interval or neither")
        if self.low is not None:
            low, high = float(self.low), float(self.high)
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)
            if not (math.isnan(value) or math.isnan(low) or math.isnan(high)):
                # A percentile interval can miss its own point estimate by rounding only.
                tol = 1e-12 * max(1.0, abs(value))
                if not (low - tol <= value <= high + tol):
                    raise ValueError(f"interval [{low}, {high}] does not contain the estimate {value}")
        if not self.method:
            raise ValueError("say how the interval was made (method), or 'exact: why'")

    @property
    def has_interval(self) -> bool:
        return self.low is not None

    @classmethod
    def from_samples(cls, value: float, samples, method: str, level: float = 0.95) -> "Estimate":
        """Point ``value`` with the central ``level`` percentile interval of ``samples``.

        The interval is widened to include ``value`` when the samples' percentiles miss
        it (a skewed bootstrap); ``method`` should name the resampling and its size.

        >>> Estimate.from_samples(0.5, [0.4, 0.45, 0.5, 0.55, 0.6], "toy").low
        0.405
        """
        s = np.asarray(samples, dtype=float).ravel()
        s = s[np.isfinite(s)]
        if s.size == 0:
            return cls(float("nan"), float("nan"), float("nan"), method)
        a = (1 - level) / 2
        low, high = np.quantile(s, [a, 1 - a])
        return cls(value, min(low, value), max(high, value), method)

    @classmethod
    def proportion(cls, successes: int, trials: int, method: str, level: float = 0.95) -> "Estimate":
        """A share ``successes / trials`` with its exact (Clopper-Pearson) interval.

        >>> e = Estimate.proportion(27, 100, "100 splits")
        >>> round(e.value, 2), round(e.low, 3), round(e.high, 3)
        (0.27, 0.186, 0.368)
        """
        from scipy.stats import binomtest

        if trials <= 0:
            return cls(float("nan"), float("nan"), float("nan"), method)
        ci = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=level, method="exact")
        return cls(successes / trials, ci.low, ci.high, f"{method}; exact binomial {level:.0%} interval")

    def to_json(self) -> dict:
        clean = lambda x: None if x is None or not math.isfinite(x) else x  # noqa: E731
        return {"value": clean(self.value), "low": clean(self.low), "high": clean(self.high),
                "method": self.method}


@dataclass(frozen=True)
class Test:
    """The predicate a claim makes about its quantity: ``quantity <op> threshold``.

    >>> Test(">", 0.9).holds(0.95), Test("<=", 0).holds(0.1)
    (True, False)
    """

    __test__ = False  # not a pytest test class (tests import it by this name)

    op: str
    threshold: float

    def __post_init__(self):
        if self.op not in _OPS:
            raise ValueError(f"test operator {self.op!r}: use one of {', '.join(_OPS)}")
        object.__setattr__(self, "threshold", float(self.threshold))

    def holds(self, x: float) -> bool:
        return bool(_OPS[self.op](x, self.threshold))

    def __str__(self) -> str:
        return f"{self.op} {self.threshold:g}"


def verdict(estimate: Estimate, test: Test) -> tuple[str, str]:
    """``(verdict, basis)`` for one estimate: ``reproduced`` or ``not reproduced`` and why.

    The predicate is monotone in the quantity, so the interval's two ends decide it.

    >>> verdict(Estimate(0.95, 0.91, 0.97, "b"), Test(">", 0.9))
    ('reproduced', 'the whole interval satisfies the test')
    >>> verdict(Estimate(0.80, 0.75, 0.85, "b"), Test(">", 0.9))
    ('not reproduced', 'contradicted: the whole interval fails the test')
    >>> verdict(Estimate(0.95), Test(">", 0.9))
    ('reproduced', 'exact value satisfies the test')
    """
    if math.isnan(estimate.value):
        return "not testable here", "no value could be computed"
    if not estimate.has_interval:
        ok = test.holds(estimate.value)
        return ("reproduced", "exact value satisfies the test") if ok else \
               ("not reproduced", "contradicted: exact value fails the test")
    low_ok, high_ok = test.holds(estimate.low), test.holds(estimate.high)
    if low_ok and high_ok:
        return "reproduced", "the whole interval satisfies the test"
    if not low_ok and not high_ok:
        return "not reproduced", "contradicted: the whole interval fails the test"
    return "not reproduced", "not shown: the interval straddles the threshold"


def format_estimate(estimate: Estimate | Mapping, fmt: str = ".3f") -> str:
    """``0.907 [0.881, 0.929]``; an exact value prints alone.

    >>> format_estimate(Estimate(0.9071, 0.881, 0.9289, "b"))
    '0.907 [0.881, 0.929]'
    """
    e = estimate.to_json() if isinstance(estimate, Estimate) else estimate
    if e["value"] is None:
        return "n/a"
    text = format(e["value"], fmt)
    if e.get("low") is not None and e.get("high") is not None:
        text += f" [{format(e['low'], fmt)}, {format(e['high'], fmt)}]"
    return text


@dataclass
class Claim:
    """One atomic, testable statement of a paper.

    Parameters
    ----------
    id : short stable key (used for glue names: ``claim.<id>.verdict``).
    paper, section : whose claim and where (``"Kaneko et al. 2024"``, ``"§6.3, Fig. 7"``).
    quote : the paper's words (a quotation, or a paraphrase marked as such).
    quantity : what is measured here, with its units and data.
    test : the predicate on the quantity.
    data : ``"real: ..."`` or ``"stand-in: ..."`` -- what the numbers come from.
    paper_value : the paper's own number, as printed (a quotation), if any.
    fmt : format of the quantity's numbers in tables.
    untestable : why the claim cannot be tested with the data here (then no estimate).
    """

    id: str
    paper: str
    section: str
    quote: str
    quantity: str
    test: Test | None
    data: str
    paper_value: str | None = None
    fmt: str = ".3f"
    untestable: str | None = None
    notes: str = ""

    def evaluate(self, estimates: Mapping[str, Estimate] | Estimate | None = None) -> dict:
        """The claim's JSON record with the verdict computed from ``estimates``.

        ``estimates``: one :class:`Estimate`, or ``{convention: Estimate}`` for each
        convention the paper and its reference code (or the stand-in) disagree on.
        """
        record = {"id": self.id, "paper": self.paper, "section": self.section, "quote": self.quote,
                  "quantity": self.quantity, "test": None if self.test is None else str(self.test),
                  "data": self.data, "paper_value": self.paper_value, "fmt": self.fmt, "notes": self.notes}
        if self.untestable:
            record.update(verdict="not testable here", basis=self.untestable, why=self.untestable,
                          conventions={})
            return record
        if self.test is None:
            raise ValueError(f"claim {self.id}: give a test, or say why it is untestable")
        if isinstance(estimates, Estimate):
            estimates = {"": estimates}
        if not estimates:
            raise ValueError(f"claim {self.id}: no estimate given")
        conventions = {}
        for name, est in estimates.items():
            v, basis = verdict(est, self.test)
            conventions[name] = {**est.to_json(), "verdict": v, "basis": basis}
        verdicts = {c["verdict"] for c in conventions.values()}
        overall = verdicts.pop() if len(verdicts) == 1 else "depends"
        if overall == "depends":
            basis = "; ".join(f"{k}: {c['verdict']}" for k, c in conventions.items())
        else:
            bases = {c["basis"] for c in conventions.values()}
            basis = bases.pop() if len(bases) == 1 else "; ".join(f"{k}: {c['basis']}" for k, c in conventions.items())
        record.update(verdict=overall, basis=basis, why=None, conventions=conventions)
        assert overall in VERDICTS
        return record


def summary_rows(records: Sequence[Mapping]) -> list[dict]:
    """One row per claim for a scoreboard: claim | found here | verdict (and its basis) | data."""
    rows = []
    for r in records:
        if r["conventions"]:
            found = "; ".join((f"{name}: " if name else "") + format_estimate(c, r.get("fmt", ".3f"))
                              + (f" ({c['verdict']})" if r["verdict"] == "depends" else "")
                              for name, c in r["conventions"].items())
            found += f" (test: {r['test']})"
        else:
            found = r["why"]
        basis = "" if r["verdict"] == "depends" else r["basis"]
        rows.append({"claim": f"{r['quote']} ({r['paper']}, {r['section']})", "found here": found,
                     "verdict": r["verdict"], "basis": basis, "data": r["data"], "id": r["id"]})
    return rows

