"""What the TREC chapters' claim builders share: Kendall τ estimates with their sensitivity rows, and labels.

τ near 1 is skewed: the primary interval is BCa (:meth:`fireeval.stats.claims.Estimate.bca`, which
says when BCa is unstable and what replaces it); the percentile interval and a second bootstrap
seed re-estimate the same reading (kind ``interval method`` / ``seed``: a flip there caps the
label at *inconclusive*); the exact realised τ on these topics is a reading of equal standing
(the papers print realised values on their own topics).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from fireeval.stats.agreement import kendall_tau
from fireeval.stats.claims import Alternative, Claim, Estimate, Power, Test
from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement

from fireeval.book.papers.westerveld import FOR_TRECVID
from fireeval.core.validation import ANY, ARRAY, SEED, STR, Instance, Int, Options, validate_params
from fireeval.stats.claims import WEIGHTS

__all__ = ['is_synthetic', 'stand_in_label', 'finding_twin', 'tau_estimates', 'EXACT_TAU', 'tau_rows', 'needed_value', 'width_note', 'only_can_pass', 'tau_family_rows']

@validate_params(data=STR)
def is_synthetic(data: str) -> bool:
    return "synthetic" in data.split(",")[0]


@validate_params(data=STR)
def stand_in_label(data: str) -> str:
    """The data label of a claim about the paper: always a stand-in for TRECVID 2003."""
    on = data.split(":", 1)[-1].strip() if ":" in data else data
    return f"stand-in: {on} ({FOR_TRECVID})"


@validate_params(claim=Instance(Claim), data=STR, short=STR, quote=[STR, None])
def finding_twin(claim: Claim, data: str, short: str, quote: str | None = None) -> Claim:
    """``claim.book_finding`` (id ``<claim>.here``) on ``data``, the label of the data the book ran on
    (the paper's claim carries the stand-in label); a finding on synthetic data stays a stand-in."""
    return replace(claim.book_finding(f"{claim.id}.here", quote, short), data=data)


@validate_params(per_topic=ARRAY, reference=ARRAY, n_resamples=Int(1), rng=SEED, what=STR)
def tau_estimates(per_topic, reference, n_resamples: int, rng=0, what: str = "topics") -> tuple[Estimate, Estimate]:
    """(BCa, percentile) estimates of Kendall τ-b between the rankings by mean score.

    ``per_topic``/``reference``: (n_systems, n_topics). The same ``rng`` draws the same
    topic resamples as :func:`fireeval.stats.reliability.bootstrap_agreement`.

    >>> s = np.array([[.1, .2, .3, .2], [.4, .5, .6, .5], [.7, .8, .9, .8]])
    >>> bca, pct = tau_estimates(s, s, 20)
    >>> bca.value, pct.value
    (1.0, 1.0)
    """
    per_topic, reference = np.asarray(per_topic, float), np.asarray(reference, float)
    value = kendall_tau(per_topic.mean(-1), reference.mean(-1))
    boot = bootstrap_agreement(per_topic, reference, n_resamples, rng)
    jack = jackknife_agreement(per_topic, reference)
    how = f"{n_resamples} resamples of the {per_topic.shape[-1]} {what} (seed {rng})"
    return (Estimate.bca(value, boot, jack, how),
            Estimate.from_samples(value, boot, f"95% percentile bootstrap; {how}"))


EXACT_TAU = ("exact realised τ (the paper's τ is a realised value on its own topics, not an estimate for a "
          "population of topics)")


@validate_params(per_topic=ARRAY, reference=ARRAY, n_resamples=Int(1), rng=SEED, prefix=STR, replaces=ANY)
def tau_rows(per_topic, reference, n_resamples, rng, prefix="", replaces=None):
    """Primary BCa estimate and its sensitivity rows: percentile interval, another seed, the exact realised τ.

    ``replaces``: the reading these rows stand in for (a claim with several readings).
    """
    bca, pct = tau_estimates(per_topic, reference, n_resamples, rng)
    other, _ = tau_estimates(per_topic, reference, n_resamples, rng + 1)
    exact = Estimate(bca.value, method=f"exact: the realised τ-b on these {np.shape(per_topic)[-1]} topics")
    return bca, [Alternative(f"{prefix}percentile interval", pct, kind="interval method", replaces=replaces),
                 Alternative(f"{prefix}bootstrap seed {rng + 1}", other, kind="seed", replaces=replaces),
                 Alternative(f"{prefix}{EXACT_TAU}", exact, kind="exact value", replaces=replaces)]


@validate_params(estimate=Instance(Estimate), test=Instance(Test))
def needed_value(estimate: Estimate, test: Test) -> float:
    """The value the estimate would need for its whole interval to pass ``test``, its interval's shape kept.

    >>> round(needed_value(Estimate(0.913, 0.88, 0.94, "b"), Test(">", 0.9)), 3)
    0.933
    >>> round(needed_value(Estimate(0.05, 0.02, 0.09, "b"), Test("<", 0.1)), 3)
    0.06
    """
    if not estimate.has_interval:
        return float(test.threshold)
    if test.op in (">", ">="):
        return float(test.threshold + (estimate.value - estimate.low))
    return float(test.threshold - (estimate.high - estimate.value))


@validate_params(estimate=Instance(Estimate), test=Instance(Test), what=STR)
def width_note(estimate: Estimate, test: Test, what: str = "τ-b") -> str:
    """How high ``what`` (a τ, at most 1) must be for the whole interval, its shape kept, to pass ``test``.

    >>> width_note(Estimate(0.99, 0.97, 1.0, "b"), Test(">", 0.98)).split("), ")[1]
    'the test passes only when τ-b is at least 1.000'
    >>> width_note(Estimate(0.99, 0.963, 1.0, "b"), Test(">", 0.98)).split("), ")[1]
    'no τ-b can pass the test: it would need 1.007, above its maximum 1'
    """
    needed = needed_value(estimate, test)
    shape = (f"with this interval's shape ({estimate.value - estimate.low:.3f} below the estimate, "
             f"{estimate.high - estimate.value:.3f} above), ")
    if test.op in (">", ">=") and round(needed, 3) > 1:
        return shape + f"no {what} can pass the test: it would need {needed:.3f}, above its maximum 1"
    return shape + f"the test passes only when {what} is at least {needed:.3f}"


@validate_params(what=STR)
def only_can_pass(what: str) -> Power:
    """A control that shows only that the test can pass (an exact τ = 1, no interval)."""
    return Power.positive_control(f"{what} (τ = 1 by construction, no interval): this control shows only that the "
                                  "test can pass, not that it can detect a τ just above the threshold",
                                  Estimate(1.0, method="exact: the original ranking, by construction"))



@validate_params(per_condition=ANY, n_resamples=Int(1), rng=SEED, prefix=STR, exact_weight=Options(*WEIGHTS),
                 exact_reason=[STR, None])
def tau_family_rows(per_condition, n_resamples: int, rng: int = 0, prefix: str = "", exact_weight: str = "equal",
                    exact_reason: str | None = None) -> tuple[dict, list]:
    """One reading of a claim over several conditions (families, for :meth:`Claim.evaluate_family`).

    ``per_condition``: ``{condition: (per_topic, reference)}``, each (n_systems, n_topics). Returns the
    conditions' primary (BCa) estimates and :func:`tau_rows`' sensitivity rows regrouped as families
    (``Alternative(conditions=...)``): the percentile interval, another seed and the exact realised τ
    of every condition; the exact row's ``exact_weight``/``exact_reason`` are the caller's to decide.

    >>> s = np.array([[.1, .2, .3, .2], [.4, .5, .6, .5], [.7, .8, .9, .8]])
    >>> conditions, rows = tau_family_rows({"a": (s, s), "b": (s, s)}, 20)
    >>> sorted(conditions), [r.kind for r in rows], sorted(rows[2].conditions)
    (['a', 'b'], ['interval method', 'seed', 'exact value'], ['a', 'b'])
    """
    conditions, regrouped = {}, None
    for name, (per_topic, reference) in per_condition.items():
        conditions[name], rows = tau_rows(per_topic, reference, n_resamples, rng, prefix)
        regrouped = regrouped or [(row, {}) for row in rows]
        for (_, by_condition), row in zip(regrouped, rows):
            by_condition[name] = row.estimate
    out = [replace(row, estimate=None, conditions=by_condition) for row, by_condition in regrouped or []]
    if out:
        out[-1] = replace(out[-1], weight=exact_weight, reason=exact_reason)
    return conditions, out
