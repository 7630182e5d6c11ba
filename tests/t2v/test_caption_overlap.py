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


def _sklearn_train_test_similarity(test_captions, train_captions, k, analyzer, ngram_range, chunk=2):
    """The computation before issue 38: scikit-learn's TfidfVectorizer on every train caption."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(analyzer=analyzer, ngram_range=tuple(ngram_range), lowercase=True)
    test = vectorizer.fit_transform(list(test_captions))
    train = vectorizer.transform(list(train_captions)).T.tocsc()
    out = np.empty(len(test_captions))
    for start in range(0, len(test_captions), chunk):
        sims = (test[start:start + chunk] @ train).toarray()
        out[start:start + chunk] = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:].mean(axis=1)
    return out


ODD = ["A  man\tis COOKING ", "x", "ab", "a b c d e f", "Ünïcode ΟΔΟΣ words", "", "  ", "a man is cooking",
       "a man is cooking", "people dance", "supercalifragilistic word"]


@pytest.mark.parametrize("analyzer,ngram_range", [("char_wb", (1, 5)), ("char", (5, 5)), ("char_wb", (3, 4)),
                                                  ("char_wb", (4, 6)), ("char", (1, 3))])
def test_bit_for_bit_the_sklearn_computation(analyzer, ngram_range):
    """char_wb counted once per distinct word: not one bit differs from scikit-learn's own transform (issue 38)."""
    test = TEST + ODD[:5]
    train = TRAIN + ODD + TRAIN[:3]
    for k in (1, 3):
        got = train_test_similarity(test, train, k=k, analyzer=analyzer, ngram_range=ngram_range, chunk=3)
        assert got.tobytes() == _sklearn_train_test_similarity(test, train, k, analyzer, ngram_range).tobytes()


@pytest.mark.parametrize("ngram_range", [(1, 5), (2, 2), (4, 7)])
def test_char_wb_counts_equal_count_vectorizer(ngram_range):
    from sklearn.feature_extraction.text import CountVectorizer

    from fireeval.t2v.caption_overlap import char_wb_counts

    cv = CountVectorizer(analyzer="char_wb", ngram_range=ngram_range, dtype=np.float64).fit(TEST + ODD[:4])
    docs = (TRAIN + ODD) * 400  # more than one block of 4,096 documents
    mine, theirs = char_wb_counts(docs, cv.vocabulary_, ngram_range), cv.transform(docs)
    assert mine.shape == theirs.shape
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(mine, part), getattr(theirs, part)), part
    assert mine.dtype == theirs.dtype
