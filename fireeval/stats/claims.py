"""Claims and verdicts: a paper's finding stated as a test, decided by numbers with their uncertainty.

A chapter never *says* a finding holds: it states each finding of its paper as an
atomic :class:`Claim` -- the paper's words and section, the quantity measured here,
a :class:`Test` (a comparison with a threshold) -- attaches an :class:`Estimate` of
that quantity (a point value and an interval, saying how the interval was made) and
lets :meth:`Claim.evaluate` compute the verdict.

A claim is judged in the paper's own terms. Beside the verdict, every record carries
five fields (the book's fair-verdict rules):

``evidence`` (:class:`Evidence`)
    the paper's own printed numbers (its table, figure, or its authors' code/output)
    beside ours: cells compared and the largest difference. "The paper's numbers
    reproduce" is reported apart from "the paper's words hold".
``reading`` (:class:`Reading`)
    how the paper's words became this test, quoting the passage that defines or uses
    the word. A threshold for an adjective comes from the paper's usage or code; where
    the paper gives nothing, the test runs over a stated range and is "depends" only if
    it flips inside it.
``standing``
    ``original`` (the paper's benchmark, systems and labels) or ``stand-in``. A
    stand-in can never contradict the paper: its verdict is "not testable here", and
    what it shows is kept as the book's own finding (``on_stand_in``;
    :meth:`Claim.book_finding` makes it a claim of the book's).
``power`` (:class:`Power`)
    whether the test can pass on these data: a positive control passes it, or the
    record says why none exists. A test nothing can pass is "not testable here (no power)".
``sensitivity`` (:class:`Alternative` rows)
    what a careful reviewer would try instead -- conventions, thresholds, tie rules,
    seeds, interval methods -- each with its verdict; ``flips`` names those that change it.

The verdict vocabulary is closed (:data:`VERDICTS`):

``reproduced``
    The whole interval satisfies the test (for an exact quantity, the value does).
``not reproduced``
    The interval does not lie wholly on the claim's side: either it lies wholly on
    the other side (shown as *contradicted*) or it straddles the threshold (shown as
    *inconclusive*: the data here cannot tell). :func:`label` gives the shown word.
``depends``
    Readings of equal standing disagree; the record gives the verdict under each.
``not testable here``
    The data needed are not here, the test has no power, or the data are a stand-in.

Intervals are never widened or narrowed to reach a verdict: the rule above is applied
to what the estimate carries. A record is plain JSON, ready for a notebook's headline.

>>> c = Claim("depth3", paper="Example 2024", section="§4", quote="rankings are stable at depth 3",
...           quantity="Kendall τ, MAP, depth-3 vs full qrels", test=Test(">", 0.9), data="real: TREC-8",
...           standing="original", reading=Reading("τ > 0.9 as the paper writes it", "τ > 0.90", "paper's definition"))
>>> e = Evidence.none("the paper prints no number for this")
>>> p = Power.no_control("the paper's own statement is the only reference")
>>> c.evaluate(Estimate(0.93, 0.91, 0.95, "95% bootstrap over topics"), evidence=e, power=p)["verdict"]
'reproduced'
>>> r = c.evaluate(Estimate(0.92, 0.88, 0.95, "boot"), evidence=e, power=p)
>>> r["verdict"], label(r)
('not reproduced', 'inconclusive')
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fireeval.core.validation import ANY, ARRAY, BOOL, NUMBER, Real, STR, validate_params
from fireeval.stats.resampling import jackknife_se, share_below, tie_tolerance

__all__ = ["WEIGHTS", "STABILITY_KINDS", "check_record", "merge_twins", "VERDICTS", "LABELS", "STANDINGS", "READING_SOURCES", "FIELDS", "Estimate", "Test", "Evidence", "Reading",
           "Power", "Alternative", "Claim", "verdict", "label", "format_estimate", "summary_rows", "bca_interval"]

VERDICTS = ("reproduced", "not reproduced", "depends", "not testable here")
#: How a sensitivity row counts: a reading of equal standing, or a secondary one (control, diagnostic).
WEIGHTS = ("equal", "secondary")
#: Sensitivity rows that re-estimate the same reading: a flip there caps the label at *inconclusive*.
STABILITY_KINDS = ("seed", "interval method")
#: The rows of a range of thresholds the paper leaves open: the range decides (depends if it flips inside).
_RANGE_KIND = "threshold (range)"
#: The words a reader sees: "not reproduced" is shown as what it is, contradicted or inconclusive.
LABELS = ("reproduced", "contradicted", "inconclusive", "depends", "not testable here")
STANDINGS = ("original", "stand-in")
#: Where a reading of the paper's words comes from, strongest first.
READING_SOURCES = ("authors' output", "authors' code", "paper's definition", "paper's usage", "no guidance: range",
                   "book's own question")
#: The fair-verdict fields every claim of every chapter fills.
FIELDS = ("evidence", "reading", "standing", "power", "sensitivity")

_OPS = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}


@dataclass(frozen=True)
class Estimate:
    """A measured value with its interval and how the interval was made.

    ``low``/``high`` are both None for a quantity with no sampling uncertainty (then
    ``method`` says why, e.g. "exact: all 129 runs, no sampling"). The interval must
    contain ``value``.

    Parameters
    ----------
    value : float
        The estimate.
    low, high : float or None
        The interval's ends.
    method : str
        How the interval was made (or why there is none).
    extreme : str or None
        Which end, if any, lies at the extreme of the replicates.

    Examples
    --------
    >>> e = Estimate(0.91, 0.88, 0.93, "BCa bootstrap over topics")
    >>> e.value, e.low, e.high
    (0.91, 0.88, 0.93)
    """

    value: float
    low: float | None = None
    high: float | None = None
    method: str = "exact"
    #: Set when the value is an extreme over conditions ("minimum over σ × K"): such an estimate is
    #: biased under resampling and never decides a label (:meth:`Claim.evaluate_family` tests each condition).
    extreme: str | None = None

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

    @property
    def unstable(self) -> str | None:
        """Why the interval method first tried broke down (BCa with ``|z0| > 1``, an end at the extreme
        replicates), when the interval shown replaces it; None for a stable interval."""
        start = self.method.find("BCa unstable")
        if start < 0:
            return None
        end = self.method.find("; ", start)
        return self.method[start:] if end < 0 else self.method[start:end]

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
    def bca(cls, value: float, samples, jackknife, method: str, level: float = 0.95) -> "Estimate":
        """Point ``value`` with the bias-corrected and accelerated (BCa) bootstrap interval.

        ``samples`` are the bootstrap replicates of the statistic and ``jackknife`` its
        leave-one-out values (one per resampled item: topic, query, ...); the interval is
        :func:`bca_interval`'s, the one :func:`scipy.stats.bootstrap` computes with
        ``method="BCa"`` from the same replicates. For a skewed statistic (Kendall τ near 1,
        an extreme over σ or K, a ratio) the percentile interval is biased; BCa corrects
        for the share of replicates below the estimate and for skewness. Where BCa is
        undefined or unstable (its interval excludes or touches the estimate) the jackknife
        normal interval is used instead, and ``method`` says so.

        >>> rng = np.random.default_rng(0)
        >>> x = rng.exponential(size=30)
        >>> boot = rng.choice(x, (2000, 30)).mean(1)
        >>> jack = (x.sum() - x) / 29
        >>> e = Estimate.bca(x.mean(), boot, jack, "2000 resamples")
        >>> e.method.startswith("95% BCa bootstrap (z0 = ")
        True
        """
        low, high, how = bca_interval(value, samples, jackknife, level)
        if not (np.isfinite(low) and np.isfinite(high)):
            return cls(float(value), float("nan"), float("nan"), f"{level:.0%} {how}; {method}")
        widened = low > value or high < value
        return cls(value, min(low, value), max(high, value),
                   f"{level:.0%} {how}; {method}" + (" (widened to include the estimate)" if widened else ""))

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
        out = {"value": clean(self.value), "low": clean(self.low), "high": clean(self.high), "method": self.method}
        if self.extreme:
            out["extreme"] = self.extreme
        return out


@dataclass(frozen=True)
class Test:
    """The predicate a claim makes about its quantity: ``quantity <op> threshold``.

    Parameters
    ----------
    op : str
        ``>``, ``>=``, ``<``, ``<=``.
    threshold : float
        The threshold.
    from_cell : str, optional
        Where the threshold comes from (a notebook cell).

    Examples
    --------
    >>> Test(">", 0.9).holds(0.95), Test("<=", 0).holds(0.1)
    (True, False)
    """

    __test__ = False  # not a pytest test class (tests import it by this name)

    op: str
    threshold: float
    #: The cell (a quantity's name, e.g. "tau(AxIoU@10, AxIoU@1)") the threshold was measured on, when it
    #: was: a bar never comes from the cell it tests (:class:`Claim` refuses ``cell == from_cell``).
    from_cell: str | None = None

    def __post_init__(self):
        if self.op not in _OPS:
            raise ValueError(f"test operator {self.op!r}: use one of {', '.join(_OPS)}")
        object.__setattr__(self, "threshold", float(self.threshold))

    def holds(self, x: float) -> bool:
        return bool(_OPS[self.op](x, self.threshold))

    def __str__(self) -> str:
        return f"{self.op} {self.threshold:g}"


@validate_params(estimate=ANY, test=ANY)
def verdict(estimate: Estimate, test: Test) -> tuple[str, str]:
    """``(verdict, basis)`` for one estimate: ``reproduced`` or ``not reproduced`` and why.

    The predicate is monotone in the quantity, so the interval's two ends decide it.

    Parameters
    ----------
    estimate : Estimate
        The measured quantity.
    test : Test
        The claim's predicate.

    Returns
    -------
    verdict : str
        ``reproduced`` or ``not reproduced``.
    basis : str
        Why.

    Examples
    --------
    >>> verdict(Estimate(0.95, 0.91, 0.97, "b"), Test(">", 0.9))
    ('reproduced', 'the whole interval satisfies the test')
    >>> verdict(Estimate(0.80, 0.75, 0.85, "b"), Test(">", 0.9))
    ('not reproduced', 'contradicted: the whole interval fails the test')
    >>> verdict(Estimate(0.95), Test(">", 0.9))
    ('reproduced', 'exact value satisfies the test')
    >>> verdict(Estimate(0.92, 0.88, 0.95, "b"), Test(">", 0.9))
    ('not reproduced', 'inconclusive: the interval straddles the threshold')
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
    return "not reproduced", "inconclusive: the interval straddles the threshold"


