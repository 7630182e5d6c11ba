"""The stats memos (agreement per slice, bootstrap counts per seed) return what the direct computation does."""
import numpy as np
import pytest

from fireeval.stats import reliability
from fireeval.stats.agreement import kendall_tau_many
from fireeval.stats.resampling import TIE_RTOL, bootstrap_counts


def _scores(shape, seed=0):
    # rounded scores: ties between systems, as real per-topic scores have
    return np.random.default_rng(seed).random(shape).round(2)


def _direct_bootstrap(scores, ref, n, seed):
    """The computation before the memo, written out: every resample of every slice at once (means within
    TIE_RTOL tie: the rounded scores give systems equal means that the product may add in different orders)."""
    counts = bootstrap_counts(scores.shape[-1], scores.shape[-1], n, seed)
    means = np.swapaxes(scores @ counts.T / scores.shape[-1], -1, -2)
    return kendall_tau_many(means, (ref @ counts.T / scores.shape[-1]).T, rtol=TIE_RTOL)


@pytest.mark.parametrize("statistic", ["tau_b", "tau_ap"])
def test_memo_equals_the_batch_in_any_order(statistic):
    reliability._AGREEMENT_MEMO.clear()
    scores, ref = _scores((3, 4, 9, 12)), _scores((9, 12), 1)
    generator = reliability.bootstrap_agreement(scores, ref, 150, np.random.default_rng(7), statistic)  # no memo
    part = reliability.bootstrap_agreement(scores[1:, :2], ref, 150, 7, statistic)  # a subset first
    whole = reliability.bootstrap_agreement(scores, ref, 150, 7, statistic)  # then the rest, partly remembered
    again = reliability.bootstrap_agreement(scores[:, 3], ref, 150, 7, statistic)
    assert whole.shape == (3, 4, 150)
    np.testing.assert_array_equal(whole, generator)
    np.testing.assert_array_equal(part, generator[1:, :2])
    np.testing.assert_array_equal(again, generator[:, 3])
    if statistic == "tau_b":
        np.testing.assert_array_equal(whole, _direct_bootstrap(scores, ref, 150, 7))


def test_memo_keys_on_every_setting():
    reliability._AGREEMENT_MEMO.clear()
    scores, ref = _scores((9, 12)), _scores((9, 12), 1)
    a = reliability.bootstrap_agreement(scores, ref, 100, 0)
    assert not np.array_equal(a, reliability.bootstrap_agreement(scores, ref, 100, 1))  # another seed
    assert reliability.bootstrap_agreement(scores, ref, 50, 0).shape == (50,)  # other resamples
    assert not np.array_equal(a, reliability.bootstrap_agreement(scores, scores, 100, 0))  # other reference
    changed = scores.copy()
    changed[0, 0] += 0.5
    np.testing.assert_array_equal(reliability.bootstrap_agreement(changed, ref, 100, 0),
                                  _direct_bootstrap(changed, ref, 100, 0))  # other scores
    a[:] = 9  # a caller's change to its result does not reach the memo
    np.testing.assert_array_equal(reliability.bootstrap_agreement(scores, ref, 100, 0),
                                  _direct_bootstrap(scores, ref, 100, 0))


def test_jackknife_memo_equals_the_batch():
    reliability._AGREEMENT_MEMO.clear()
    scores, ref = _scores((5, 9, 12)), _scores((9, 12), 1)
    first = reliability.jackknife_agreement(scores[2], ref)
    whole = reliability.jackknife_agreement(scores, ref)
    n = scores.shape[-1]
    means = np.swapaxes((scores.sum(-1, keepdims=True) - scores) / (n - 1), -1, -2)
    ref_means = np.swapaxes((ref.sum(-1, keepdims=True) - ref) / (n - 1), -1, -2)
    np.testing.assert_array_equal(whole, kendall_tau_many(means, ref_means, rtol=TIE_RTOL))
    np.testing.assert_array_equal(first, whole[2])
    np.testing.assert_array_equal(reliability.jackknife_agreement(scores, ref, topics=[0, 2, 5])[1],
                                  reliability.jackknife_agreement(scores[1][:, [0, 2, 5]], ref[:, [0, 2, 5]]))


def test_memo_drops_the_least_recently_used():
    memo = reliability._SliceMemo(max_entries=3)
    calls = []

    def compute(slices):
        calls.append(len(slices))
        return slices.sum(-1)[..., :1]

    ref = np.zeros((2, 2))
    memo.get(("k",), np.arange(16.0).reshape(4, 2, 2), ref, compute)
    assert calls == [4] and len(memo._store) == 3
    memo.get(("k",), np.arange(16.0).reshape(4, 2, 2)[3:], ref, compute)  # the last is kept
    assert calls == [4]


