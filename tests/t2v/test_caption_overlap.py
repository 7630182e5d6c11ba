"""Train-test caption overlap (FIRE App. D)."""
import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from fireeval.t2v.caption_overlap import length_correlations, train_test_similarity

TEST = ["a man is cooking", "a dog runs in a park", "people dance", "a man is cooking pasta"]
TRAIN = ["a man is cooking", "a woman cooks", "dogs run", "a cat sleeps", "someone is dancing", "a man cooks pasta"]


def _char_wb_tfidf(docs, vocab_docs, n=(1, 5)):
    """Hand-written char_wb TF-IDF (smooth idf, l2) fitted on ``vocab_docs``: an oracle for sklearn's."""
    def grams(doc):
        out = []
        for word in doc.lower().split():
            w = f" {word} "
            for k in range(n[0], n[1] + 1):
                out.extend(w[i:i + k] for i in range(len(w) - k + 1))
                if len(w) < k:
                    break
        return Counter(out)
    fitted = [grams(d) for d in vocab_docs]
    vocab = sorted(set().union(*fitted))
    df = Counter(g for c in fitted for g in c)
    idf = {g: math.log((1 + len(vocab_docs)) / (1 + df[g])) + 1 for g in vocab}
    rows = []
    for d in docs:
        c = grams(d)
        v = np.array([c.get(g, 0) * idf[g] for g in vocab])
        rows.append(v / np.linalg.norm(v) if np.linalg.norm(v) else v)
    return np.array(rows)


def test_matches_hand_written_tfidf_oracle():
    t = _char_wb_tfidf(TEST, TEST)
    r = _char_wb_tfidf(TRAIN, TEST)
    sims = t @ r.T
    for k in (1, 3):
        expected = np.sort(sims, axis=1)[:, -k:].mean(axis=1)
        got = train_test_similarity(TEST, TRAIN, k=k, chunk=3)
        assert got == pytest.approx(expected, abs=1e-9)


def test_identical_caption_scores_one_and_errors():
    assert train_test_similarity(["a man is cooking"], TRAIN, k=1)[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="nearest train captions"):
        train_test_similarity(TEST, TRAIN[:2], k=3)


def test_length_correlations_against_scipy():
    sim = np.array([0.9, 0.2, 0.5, 0.4])
    out = length_correlations(sim, TEST)
    words = [4, 6, 2, 5]
    assert out["spearman_words"] == pytest.approx(stats.pearsonr(stats.rankdata(sim), stats.rankdata(words))[0])
    assert out["kendall_words"] == pytest.approx(stats.kendalltau(sim, words).statistic)
    assert set(out) == {"spearman_words", "kendall_words", "spearman_chars", "kendall_chars"}