@validate_params(estimate=ANY, fmt=STR)
def format_estimate(estimate: Estimate | Mapping, fmt: str = ".3f") -> str:
    """``0.907 [0.881, 0.929]``; an exact value prints alone.

    Parameters
    ----------
    estimate : Estimate or mapping
        The value and interval.
    fmt : str
        Format of the numbers.

    Returns
    -------
    str
        The value and its interval.

    Examples
    --------
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


@validate_params(value=NUMBER, samples=ARRAY, jackknife=ARRAY, level=Real(0, 1, closed='neither'))
def bca_interval(value: float, samples, jackknife, level: float = 0.95) -> tuple[float, float, str]:
    """``(low, high, how)``: the BCa interval from bootstrap replicates and jackknife values.

    Efron & Tibshirani (1993, §14.3): with ẑ₀ = Φ⁻¹(share of replicates below the
    estimate, ties counted half; :func:`fireeval.stats.resampling.share_below`: a replicate within
    ``ε = 1e-9 · max(1, |θ̂|)`` of the estimate is a tie, so that ẑ₀ does not follow the last bit a machine's
    summation order gives a replicate equal to the estimate) and the acceleration â = Σ(θ̄₍.₎ − θ₍ᵢ₎)³ / (6 [Σ(θ̄₍.₎ − θ₍ᵢ₎)²]^{3/2})
    from the jackknife values θ₍ᵢ₎, the interval is the replicates' quantiles at
    Φ(ẑ₀ + (ẑ₀ + z_α)/(1 − â(ẑ₀ + z_α))) for α and 1 − α. The same computation as
    :func:`scipy.stats.bootstrap` (``method="BCa"``), applied to replicates the caller
    drew (so that several statistics share one set of resamples). When ẑ₀ is infinite
    or the result is undefined, or when the BCa interval excludes or only touches its own
    estimate (BCa has broken down: most replicates lie on one side and the corrected levels
    sit at the edge of the distribution), the jackknife normal interval θ̂ ± z_{1−α}·se_jack
    is returned instead (the basic bootstrap interval when the jackknife has no spread), and
    ``how`` says which and why. That stand-in is clipped to the range of the bootstrap and
    jackknife values (as BCa and percentile intervals are by construction), so a bounded
    statistic keeps its bounds.

    BCa is also treated as unstable, and replaced the same way, when ``|ẑ₀| > 1`` (most replicates on
    one side: the corrected levels move far into one tail) or when an end falls at the outermost
    replicates (level ≤ 1/B or ≥ 1 − 1/B: one replicate decides it); ``how`` names each reason.

    Parameters
    ----------
    value : float
        The estimate.
    samples : array_like
        Bootstrap replicates.
    jackknife : array_like
        Leave-one-out values.
    level : float
        Confidence level.

    Returns
    -------
    low, high : float
        The interval.
    how : str
        The method used and why.

    Examples
    --------
    >>> bca_interval(0.5, np.linspace(0.3, 0.7, 101), [0.45, 0.5, 0.55])[2]
    'BCa bootstrap (z0 = 0.00)'
    >>> bca_interval(0.5, [0.3, 0.4, 0.5, 0.6, 0.7], [0.45, 0.5, 0.55])[2][:68]
    'jackknife normal interval (BCa unstable (z0 = 0.00): the lower end a'
    >>> bca_interval(0.9, np.r_[np.linspace(0.5, 0.89, 900), np.linspace(0.91, 0.95, 100)], [0.85, 0.9, 0.95])[2][:61]
    'jackknife normal interval (BCa unstable (z0 = 1.28): |z0| = 1'
    >>> bca_interval(1.0, [0.8, 0.9, 0.95], [0.9, 1.0])[2]
    'jackknife normal interval (BCa undefined: every replicate lies on one side of the estimate; clipped to the range of the resampled values)'
    >>> low, high, _ = bca_interval(-1.0, [-1.0] * 9 + [1.0], [-1.0, -1.0, 1.0])  # tau of two systems
    >>> -1.0 <= low <= high <= 1.0
    True
    """
    from scipy.special import ndtri

    b = np.asarray(samples, dtype=float).ravel()
    b = b[np.isfinite(b)]
    jack = np.asarray(jackknife, dtype=float).ravel()
    jack = jack[np.isfinite(jack)]
    alpha = (1 - level) / 2
    if b.size == 0:
        return float("nan"), float("nan"), "no finite bootstrap replicate"
    z0 = ndtri(share_below(b, value))
    if not np.isfinite(z0) or jack.size <= 1:
        why = ("BCa undefined: every replicate lies on one side of the estimate" if not np.isfinite(z0)
               else "BCa undefined: too few jackknife values")
        return _bca_stand_in(value, b, jack, alpha, why)
    found = _bca_ends(value, b, jack, z0, alpha)
    return found if len(found) == 3 else _bca_stand_in(value, b, jack, alpha, found[0])


def _bca_ends(value: float, b: np.ndarray, jack: np.ndarray, z0: float, alpha: float) -> tuple:
    """``(low, high, how)`` of a stable BCa interval, else ``(why,)``: why BCa is undefined or unstable."""
    from scipy.special import ndtr, ndtri

    u = jack.mean() - jack
    den = np.sum(u ** 2)
    a = np.sum(u ** 3) / (6 * den ** 1.5) if den > 0 else 0.0
    ends = []
    for z in (ndtri(alpha), -ndtri(alpha)):
        num = z0 + z
        ends.append(ndtr(z0 + num / (1 - a * num)))
    if not all(np.isfinite(ends)):
        return ("BCa undefined: the acceleration is degenerate",)
    low, high = (float(x) for x in np.quantile(b, ends))
    tol = tie_tolerance(value)  # an end within rounding of the estimate touches it
    # An end beyond the outermost replicates' levels rests on one or two replicates.
    edge = 1.0 / b.size
    at_extreme = [f"the {'lower' if i == 0 else 'upper'} end at the replicates' {q:.3f} quantile "
                  f"(the {'smallest' if i == 0 else 'largest'} of {b.size} replicates decide it)"
                  for i, q in enumerate(ends) if (q <= edge if i == 0 else q >= 1 - edge)]
    inside = low < value - tol and value + tol < high or low == value == high
    if inside and abs(z0) <= 1 and not at_extreme:
        return low, high, f"BCa bootstrap (z0 = {z0:.2f})"
    # BCa has broken down: most replicates on one side of the estimate (|z0| > 1), the corrected
    # levels at the edge of the distribution, or an interval that excludes or touches its estimate.
    reasons = ([f"|z0| = {abs(z0):.2f} > 1"] if abs(z0) > 1 else []) + at_extreme
    if not inside:
        reasons.append(f"its ends at the replicates' {ends[0]:.3f} and {ends[1]:.3f} quantiles "
                       f"{'touch' if value in (low, high) else 'exclude'} the estimate")
    return (f"BCa unstable (z0 = {z0:.2f}): " + "; ".join(reasons),)


def _bca_stand_in(value: float, b: np.ndarray, jack: np.ndarray, alpha: float, why: str) -> tuple[float, float, str]:
    """The jackknife normal interval (the basic bootstrap one when the jackknife has no spread), said with
    ``why``, clipped to the values the resamples took: BCa and percentile intervals are quantiles of the
    replicates and never leave them, and neither should their stand-in (a tau of two systems must not get
    the interval [-3, -1])."""
    from scipy.special import ndtri

    spread = jackknife_se(jack) if jack.size > 1 else 0.0
    seen = np.concatenate([b, jack, [value]])
    floor, ceiling = float(seen.min()), float(seen.max())
    if spread > 0:
        z = -ndtri(alpha)
        low, high, how = value - z * spread, value + z * spread, f"jackknife normal interval ({why})"
    else:
        q_low, q_high = np.quantile(b, [alpha, 1 - alpha])
        low, high, how = float(2 * value - q_high), float(2 * value - q_low), f"basic bootstrap ({why})"
    if low < floor or high > ceiling:
        how = how[:-1] + "; clipped to the range of the resampled values)"
    clip = lambda x: min(max(x, floor), ceiling)  # noqa: E731
    return clip(low), clip(high), how


@validate_params(record=ANY)
def label(record: Mapping) -> str:
    """The word a reader sees for a record's verdict (:data:`LABELS`).

    "not reproduced" is shown as ``contradicted`` (the interval, or the exact value,
    lies on the other side of the threshold) or ``inconclusive`` (the interval
    straddles it: the data here cannot tell).

    Parameters
    ----------
    record : mapping
        A claim's record (``verdict``, ``basis``).

    Returns
    -------
    str
        One of :data:`LABELS`.

    Examples
    --------
    >>> label({"verdict": "not reproduced", "basis": "contradicted: the whole interval fails the test"})
    'contradicted'
    >>> label({"verdict": "not reproduced", "basis": "inconclusive: the interval straddles the threshold"})
    'inconclusive'
    >>> label({"verdict": "not reproduced", "basis": "a: ...; b: ...", "conventions": {
    ...     "a": {"basis": "contradicted: exact value fails the test"},
    ...     "b": {"basis": "contradicted: the whole interval fails the test"}}})
    'contradicted'
    """
    v = record["verdict"]
    if v != "not reproduced":
        return v
    if record.get("capped"):
        return "inconclusive"
    conventions = record.get("conventions") or {}
    if len(conventions) > 1:  # contradicted only if every reading contradicts it
        return "contradicted" if all(str(c["basis"]).startswith("contradicted") for c in conventions.values()) \
            else "inconclusive"
    return "contradicted" if str(record.get("basis", "")).startswith("contradicted") else "inconclusive"


def _finite(x):
    return None if x is None or not math.isfinite(float(x)) else float(x)


@dataclass(frozen=True)
class Evidence:
    """The paper's own printed numbers behind a claim, beside ours.

    Reported apart from the verdict: the paper's *numbers* can reproduce while its
    *words* do not hold (or the reverse). Build it with :meth:`compare` (cell by cell)
    or :meth:`none` (the paper printed nothing comparable, and why).

    Parameters
    ----------
    source : where the paper's values come from ("Table 1", "Fig. 4 as printed in the
        authors' notebook ExperimentsOnCharadesSTA.ipynb", "mmr/analysis.py output").
    cells : how many values were compared.
    max_abs_diff : the largest absolute difference, paper vs here.
    tolerance : the difference still counted as equal (e.g. half the last printed digit).
    detail : anything a reader needs to read the comparison (which cells differ, why).

    Examples
    --------
    >>> e = Evidence.compare([34.4, 47.0], [34.41, 46.97], "FIRE Table 1, MSR-VTT C@1", tolerance=0.05)
    >>> e.cells, round(e.max_abs_diff, 2), e.numbers_reproduce
    (2, 0.03, True)
    """

    source: str
    cells: int = 0
    max_abs_diff: float | None = None
    tolerance: float | None = None
    detail: str = ""

    def __post_init__(self):
        if not self.source:
            raise ValueError("say where the paper's values come from (source), or use Evidence.none(why)")
        if self.cells and self.tolerance is None:
            raise ValueError("give the tolerance that counts as equal (e.g. half the last printed digit)")

    @classmethod
    def compare(cls, paper, ours, source: str, tolerance: float, detail: str = "") -> "Evidence":
        """Compare the paper's values with ours cell by cell (NaN cells of either side are skipped)."""
        p = np.asarray(paper, dtype=float).ravel()
        o = np.asarray(ours, dtype=float).ravel()
        if p.shape != o.shape:
            raise ValueError(f"the paper gives {p.size} values and we give {o.size}: compare the same cells")
        ok = np.isfinite(p) & np.isfinite(o)
        diff = float(np.max(np.abs(p[ok] - o[ok]))) if ok.any() else None
        return cls(source, int(ok.sum()), diff, float(tolerance), detail)

    @classmethod
    def none(cls, why: str) -> "Evidence":
        """No printed number of the paper's to compare with; ``why`` says so."""
        return cls("none", 0, None, None, why)

    @property
    def numbers_reproduce(self) -> bool | None:
        if not self.cells or self.max_abs_diff is None:
            return None
        return bool(self.max_abs_diff <= self.tolerance + 1e-12)

    def to_json(self) -> dict:
        return {"source": self.source, "cells": self.cells, "max_abs_diff": _finite(self.max_abs_diff),
                "tolerance": self.tolerance, "numbers_reproduce": self.numbers_reproduce, "detail": self.detail}


