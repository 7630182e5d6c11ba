"""The semantic chapter's sped-up functions give bit-identical results to their previous versions.

Each ``_old_*`` below is a verbatim copy of the implementation before the speed-up
(issue 13); every comparison is exact (``np.array_equal`` / ``==``), not approximate.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from fireeval.t2v import semantic_evaluation as se
from fireeval.t2v import similarity as sim
from fireeval.t2v.nlp import tokenize


# ------------------------------------------------------------------ previous implementations
def _old_content_words(caption, stop_words=sim.STOP_WORDS):
    stop = stop_words if isinstance(stop_words, (set, frozenset)) else frozenset(stop_words)
    return frozenset(w for w in tokenize(caption) if w not in stop)


def _old_set_iou_matrix(sets_a, sets_b):
    sets_a = [s if isinstance(s, (set, frozenset)) else set(s) for s in sets_a]
    sets_b = [s if isinstance(s, (set, frozenset)) else set(s) for s in sets_b]
    xa, xb = sim._binary_rows(sets_a, sets_b)
    inter = (xa @ xb.T).toarray().astype(np.float64)
    size_a = np.asarray(xa.sum(axis=1), dtype=np.float64)
    size_b = np.asarray(xb.sum(axis=1), dtype=np.float64).reshape(1, -1)
    union = size_a + size_b - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def _old_rowwise_pearson(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(axis=1) / den, np.nan)


def _old_proxy_correlation(relevance):
    names = list(relevance)
    out = {a: {} for a in names}
    for i, a in enumerate(names):
        for b in names[i:]:
            ma, mb = np.asarray(relevance[a], float), np.asarray(relevance[b], float)
            rows = ~(np.isnan(ma).any(axis=1) | np.isnan(mb).any(axis=1))
            r = float(np.nanmean(_old_rowwise_pearson(ma[rows], mb[rows]))) if rows.any() else float("nan")
            out[a][b] = out[b][a] = r
    return out


def _same_dict(new, old):
    assert new.keys() == old.keys()
    for a in old:
        assert new[a].keys() == old[a].keys()
        for b in old[a]:
            x, y = new[a][b], old[a][b]
            assert (x == y) or (np.isnan(x) and np.isnan(y)), (a, b, x, y)


def _random_sets(rng, n, vocab=30, max_size=6):
    return [frozenset(rng.choice(vocab, size=rng.integers(0, max_size + 1), replace=False).tolist()) for _ in range(n)]


# ------------------------------------------------------------------ random inputs
@pytest.mark.parametrize("seed", range(8))
def test_set_iou_matrix_identical_on_random_sets(seed):
    rng = np.random.default_rng(seed)
    a, b = _random_sets(rng, rng.integers(0, 40)), _random_sets(rng, rng.integers(1, 40))
    new, old = sim.set_iou_matrix(a, b), _old_set_iou_matrix(a, b)
    assert new.dtype == old.dtype and new.shape == old.shape
    assert np.array_equal(new, old)
    assert not np.signbit(new).any()  # IoU(∅, ∅) is +0.0 as before


def test_set_iou_matrix_accepts_lists_and_empty_inputs():
    for a, b in [([["x", "y"], []], [("y",), []]), ([], [{"a"}]), ([set()], [set()])]:
        assert np.array_equal(sim.set_iou_matrix(a, b), _old_set_iou_matrix(a, b))


@pytest.mark.parametrize("seed", range(6))
def test_rowwise_pearson_identical_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 300)), int(rng.integers(1, 3000))
    a = rng.random((n, m))
    b = np.round(rng.random((n, m)), int(rng.integers(0, 3)))  # ties and constant rows
    b[0] = 0.5
    new, old = se.rowwise_pearson(a, b), _old_rowwise_pearson(a, b)
    assert np.array_equal(new, old, equal_nan=True)


def test_rowwise_pearson_keeps_broadcasting_of_other_shapes():
    a, b = np.arange(6.0).reshape(2, 3), np.array([[1.0, 0.0, 2.0]])
    assert np.array_equal(se.rowwise_pearson(a, b), _old_rowwise_pearson(a, b), equal_nan=True)


@pytest.mark.parametrize("seed", range(4))
def test_proxy_correlation_identical_on_random_matrices_with_nan_rows(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    mats = {p: np.round(rng.random((n, n)), d) for p, d in zip("abcd", (3, 1, 2, 0))}
    mats["c"][rng.random(n) < 0.5] = np.nan  # a sampled proxy (METEOR rows)
    mats["d"][:] = np.nan                     # a proxy with no rows at all
    _same_dict(se.proxy_correlation(mats), _old_proxy_correlation(mats))


# ------------------------------------------------------------------ real data
@pytest.fixture(scope="module")
def epic_sample():
    from conftest import require_data

    from fireeval.datasets import epic

    require_data(epic.CLIPS, epic.SENTENCES)
    return epic.load_captions().iloc[:800]


def test_content_words_identical_on_real_captions(epic_sample):
    from fireeval.datasets import msrvtt

    captions = list(epic_sample["narration"])
    try:
        captions += list(msrvtt.load_queries()["sentence"])[:500]
    except Exception:
        pass
    for stop in (sim.STOP_WORDS, ("a", "an", "the"), {"the"}):
        for c in captions + captions[:50]:  # second look-ups come from the cache
            assert sim.content_words(c, stop) == _old_content_words(c, stop)
    with pytest.raises(TypeError):
        sim.content_words(3)


def test_set_iou_and_correlation_identical_on_real_epic(epic_sample):
    captions = list(epic_sample["narration"])
    official = sim.epic_relevance(epic_sample["verb_class"], epic_sample["noun_classes"])
    nouns = list(epic_sample["noun_classes"])
    assert np.array_equal(sim.set_iou_matrix(nouns, nouns), _old_set_iou_matrix(nouns, nouns))
    words = [_old_content_words(c) for c in captions]
    bow = sim.set_iou_matrix(words, words)
    assert np.array_equal(bow, _old_set_iou_matrix(words, words))
    meteor_like = np.full_like(bow, np.nan)
    rows = np.random.default_rng(0).choice(len(captions), 100, replace=False)
    meteor_like[rows] = np.sqrt(bow[rows])
    mats = {"official": official, "bow": bow, "meteor": meteor_like}
    _same_dict(se.proxy_correlation(mats), _old_proxy_correlation(mats))
    assert np.array_equal(se.rowwise_pearson(official, bow), _old_rowwise_pearson(official, bow), equal_nan=True)


def test_binary_rows_unchanged_for_other_callers():
    xa, _ = sim._binary_rows([{"a"}], [{"b"}])
    assert sp.issparse(xa) and xa.dtype == np.float32


def _old_aggregate(grid, aggregate):
    if aggregate == "mean":
        return np.nanmean(grid, axis=-1)
    filled = np.where(np.isnan(grid), -np.inf, grid)
    ordered = -np.sort(-filled, axis=-1)
    k = 0 if aggregate == "max" else 1
    value = ordered[..., min(k, ordered.shape[-1] - 1)]
    return np.where(np.isfinite(value), value, 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_aggregate_identical_on_random_grids(seed):
    from fireeval.t2v import false_negatives as fire

    rng = np.random.default_rng(seed)
    for width in (1, 2, 3, 20):
        grid = np.round(rng.random((30, 17, width)), int(rng.integers(0, 3)))
        grid[rng.random(grid.shape) < 0.3] = np.nan
        grid[0, 0] = np.nan
        grid[1, 1, 0] = np.inf
        for agg in ("max", "quorum2", "mean"):
            with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore")
                assert np.array_equal(fire._aggregate(grid, agg), _old_aggregate(grid, agg), equal_nan=True)


def test_caption_agreement_identical_on_real_msrvtt_sample(monkeypatch):
    from conftest import require_data

    from fireeval.datasets import msrvtt
    from fireeval.t2v import false_negatives as fire

    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"])
    queries = list(msrvtt.load_queries()["sentence"])[:60]
    videos = msrvtt.load_video_captions_1ka()[:80]

    def old_similarity(a, b):  # the previous BoW path: old content words and old IoU
        return _old_set_iou_matrix([_old_content_words(c) for c in a], [_old_content_words(c) for c in b])

    for agg in ("max", "quorum2", "mean"):
        new = fire.caption_agreement(queries, videos, "bow", agg, own_video=range(60), chunk=25)
        with monkeypatch.context() as m:
            m.setattr(fire, "_aggregate", _old_aggregate)
            old = fire.caption_agreement(queries, videos, "bow", agg, own_video=range(60), chunk=25,
                                         similarity=old_similarity)
        assert np.array_equal(new, old)
        assert (new > 0).mean() > 0.05


def _old_expected_random_ndcg(relevance, gain="linear", cut="relevant"):
    rel = np.asarray(relevance, dtype=float)
    g = rel if gain == "linear" else np.exp2(rel) - 1
    n_items = rel.shape[1]
    discount = 1.0 / np.log2(np.arange(2, n_items + 2))
    depth = (rel > 0).sum(axis=1) if cut == "relevant" else np.full(rel.shape[0], n_items)
    cumulative = np.concatenate([[0.0], np.cumsum(discount)])
    expected_dcg = g.mean(axis=1) * cumulative[depth]
    ideal = -np.sort(-g, axis=1) * (np.arange(n_items)[None, :] < depth[:, None])
    idcg = ideal @ discount
    return np.divide(expected_dcg, idcg, out=np.zeros_like(expected_dcg), where=idcg > 0)


def _check_expected_random_ndcg(r):
    before = r.copy()
    for gain in ("linear", "exponential"):
        for cut in ("relevant", None):
            assert np.array_equal(se.expected_random_ndcg(r, gain, cut), _old_expected_random_ndcg(r, gain, cut))
    assert np.array_equal(r, before)  # the input is not modified


@pytest.mark.parametrize("seed", range(4))
def test_expected_random_ndcg_identical_on_random_relevance(seed):
    rng = np.random.default_rng(seed)
    rel = np.round(rng.random((int(rng.integers(1, 200)), int(rng.integers(1, 2000)))) ** 3, 2)
    rel[0] = 0.0
    _check_expected_random_ndcg(rel)


def test_expected_random_ndcg_identical_on_real_epic(epic_sample):
    _check_expected_random_ndcg(sim.epic_relevance(epic_sample["verb_class"], epic_sample["noun_classes"]))