def test_bootstrap_means_memo_draws_what_the_generator_draws():
    from fireeval.stats import resampling

    resampling._COUNTS_MEMO.clear()
    scores = _scores((3, 40))
    by_generator = resampling.bootstrap_means(scores, 25, 230, np.random.default_rng(5), chunk=100)  # no memo
    first = resampling.bootstrap_means(scores, 25, 230, 5, chunk=100)
    second = resampling.bootstrap_means(scores[1], 25, 230, 5, chunk=100)  # from the memo
    assert len(resampling._COUNTS_MEMO) == 1
    np.testing.assert_array_equal(first, by_generator)
    np.testing.assert_array_equal(second, resampling.bootstrap_means(scores[1], 25, 230, np.random.default_rng(5),
                                                                     chunk=100))
    assert not np.array_equal(resampling.bootstrap_means(scores, 25, 230, 6, chunk=100), first)  # another seed
    other = resampling.bootstrap_means(scores, 40, 230, 5, chunk=100)  # another size: other counts
    np.testing.assert_array_equal(other, resampling.bootstrap_means(scores, 40, 230, np.random.default_rng(5), chunk=100))


def test_deviation_quantile_memo_draws_what_the_generator_draws():
    from fireeval.stats import resampling

    resampling._COUNTS_MEMO.clear()
    scores = _scores((2, 3, 50))
    gen = np.random.default_rng(4)  # the computation before the memo: bootstrap_means per size, one generator
    want = np.stack([np.quantile(np.abs(resampling.bootstrap_means(scores, n, 2500, gen) - scores.mean(-1, keepdims=True)),
                                 0.95, axis=-1) for n in (20, 50, 80)], axis=-1)
    got = resampling.bootstrap_deviation_quantile(scores, [20, 50, 80], n_resamples=2500, rng=4)
    again = resampling.bootstrap_deviation_quantile(scores[1:, :1], [20, 50, 80], n_resamples=2500, rng=4)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(again, resampling.bootstrap_deviation_quantile(  # the memo's counts, reused
        scores[1:, :1], [20, 50, 80], n_resamples=2500, rng=np.random.default_rng(4)))
    np.testing.assert_array_equal(resampling.bootstrap_deviation_quantile(scores, [20, 50, 80], n_resamples=2500,
                                                                          rng=np.random.default_rng(4)), want)
    # one size from a fresh seed: bootstrap_means' own draws (one memo entry serves both)
    single = resampling.bootstrap_deviation_quantile(scores, [20], n_resamples=2500, rng=4)[..., 0]
    means = resampling.bootstrap_means(scores, 20, 2500, 4)
    np.testing.assert_array_equal(single, np.quantile(np.abs(means - scores.mean(-1, keepdims=True)), 0.95, axis=-1))


def test_float_counts_memo_is_the_generators_counts_and_bounded(monkeypatch):
    """The counts kept as floats (issue 38) are the generator's, stay unwritten, and a key over the budget is not kept."""
    from fireeval.stats import resampling

    resampling._COUNTS_MEMO.clear()
    resampling._FLOAT_MEMO.clear()
    scores = _scores((2, 30))
    want = resampling.bootstrap_means(scores, 30, 300, np.random.default_rng(7), chunk=128)
    for _ in range(3):  # first from the draws, then from the float memo: equal every time
        np.testing.assert_array_equal(resampling.bootstrap_means(scores, 30, 300, 7, chunk=128), want)
    assert len(resampling._FLOAT_MEMO) == 1
    key = next(iter(resampling._FLOAT_MEMO))
    np.testing.assert_array_equal(np.concatenate(resampling._FLOAT_MEMO[key][0]),
                                  np.concatenate([c.astype(float) for c in resampling._COUNTS_MEMO[key][0]]))
    monkeypatch.setattr(resampling, "_FLOAT_MEMO_BYTES", 1000)  # smaller than one key's floats
    resampling._FLOAT_MEMO.clear()
    np.testing.assert_array_equal(resampling.bootstrap_means(scores, 30, 300, 7, chunk=128), want)
    assert not resampling._FLOAT_MEMO


def test_equal_slices_in_one_call_are_computed_once_and_returned_for_each():
    # every seed's sample at rate 1 is the full judgements: one computation serves them all (issue 38)
    reliability._AGREEMENT_MEMO.clear()
    scores, ref = _scores((2, 9, 12)), _scores((9, 12), 1)
    repeated = scores[[0, 1, 0, 0, 1]]
    memo, seen = reliability._SliceMemo(), []

    def compute(missing):
        seen.append(len(missing))
        return missing.sum(-1)

    np.testing.assert_array_equal(memo.get(("k",), repeated, ref, compute), repeated.sum(-1))
    assert seen == [2]
    whole = reliability.bootstrap_agreement(repeated, ref, 120, 3)
    np.testing.assert_array_equal(whole, _direct_bootstrap(repeated, ref, 120, 3))
    np.testing.assert_array_equal(whole[0], whole[3])