@dataclass(frozen=True)
class Reading:
    """How the paper's words became the test, and on what authority.

    Parameters
    ----------
    rule : the reading in one sentence ("'reasonably well' read as τ ≥ 0.36, the lowest τ
        the paper itself describes so").
    passage : the paper's words that define or use the term (a quotation).
    source : one of :data:`READING_SOURCES`: the authors' output or code, the paper's
        definition or its own usage of the word, ``"no guidance: range"`` (then give
        ``thresholds``), or ``"book's own question"`` (a claim of the book's).
    where : section, page, figure or file of the passage.
    thresholds : with ``"no guidance: range"``, the thresholds (or margins) the verdict is
        computed over; it is "depends" only if it flips inside them.

    Examples
    --------
    >>> Reading("'comparable' read as a ratio within 1 ± m, m over 0.05-0.25", "comparable or lower",
    ...         "no guidance: range", "§6.3", thresholds=(1.05, 1.1, 1.25)).thresholds
    (1.05, 1.1, 1.25)
    """

    rule: str
    passage: str
    source: str
    where: str = ""
    thresholds: tuple = ()

    def __post_init__(self):
        if self.source not in READING_SOURCES:
            raise ValueError(f"reading source {self.source!r}: use one of {', '.join(READING_SOURCES)}")
        object.__setattr__(self, "thresholds", tuple(float(t) for t in self.thresholds))
        if self.source == "no guidance: range" and len(self.thresholds) < 2:
            raise ValueError("where the paper gives nothing, give the range of thresholds the verdict is computed over")
        if not self.rule or not self.passage:
            raise ValueError("a reading needs the rule and the paper's passage it comes from")

    def to_json(self) -> dict:
        return {"rule": self.rule, "passage": self.passage, "source": self.source, "where": self.where,
                "thresholds": list(self.thresholds)}


@dataclass(frozen=True)
class Power:
    """Can the test pass on these data? A positive control, or why there is none.

    Build with :meth:`positive_control` (a system, family or construction known to
    satisfy the claim, measured the same way: it must pass the claim's test),
    :meth:`no_control` (none exists; the verdict stands and the record says why), or
    :meth:`none_possible` (nothing can pass this test here: "not testable here (no power)").

    Parameters
    ----------
    control : str, optional
        The positive control (what is known to satisfy the claim).
    estimate : Estimate, optional
        The control's value, measured as the claim's is.
    test : Test, optional
        The test the control was put to (set when it is checked).
    why_none : str, optional
        Why there is no positive control (the verdict stands).
    impossible : str, optional
        Why nothing can pass the test here (the claim is then not testable here).
    effect, effect_source, detectable : float, str, float, optional
        A stated effect, where it comes from, and the smallest difference the test detects
        (:meth:`stated_effect`): the test has power when ``detectable <= effect``.

    Examples
    --------
    >>> Power.positive_control("a pool of every run at full depth", Estimate(1.0)).passes(Test(">", 0.9))
    True
    >>> Power.none_possible("no measure is above average on every test measure in any split").passes(Test(">", 0))
    False
    """

    control: str | None = None
    estimate: Estimate | None = None
    test: Test | None = None
    why_none: str | None = None
    impossible: str | None = None
    effect: float | None = None
    effect_source: str | None = None
    detectable: float | None = None

    @classmethod
    def stated_effect(cls, effect: float, source: str, detectable: float) -> "Power":
        """Power against an effect stated before the data: the paper's, or a smallest effect of interest.

        ``effect`` is that effect (with its ``source``), ``detectable`` the minimal detectable
        difference of this test on these data (e.g. at power 0.8). The test has power when
        ``detectable <= effect``; "no power" comes only from this comparison, never from the
        observed difference (post-hoc power is a function of the p-value; Hoenig & Heisey 2001).

        >>> Power.stated_effect(0.02, "Hauptmann & Lin's REER threshold", 0.031).passes(Test(">", 0))
        False
        >>> Power.stated_effect(0.05, "the paper's gap", 0.031).passes(Test(">", 0))
        True
        """
        if not source:
            raise ValueError("say where the stated effect comes from (source). Fix: the paper's section, or the "
                             "reason for the smallest effect of interest")
        if not (math.isfinite(effect) and effect > 0):
            raise ValueError(f"stated effect {effect!r} must be a positive number. Fix: give its size")
        return cls(effect=float(effect), effect_source=source, detectable=float(detectable),
                   why_none=None)

    @classmethod
    def positive_control(cls, control: str, estimate: Estimate, test: Test | None = None) -> "Power":
        return cls(control=control, estimate=estimate, test=test)

    @classmethod
    def no_control(cls, why: str) -> "Power":
        return cls(why_none=why)

    @classmethod
    def none_possible(cls, why: str) -> "Power":
        return cls(impossible=why)

    def passes(self, test: Test) -> bool | None:
        """True when the control passes (``test``, or the control's own), False when it cannot; None: no control."""
        if self.impossible:
            return False
        if self.effect is not None:
            return bool(math.isfinite(self.detectable) and self.detectable <= self.effect)
        if self.estimate is None:
            return None
        return verdict(self.estimate, self.test or test)[0] == "reproduced"

    def to_json(self, test: Test | None) -> dict:
        passes = None if test is None else self.passes(test)
        out = {"control": self.control, "estimate": None if self.estimate is None else self.estimate.to_json(),
               "test": None if (self.test or test) is None else str(self.test or test), "passes": passes,
               "why_none": self.why_none, "impossible": self.impossible}
        if self.effect is not None:
            out.update(effect=self.effect, effect_source=self.effect_source, detectable=_finite(self.detectable))
        return out


@dataclass(frozen=True)
class Alternative:
    """One reading a careful reviewer would try instead: a sensitivity row.

    Parameters
    ----------
    name : what changes ("strict IoU > θ (reference code)", "percentile interval", "seed 1").
    estimate : the claim's quantity under that reading.
    kind : what sort of alternative: convention, threshold, margin, tie rule, seed,
        clipping, base list, subset, interval method, annotator, protocol, ...
    test : the test under that reading when it differs (another threshold or margin).
    why : instead of an estimate, why this reading cannot be computed here.
    replaces : for a claim judged under several readings of equal standing, the reading this
        row stands in for (its name in ``evaluate``'s estimates). The row *flips* the verdict
        when putting it in that reading's place changes the claim's verdict; without
        ``replaces`` it flips when put in the place of any one of them changes it.
    weight : ``"equal"`` -- a reading of equal standing with the primary one: if it flips the
        verdict, the claim is *depends*; or ``"secondary"`` -- a control, a diagnostic, or a
        reading the authors' own output rules out: its flip is shown, never decides, and
        ``reason`` says why it is secondary. Rows of kind ``seed`` or ``interval method``
        (:data:`STABILITY_KINDS`) re-estimate the same reading: a flip there makes the claim at
        most *inconclusive*. Default: ``"equal"`` (the careful default: an unweighed row counts).
    reason : why the row has the weight it has (required for ``"secondary"``).

    Examples
    --------
    >>> Alternative("percentile interval", Estimate(0.9, 0.8, 0.95, "pct"), kind="interval method").weight
    'equal'
    >>> Alternative("all runs", Estimate(0.9), kind="subset", weight="secondary").reason
    Traceback (most recent call last):
    ...
    ValueError: alternative 'all runs': a secondary row says why it is secondary (reason=...). Fix: give reason, or weight="equal"
    """

    name: str
    estimate: Estimate | None = None
    kind: str = "convention"
    test: Test | None = None
    why: str | None = None
    replaces: str | None = None
    weight: str = "equal"
    reason: str | None = None
    #: For a family claim (:meth:`Claim.evaluate_family`): the conditions under this reading.
    conditions: Mapping | None = None

    def __post_init__(self):
        if self.estimate is None and not self.why and self.conditions is None:
            raise ValueError(f"alternative {self.name!r}: give an estimate, or why it cannot be computed")
        if self.weight not in WEIGHTS:
            raise ValueError(f"alternative {self.name!r}: weight {self.weight!r} is not one of {WEIGHTS}. "
                             "Fix: weight=\"equal\" or weight=\"secondary\" with a reason")
        if self.weight == "secondary" and not self.reason:
            raise ValueError(f"alternative {self.name!r}: a secondary row says why it is secondary (reason=...). "
                             "Fix: give reason, or weight=\"equal\"")

    @property
    def stability(self) -> bool:
        """A re-estimate of the same reading (another seed, another interval method)."""
        return self.kind in STABILITY_KINDS


def _overall(conventions: Mapping[str, dict]) -> tuple[str, str]:
    verdicts = {c["verdict"] for c in conventions.values()}
    if len(verdicts) > 1:
        return "depends", "; ".join(f"{k}: {label(c)}" for k, c in conventions.items())
    bases = {c["basis"] for c in conventions.values()}
    basis = bases.pop() if len(bases) == 1 else "; ".join(f"{k}: {c['basis']}" for k, c in conventions.items())
    return verdicts.pop(), basis


def _weigh_rows(record: dict, overall: str, basis: str, rows: list) -> tuple[str, str, bool]:
    """The verdict and basis once the sensitivity rows are weighed, and whether the label was capped.

    depends: a reading of equal standing reproduces where the primary does not (or the reverse);
    inconclusive: the seed, the interval method or an equal reading moves the label off a firm word.
    Rows of the range the paper leaves open are decided before, by the range itself."""
    primary_label = label({"verdict": overall, "basis": basis, "conventions": record.get("conventions"),
                           "family": record.get("family")})
    weighed = [r for r in rows if r["kind"] != _RANGE_KIND]
    equal = [r for r in weighed if r.get("changes_verdict") and r["weight"] == "equal" and not r["stability"]]
    softer = [r for r in weighed if r["flips"] and r["weight"] == "equal"]
    if overall in ("reproduced", "not reproduced") and equal:
        return "depends", (f"an equal-standing reading flips it: primary: {primary_label}; "
                           + "; ".join(f"{r['name']}: {r['label']}" for r in equal)), False
    if primary_label in ("reproduced", "contradicted") and softer:
        kinds = " or ".join(dict.fromkeys(r["kind"] if r["stability"] else "equal-standing reading" for r in softer))
        return "not reproduced", (f"inconclusive: {primary_label} by the primary interval, but not with the {kinds} ("
                                  + "; ".join(f"{r['name']}: {r['label']}" for r in softer)
                                  + "), so no firmer than inconclusive"), True
    return overall, basis, False


def _why_no_power(power: "Power") -> str:
    """Why a test without power cannot decide: impossible, an effect below what it detects, or a failed control."""
    if power.impossible:
        return power.impossible
    if power.effect is not None:
        return (f"the smallest difference this test detects ({power.detectable:.4g}) is larger than the "
                f"stated effect ({power.effect:.4g}, {power.effect_source})")
    return f"the positive control ({power.control}) does not pass the test either"


def _swapped(current: Mapping, name: str, value: str) -> str:
    """``current`` (reading -> label or verdict) with reading ``name`` replaced by a row's ``value``: the one
    value left, or "depends"."""
    out = {*(w for n, w in current.items() if n != name), value}
    return out.pop() if len(out) == 1 else "depends"


def _mark_flips(rows: list, conventions: dict, overall: str, basis: str) -> None:
    """Mark each row: ``flips`` when, put in the place of the reading it replaces, it changes the shown label
    (reproduced, contradicted, inconclusive, depends); ``changes_verdict`` when it turns reproduced into not
    reproduced (or back): if of equal standing, the claim depends on the reading."""
    labels = {n: label(c) for n, c in conventions.items()}
    verdicts = {n: c["verdict"] for n, c in conventions.items()}
    shown = label({"verdict": overall, "basis": basis, "conventions": conventions})
    for row in rows:
        targets = [row.pop("replaces")] if row.get("replaces") is not None else list(labels)
        computed = row["verdict"] != "not testable here"
        row["flips"] = computed and any(_swapped(labels, n, row["label"]) != shown for n in targets)
        row["changes_verdict"] = computed and any(_swapped(verdicts, n, row["verdict"]) != overall for n in targets)


@dataclass
class Claim:
    """One atomic, testable statement of a paper (or of the book's own).

    Parameters
    ----------
    id : short stable key (used for glue names: ``claim.<id>.verdict``).
    paper, section : whose claim and where (``"Togashi et al. 2022"``, ``"§6.3, Fig. 7"``).
    quote : the paper's words (a quotation, or a paraphrase marked as such).
    quantity : what is measured here, with its units and data.
    test : the predicate on the quantity (the primary reading's).
    data : ``"real: ..."``, ``"stand-in: ..."`` or ``"synthetic: ..."`` -- what the numbers come from.
    standing : ``"original"`` (the paper's benchmark, real systems, real labels) or
        ``"stand-in"`` (another collection, blind baselines, a proxy for human labels,
        synthetic data). A stand-in's verdict about the paper is "not testable here".
    reading : :class:`Reading`: how the words became ``test``.
    evidence, power : :class:`Evidence`, :class:`Power` (or give them to :meth:`evaluate`,
        when they are computed).
    short : the claim in at most 20 words, for the book's scoreboard (default: the quote, cut).
    paper_value : the paper's own number, as printed (a quotation), if any.
    fmt : format of the quantity's numbers in tables.
    untestable : why the claim cannot be tested with the data here (then no estimate).

    Examples
    --------
    >>> c = Claim("depth3", paper="Example 2024", section="§4", quote="rankings are stable at depth 3",
    ...           quantity="Kendall τ, MAP, depth-3 vs full qrels", test=Test(">", 0.9), data="real: TREC-8",
    ...           standing="original", reading=Reading("τ > 0.9 as written", "τ > 0.90", "paper's definition"))
    >>> record = c.evaluate(Estimate(0.93, 0.91, 0.95, "95% bootstrap over topics"),
    ...                     evidence=Evidence.none("no number printed"), power=Power.no_control("none"))
    >>> record["verdict"], record["label"], record["test"]
    ('reproduced', 'reproduced', '> 0.9')
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
    standing: str | None = None
    reading: Reading | None = None
    evidence: Evidence | None = None
    power: Power | None = None
    short: str | None = None
    #: The cell this claim tests (e.g. "tau(R@1,0.5, AxIoU@1)"); a test whose bar comes from it is refused.
    cell: str | None = None

    def __post_init__(self):
        if self.standing is not None and self.standing not in STANDINGS:
            raise ValueError(f"claim {self.id}: standing must be one of {STANDINGS}, not {self.standing!r}")
        synthetic = self.data.startswith("synthetic") or "synthetic" in self.data.split(",")[0]
        if synthetic and self.standing == "original":
            raise ValueError(f"claim {self.id}: synthetic data ({self.data}) can only be a stand-in")
        if self.short is not None and len(self.short.split()) > 20:
            raise ValueError(f"claim {self.id}: the short form has {len(self.short.split())} words; at most 20")

    def book_finding(self, id: str | None = None, quote: str | None = None, short: str | None = None) -> "Claim":
        """The same test as a claim of the book's own about the stand-in's data.

        A stand-in cannot speak about the paper, but it can speak about itself ("on
        TREC-8, MAP rankings from a depth-3 pool correlate at τ > 0.90"). The finding
        keeps the test, the quantity, the data and any range of thresholds of the reading;
        it is the book's, so its standing is ``original`` (the data are what it is about),
        except on synthetic data, which say nothing even about themselves (``stand-in``).
        """
        from dataclasses import replace

        on = self.data.split(":", 1)[-1].strip()
        synthetic = "synthetic" in self.data.split(",")[0]
        # A range of thresholds the paper left open stays a range for the book's finding.
        thresholds = self.reading.thresholds if self.reading is not None else ()
        return replace(self, id=id or f"{self.id}.here", paper="this book", section=f"after {self.paper}, {self.section}",
                       quote=quote or f"on {on}: {self.quote}", paper_value=None,
                       # synthetic data say nothing even about themselves: the finding stays a stand-in
                       standing="stand-in" if synthetic else "original",
                       reading=Reading(f"the paper's test applied to the stand-in ({on}), as the book's own finding",
                                       self.quote, "book's own question", self.section, thresholds=thresholds),
                       evidence=Evidence.none("a finding of the book's about its stand-in; the paper has no number for it"),
                       short=short)

    def evaluate(self, estimates: Mapping[str, Estimate] | Estimate | None = None, *,
                 evidence: Evidence | None = None, power: Power | None = None,
                 sensitivity: Sequence[Alternative] = ()) -> dict:
        """The claim's JSON record with the verdict computed from ``estimates``.

        ``estimates``: one :class:`Estimate` (the primary reading), or ``{reading:
        Estimate}`` for readings of *equal standing* (neither the paper nor its authors'
        output settles which): then the verdict is "depends" when they disagree. A
        reading the authors' own output rules out is a ``secondary`` sensitivity row.
        ``evidence`` and ``power`` override the claim's fields.

        The label obeys the claim's own sensitivity rows (:class:`Alternative`): an
        ``equal`` row that flips the verdict makes it *depends*; a flip with the seed or
        the interval method (:data:`STABILITY_KINDS`) makes it at most *inconclusive*; a
        ``secondary`` row's flip is shown with its reason and decides nothing. An estimate
        that is an extreme over conditions (``Estimate.extreme``) is refused: test each
        condition with :meth:`evaluate_family`.
        """
        record, power = self._record(evidence, power)
        if self.untestable:
            return self._untestable(record)
        estimates = self._estimates(estimates)
        conventions = {}
        for name, est in estimates.items():
            v, basis = verdict(est, self.test)
            conventions[name] = {**est.to_json(), "verdict": v, "basis": basis}
        overall, basis = _overall(conventions)
        # Where the paper gives no threshold, the verdict is computed over the stated range.
        rows, overall, basis = self._threshold_rows(estimates, overall, basis)
        for alt in sensitivity:
            if alt.replaces is not None and alt.replaces not in conventions:
                raise ValueError(f"claim {self.id}: alternative {alt.name!r} replaces unknown reading {alt.replaces!r}")
            rows.append(self._row(alt))
        _mark_flips(rows, conventions, overall, basis)
        record["conventions"] = conventions
        return self._decide(record, overall, basis, rows, power)

    def _untestable(self, record: dict) -> dict:
        """``record`` of a claim that cannot be tested here, with the reason as its basis."""
        record.update(verdict="not testable here", basis=self.untestable, why=self.untestable, conventions={})
        record["label"] = label(record)
        return record

    def _estimates(self, estimates) -> dict:
        """``{reading: Estimate}`` of :meth:`evaluate`'s argument, checked (a test given, no extreme)."""
        if self.test is None:
            raise ValueError(f"claim {self.id}: give a test, or say why it is untestable")
        if isinstance(estimates, Estimate):
            estimates = {"": estimates}
        if not estimates:
            raise ValueError(f"claim {self.id}: no estimate given")
        for name, est in estimates.items():
            if est.extreme:
                raise ValueError(f"claim {self.id}: reading {name or 'primary'!r} is an extreme ({est.extreme}); a "
                                 "bootstrapped minimum or maximum is biased and never decides a label. Fix: test each "
                                 "condition with Claim.evaluate_family")
        return estimates

    def _threshold_rows(self, estimates: dict, overall: str, basis: str) -> tuple[list, str, str]:
        """The rows of a threshold range the paper leaves open, and the verdict over that range."""
        rows = []
        if self.reading is None or not self.reading.thresholds:
            return rows, overall, basis
        at, shown = {}, {}
        for t in self.reading.thresholds:
            test = Test(self.test.op, t)
            per = {n: dict(zip(("verdict", "basis"), verdict(e, test))) for n, e in estimates.items()}
            at[t], b = _overall(per)
            # the reader sees the verdict's word (contradicted, inconclusive), never the internal "not reproduced"
            shown[t] = label({"verdict": at[t], "basis": b, "conventions": per})
            for n, e in estimates.items():
                rows.append(self._row(Alternative(f"threshold {t:g}" + (f", {n}" if n else ""), e,
                                                  _RANGE_KIND, test, replaces=n)))
        if len(set(at.values())) > 1:
            overall = "depends"
            basis = "flips inside the range the paper leaves open: " + "; ".join(
                f"{self.test.op} {t:g}: {v}" for t, v in shown.items())
        return rows, overall, basis

    def evaluate_family(self, conditions: Mapping[str, Estimate], *, multiplicity: str, need="all",
                        evidence: Evidence | None = None, power: Power | None = None,
                        sensitivity: Sequence[Alternative] = ()) -> dict:
        """A claim over many conditions (every σ, every K, every pair), tested condition by condition.

        Each condition's :class:`Estimate` is judged by the claim's test with its own interval;
        ``multiplicity`` states how the intervals were made for the family (e.g. "Bonferroni:
        each interval at 1 − 0.05/9"). ``need`` says what the statement asks of the family:
        ``"all"`` (it holds at every condition: *contradicted* where one condition fails, *reproduced*
        when all hold), ``"any"``, or a share in (0, 1]. The record says how many conditions hold
        and which fail ("holds at 7 of 9; fails at σ = 2, K = 10"). Sensitivity rows are families
        too: an :class:`Alternative` with ``conditions`` (the same conditions under another interval
        method, seed or reading) is judged as a family and flips the claim when its family verdict differs.

        >>> c = Claim("noise", paper="P", section="§1", quote="R@1 errs more than AxIoU at every σ",
        ...           quantity="error(R@1) − error(AxIoU)", test=Test(">", 0), data="real: x", standing="original",
        ...           reading=Reading("as written", "errs more", "paper's definition"),
        ...           evidence=Evidence.none("-"), power=Power.no_control("-"))
        >>> r = c.evaluate_family({"σ = 1": Estimate(0.02, 0.01, 0.03, "b"), "σ = 2": Estimate(0.01, -0.01, 0.02, "b")},
        ...                       multiplicity="Bonferroni over 2 conditions")
        >>> r["label"], r["family"]["summary"]
        ('inconclusive', 'holds at 1 of 2; unclear at σ = 2')
        """
        if not multiplicity:
            raise ValueError(f"claim {self.id}: state the multiplicity rule of the family's intervals. Fix: "
                             "multiplicity='Bonferroni: each interval at 1 - 0.05/m' (or 'none: ...' with the reason)")
        if not conditions:
            raise ValueError(f"claim {self.id}: a family needs at least one condition")
        record, power = self._record(evidence, power)
        if self.untestable:
            return self._untestable(record)
        family = _family(conditions, self.test, need)
        family["multiplicity"] = multiplicity
        # A row flips the claim when its reading gives another label than the primary reading's, before the rows
        # are weighed: after, the family already shows their effect (a row agreeing with the primary would
        # otherwise be listed as flipping a family the rows made 'depends').
        primary = label({"verdict": family["verdict"], "basis": family["basis"]})
        rows = [self._row(alt, need) for alt in sensitivity]
        # each condition's label obeys that condition's rows, as a claim's label obeys its own
        family = _family_by_rows(family, rows, need)
        for row in rows:
            row.pop("replaces", None)
            computed = row["verdict"] != "not testable here"
            row["flips"] = computed and row["label"] != primary
            row["changes_verdict"] = computed and row["verdict"] != family["verdict"]
        record["family"] = family
        record["conventions"] = {}
        return self._decide(record, family["verdict"], family["basis"], rows, power)

    def _record(self, evidence, power) -> tuple[dict, Power | None]:
        if self.cell is not None and self.test is not None and self.test.from_cell == self.cell:
            raise ValueError(f"claim {self.id}: the test's bar comes from the cell it tests ({self.cell}). Fix: take "
                             "the bar from an independent cell, the paper, or a stated smallest effect")
        evidence = evidence or self.evidence
        power = power or self.power
        short = self.short or (" ".join(self.quote.split()[:20]) + (" …" if len(self.quote.split()) > 20 else ""))
        record = {"id": self.id, "paper": self.paper, "section": self.section, "quote": self.quote, "short": short,
                  "quantity": self.quantity, "test": None if self.test is None else str(self.test),
                  "data": self.data, "paper_value": self.paper_value, "fmt": self.fmt, "notes": self.notes,
                  "standing": self.standing,
                  "reading": None if self.reading is None else self.reading.to_json(),
                  "evidence": None if evidence is None else evidence.to_json(),
                  "power": None if power is None else power.to_json(self.test),
                  "sensitivity": [], "flips": [], "on_stand_in": None, "here": []}
        record["missing"] = [f for f in FIELDS if f != "sensitivity" and record[f] is None]
        return record, power

    def _decide(self, record: dict, overall: str, basis: str, rows: list[dict], power: Power | None) -> dict:
        """Apply the weights of the sensitivity rows, then power and standing, to the primary verdict."""
        overall, basis, capped = _weigh_rows(record, overall, basis, rows)
        record.update(sensitivity=rows, flips=[r["name"] for r in rows if r["flips"]])
        result = {"verdict": overall, "basis": basis, "capped": capped}
        result["label"] = label({**result, "conventions": record.get("conventions"), "family": record.get("family")})
        record["capped"] = result["capped"]
        if power is not None and power.passes(self.test) is False:
            record["without_power"] = result
            overall, basis = "not testable here", f"no power: {_why_no_power(power)}"
        if self.standing == "stand-in" and overall != "not testable here":
            record["on_stand_in"] = result
            on = self.data.split(":", 1)[-1].strip()
            record["here"] = [{"data": on, **result, "found": _found(record)}]
            overall = "not testable here"
            basis = (f"stand-in ({self.data}): the paper's own data are not here, so this cannot speak about the "
                     f"paper; on the stand-in the test is {result['label']}")
            record["capped"] = False
        record.update(verdict=overall, basis=basis, why=None)
        record["label"] = label(record)
        assert overall in VERDICTS
        return record

    def _row(self, alt: Alternative, need="all") -> dict:
        test = alt.test or self.test
        common = {"name": alt.name, "kind": alt.kind, "test": str(test), "replaces": alt.replaces,
                  "weight": alt.weight, "reason": alt.reason, "stability": alt.stability}
        if alt.conditions is not None:
            fam = _family(alt.conditions, test, need)
            row = {**common, "value": None, "low": None, "high": None, "method": fam["summary"],
                   "verdict": fam["verdict"], "basis": fam["basis"], "family": fam}
            row["label"] = label(row)
            return row
        if alt.estimate is None:
            return {**common, "value": None, "low": None, "high": None, "method": None,
                    "verdict": "not testable here", "basis": alt.why, "label": "not testable here"}
        if alt.estimate.extreme and alt.weight == "equal":
            raise ValueError(f"claim {self.id}: row {alt.name!r} is an extreme ({alt.estimate.extreme}) of equal "
                             "standing; an extreme never decides a label. Fix: weight='secondary' with the reason "
                             "(a diagnostic), or a per-condition family")
        v, basis = verdict(alt.estimate, test)
        row = {**common, **alt.estimate.to_json(), "verdict": v, "basis": basis}
        row["label"] = label(row)
        return row


def _family(conditions: Mapping[str, Estimate], test: Test, need="all") -> dict:
    """Each condition judged with its own interval, and what the family's statement makes of them."""
    per = []
    for name, est in conditions.items():
        if est.extreme:
            raise ValueError(f"condition {name!r} is an extreme ({est.extreme}). Fix: give each condition's own "
                             "estimate")
        v, basis = verdict(est, test)
        per.append({"condition": str(name), **est.to_json(), "verdict": v, "basis": basis,
                    "label": label({"verdict": v, "basis": basis})})
    m = len(per)
    hold = [p["condition"] for p in per if p["label"] == "reproduced"]
    fail = [p["condition"] for p in per if p["label"] == "contradicted"]
    unclear = [p["condition"] for p in per if p["label"] not in ("reproduced", "contradicted")]
    if need == "all":
        v = ("reproduced", "all hold") if len(hold) == m else \
            ("not reproduced", "contradicted: fails at a condition") if fail else \
            ("not reproduced", "inconclusive: no condition fails, not every condition holds")
        what = "every condition"
    elif need == "any":
        v = ("reproduced", "holds at a condition") if hold else \
            ("not reproduced", "contradicted: fails at every condition") if len(fail) == m else \
            ("not reproduced", "inconclusive: no condition holds, not every condition fails")
        what = "at least one condition"
    else:
        share = float(need)
        if not 0 < share <= 1:
            raise ValueError(f"need={need!r}: use 'all', 'any' or a share in (0, 1]")
        v = ("reproduced", f"holds at {len(hold)} of {m} (needs {share:.0%})") if len(hold) >= share * m else \
            ("not reproduced", "contradicted: too many conditions fail") if len(fail) > (1 - share) * m else \
            ("not reproduced", "inconclusive: the count of holding conditions is undecided")
        what = f"{share:.0%} of the conditions"
    summary = f"holds at {len(hold)} of {m}"
    if fail:
        summary += "; fails at " + ", ".join(fail)
    if unclear:
        summary += "; unclear at " + ", ".join(unclear)
    return {"conditions": per, "hold": len(hold), "of": m, "fail": fail, "unclear": unclear, "need": what,
            "verdict": v[0], "basis": f"{v[1]} ({summary})", "summary": summary}


#: How many conditions a family's summary names per outcome before "and N more".
_NAMED = 6


def _family_by_rows(family: dict, rows: list[dict], need) -> dict:
    """Each condition's shown label under the rules a claim's label obeys, from the family rows' conditions:
    an equal-standing row that turns the condition's verdict makes it *depends*; one that only moves its
    label (or a seed or interval-method row that moves it) leaves it no firmer than *inconclusive*. The
    family's verdict is then taken from the shown labels."""
    for c in family["conditions"]:
        _label_condition(c, rows)
    by_label = {shown: [c["condition"] for c in family["conditions"] if c["label"] == shown]
                for shown in ("reproduced", "contradicted", "depends", "inconclusive")}
    hold, fail, depends, unclear = (by_label[k] for k in ("reproduced", "contradicted", "depends", "inconclusive"))
    m = len(family["conditions"])
    v = _family_verdict(need, len(hold), len(fail), len(depends), m)
    summary = f"holds at {len(hold)} of {m}"
    untested = [c["condition"] for c in family["conditions"] if c["label"].startswith("untested")]
    for what, names in (("fails at", fail), ("depends at", depends), ("unclear at", unclear),
                        ("untested at", untested)):
        if names:  # a long family names a few; every condition is in the fold under the count
            summary += f"; {what} " + ", ".join(names[:_NAMED]) + (f" and {len(names) - _NAMED} more"
                                                                      if len(names) > _NAMED else "")
        if names and what == "depends at":  # which reading it depends on, so the summary alone says why
            summary += _flipping_readings(family["conditions"])
    family.update(hold=len(hold), fail=fail, unclear=unclear, depends=depends, verdict=v[0],
                  basis=f"{v[1]} ({summary})", summary=summary)
    return family


def _flipping_readings(conditions: list[dict]) -> str:
    """`` (on READING; READING)``: the equal-standing readings that turn the conditions shown as *depends*."""
    readings = list(dict.fromkeys(r for c in conditions if c["label"] == "depends" for r in c.get("flipped_by", ())))
    if not readings:
        return ""
    more = f" and {len(readings) - 2} more readings" if len(readings) > 2 else ""
    return " (on " + "; ".join(readings[:2]) + more + ")"


def _label_condition(c: dict, rows: list[dict]) -> None:
    """One condition's shown label (and why) under the family rows of equal standing."""
    primary = c["label"]
    if c["verdict"] == "not testable here":  # no primary value: rows cannot move it; an untested cell says why
        c["primary_label"], c["why"] = primary, ""
        if str(c.get("method") or "").startswith("untested"):
            c["label"] = c["method"]
        return
    equal, softer = [], []
    for row in rows:
        if row.get("weight") != "equal" or not row.get("family"):
            continue
        other = next((x for x in row["family"]["conditions"] if x["condition"] == c["condition"]), None)
        if other is None or other["verdict"] == "not testable here" or other["label"] == primary:
            continue
        name = f"{row['name']}: {other['label']}"
        flips = other["verdict"] != c["verdict"] and not row.get("stability")
        (equal if flips else softer).append(name)
        if flips:
            c.setdefault("flipped_by", []).append(row["name"])
    c["primary_label"] = primary
    if equal:
        c["label"], c["why"] = "depends", f"{primary} by its interval; " + "; ".join(equal)
    elif softer and primary in ("reproduced", "contradicted"):
        c["label"], c["why"] = "inconclusive", f"{primary} by its interval; " + "; ".join(softer)
    else:
        c["why"] = ""


def _family_verdict(need, hold: int, fail: int, depends: int, m: int) -> tuple[str, str]:
    """``(verdict, why)`` of a family of ``m`` conditions from the counts that hold, fail and depend, as the
    statement needs: ``"all"``, ``"any"`` or a share in (0, 1]."""
    if need == "all":
        return ("reproduced", "all hold") if hold == m else \
            ("not reproduced", "contradicted: fails at a condition") if fail else \
            ("depends", "every condition holds or depends on the reading") if depends and hold + depends == m else \
            ("not reproduced", "inconclusive: no condition fails, not every condition holds"
             + ("; some are unclear whatever the reading" if depends else ""))
    if need == "any":
        return ("reproduced", "holds at a condition") if hold else \
            ("not reproduced", "contradicted: fails at every condition") if fail == m else \
            ("depends", "a condition depends on the reading") if depends else \
            ("not reproduced", "inconclusive: no condition holds, not every condition fails")
    share = float(need)
    return ("reproduced", f"holds at {hold} of {m} (needs {share:.0%})") if hold >= share * m else \
        ("not reproduced", "contradicted: too many conditions fail") if fail > (1 - share) * m else \
        ("depends", "the count depends on the reading") if hold + depends >= share * m else \
        ("not reproduced", "inconclusive: the count of holding conditions is undecided")


def _found(record: Mapping) -> str:
    """The number(s) found here, as one short string: each reading's value and interval, or a family's count."""
    if record.get("family"):
        return record["family"]["summary"]
    conventions = record.get("conventions") or {}
    fmt = record.get("fmt", ".3f")
    return "; ".join((f"{name}: " if name and len(conventions) > 1 else "") + format_estimate(c, fmt)
                     for name, c in conventions.items()) or "—"


@validate_params(record=ANY, legacy_twins=BOOL)
def check_record(record: Mapping, legacy_twins: bool = False) -> None:
    """Refuse a record whose label breaks the book's rules (raises ValueError naming the claim and the rule).

    * no id ends in ``.here`` (a stand-in's finding is a row of the paper's claim, not a twin claim);
    * an equal-standing sensitivity row that flips the verdict makes it *depends*;
    * a flip with the seed or the interval method leaves it no firmer than *inconclusive*;
    * an extreme over conditions never decides it.

    Parameters
    ----------
    record : mapping
        A claim's record.
    legacy_twins : bool
        Allow the old ``.here`` twin claims.

    Returns
    -------
    None
        Raises ValueError instead.

    Examples
    --------
    >>> check_record({"id": "x.here", "label": "reproduced", "sensitivity": [], "conventions": {}})
    Traceback (most recent call last):
    ...
    ValueError: claim x.here: an id ending in '.here' is a twin of a paper's claim. Fix: the stand-in's result is the paper claim's 'here' row (Claim.evaluate puts it there)
    """
    cid = record["id"]
    if cid.endswith(".here") and not legacy_twins:
        raise ValueError(f"claim {cid}: an id ending in '.here' is a twin of a paper's claim. Fix: the stand-in's "
                         "result is the paper claim's 'here' row (Claim.evaluate puts it there)")
    decided = (record.get("on_stand_in") or {}).get("label") or (record.get("without_power") or {}).get("label") \
        or record["label"]
    _check_rows(cid, record, decided)
    extremes = [n for n, c in (record.get("conventions") or {}).items() if c.get("extreme")]
    if extremes:
        raise ValueError(f"claim {cid}: decided by an extreme over conditions ({', '.join(extremes) or 'primary'}). "
                         "Fix: test each condition (Claim.evaluate_family)")


def _check_rows(cid: str, record: Mapping, decided: str) -> None:
    """The sensitivity rows' rules of :func:`check_record` (rows of a threshold range are decided by the range)."""
    rows = [r for r in record.get("sensitivity") or [] if r.get("kind") != _RANGE_KIND]
    equal = [r["name"] for r in rows if r.get("changes_verdict", r.get("flips")) and r.get("weight", "equal") == "equal"
             and not r.get("stability", r.get("kind") in STABILITY_KINDS)]
    if equal and decided not in ("depends", "not testable here"):
        raise ValueError(f"claim {cid}: the equal-standing row(s) {', '.join(equal)} flip it, yet it is labelled "
                         f"{decided!r}. Fix: label it 'depends' (Claim.evaluate does), or say why each row is secondary")
    softer = [r["name"] for r in rows if r.get("flips") and r.get("weight", "equal") == "equal"]
    if softer and decided in ("reproduced", "contradicted"):
        raise ValueError(f"claim {cid}: it flips with {', '.join(softer)}, yet it is labelled {decided!r}. Fix: no "
                         "firmer than 'inconclusive' (Claim.evaluate caps it)")


@validate_params(records=ANY)
def merge_twins(records: Sequence[Mapping]) -> list[dict]:
    """Fold each legacy ``<id>.here`` twin into its paper claim as that claim's ``here`` row.

    Chapters written before the one-row-per-statement rule state a stand-in's finding as a
    second claim; this keeps one record per paper statement (the twin's label, number and
    data become a row of the paper's claim). A twin whose paper claim is absent keeps its
    record under the id without ``.here``.

    Parameters
    ----------
    records : sequence of dict
        Claim records (:meth:`Claim.record`), each with an ``id``; a twin's id ends in ``.here`` and it has
        ``data`` ("stand-in: NAME"), ``verdict``, ``basis``, ``label`` and what :func:`_found` reads.

    Returns
    -------
    list of dict
        The records in their order, twins folded (copies: the records given are not changed).

    Examples
    --------
    >>> paper = {"id": "c1", "label": "not testable here"}
    >>> twin = {"id": "c1.here", "data": "stand-in: simulated runs", "verdict": "reproduced",
    ...         "basis": "p < 0.05", "label": "reproduced", "conventions": {}, "why": "", "test": ""}
    >>> merged = merge_twins([paper, twin])
    >>> [r["id"] for r in merged], merged[0]["here"][0]["data"], merged[0]["here"][0]["label"]
    (['c1'], 'simulated runs', 'reproduced')
    >>> merge_twins([{**twin, "id": "c2.here"}])[0]["id"]   # no paper claim: the twin stands alone
    'c2'
    """
    by_id = {r["id"]: dict(r) for r in records}
    out = []
    for r in records:
        rid = r["id"]
        if rid.endswith(".here"):
            base = by_id.get(rid[:-5])
            if base is None:
                out.append({**r, "id": rid[:-5]})
            continue
        merged = by_id[rid]
        twin = by_id.get(rid + ".here")
        if twin is not None:
            merged["here"] = [{"data": twin["data"].split(":", 1)[-1].strip(), "verdict": twin["verdict"],
                               "basis": twin["basis"], "label": twin["label"], "found": _found(twin),
                               "short": twin.get("short"), "sensitivity": twin.get("sensitivity", [])}]
        out.append(merged)
    return out


@validate_params(records=ANY)
def summary_rows(records: Sequence[Mapping]) -> list[dict]:
    """One row per claim for a chapter's box: claim | found here | verdict (label and basis) | data | fields.

    A stand-in claim's row carries what its data show (``here``: data, label, number); a
    family claim's, how many conditions hold.

    Parameters
    ----------
    records : sequence of dict
        Claim records (:meth:`Claim.evaluate`).

    Returns
    -------
    list of dict
        One row per record: ``claim``, ``short``, ``paper's number``, ``found here``, ``interval``,
        ``verdict``, ``label``, ``basis``, ``data``, ``standing``, ``id`` and the record's
        fair-verdict fields.

    Examples
    --------
    >>> c = Claim("depth3", paper="Example 2024", section="§4", quote="rankings are stable at depth 3",
    ...           quantity="Kendall τ, MAP, depth-3 vs full qrels", test=Test(">", 0.9), data="real: TREC-8",
    ...           standing="original", reading=Reading("τ > 0.9 as written", "τ > 0.90", "paper's definition"))
    >>> record = c.evaluate(Estimate(0.93, 0.91, 0.95, "95% bootstrap over topics"),
    ...                     evidence=Evidence.none("no number printed"), power=Power.no_control("none"))
    >>> row = summary_rows([record])[0]
    >>> row["found here"], row["interval"], row["label"]
    ('0.930 [0.910, 0.950] (test: > 0.9)', '95% bootstrap over topics', 'reproduced')
    """
    rows = []
    for r in records:
        if r.get("family"):
            found = f"{r['family']['summary']} (test per condition: {r['test']})"
            methods = [r["family"].get("multiplicity", "")]
        elif r["conventions"]:
            found = "; ".join((f"{name}: " if name else "") + format_estimate(c, r.get("fmt", ".3f"))
                              + (f" ({label(c)})" if r["verdict"] == "depends" and len(r["conventions"]) > 1 else "")
                              for name, c in r["conventions"].items())
            found += f" (test: {r['test']})"
            methods = list(dict.fromkeys(c.get("method") for c in r["conventions"].values() if c.get("method")))
        else:
            found, methods = r["why"] or r["basis"], []
        # every verdict keeps its reason; a "depends" says which reading flips it
        basis = r["basis"]
        rows.append({"claim": f"{r['quote']} ({r['paper']}, {r['section']})", "short": r.get("short", r["quote"]),
                     "paper's number": r.get("paper_value") or "", "found here": found,
                     "interval": "; ".join(m for m in methods if m),
                     "verdict": r["verdict"], "label": r.get("label", label(r)), "basis": basis, "data": r["data"],
                     "standing": r.get("standing"), "id": r["id"], "here": r.get("here") or [],
                     "paper": r.get("paper", ""), "section": r.get("section", ""),
                     "evidence": r.get("evidence"), "reading": r.get("reading"), "power": r.get("power"),
                     "sensitivity": r.get("sensitivity", []), "flips": r.get("flips", []),
                     "family": r.get("family")})
    return rows
