"""Train-test caption overlap (FIRE App. D, Table 7, Fig. 8).

For each test caption: the mean cosine similarity of its ``k`` most similar train
captions under a character n-gram TF-IDF fitted on the *test* captions (FIRE: "fit a
5-gram character TF-IDF encoder to the test captions"). FIRE's code
(``mmr/matcher.py`` ``CharacterNGramMatcher``) uses scikit-learn's ``char_wb``
analyser with n-grams of length 1 to 5, lower-cased, l2-normalised rows -- the
default here. Then Spearman and Kendall correlation with caption length.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats
from sklearn.feature_extraction.text import TfidfVectorizer

from fireeval.core.validation import ARRAY, Instance, Int, Options, validate_params
from fireeval.t2v.param_checks import TEXTS

__all__ = ["train_test_similarity", "length_correlations"]


@validate_params(test_captions=TEXTS, train_captions=TEXTS, k=Int(1), analyzer=Options("word", "char", "char_wb"),
                 ngram_range=Instance(tuple, fix="pass (min_n, max_n)"), chunk=Int(1))
def train_test_similarity(test_captions: Sequence[str], train_captions: Sequence[str], k: int = 10,
                          analyzer: str = "char_wb", ngram_range: tuple[int, int] = (1, 5),
                          chunk: int = 250) -> np.ndarray:
    """Mean cosine similarity of each test caption's ``k`` nearest train captions: shape (n_test,).

    .. math:: o(t) = \\frac{1}{k} \\sum_{c \\in \\mathrm{top}_k(t)} \\cos(\\phi(t), \\phi(c))

    with phi the TF-IDF vector (vocabulary and idf from the test captions only, as in
    FIRE; n-grams seen only in train captions are dropped). Computed as a sparse
    product in chunks of test captions, top-k by ``np.partition``.

    Parameters
    ----------
    test_captions, train_captions : sequence of str
        The captions.
    k : int
        Nearest train captions averaged.
    analyzer, ngram_range
        scikit-learn's ``TfidfVectorizer`` options.
    chunk : int
        Test captions per sparse product.

    Returns
    -------
    ndarray (n_test,)

    >>> s = train_test_similarity(["a man runs", "a cat"], ["a man runs", "a dog", "a man walks"], k=1)
    >>> round(float(s[0]), 6)
    1.0
    """
    test_captions, train_captions = list(test_captions), list(train_captions)
    if len(train_captions) < k:
        raise ValueError(f"k = {k} nearest train captions requested but only {len(train_captions)} given")
    vectorizer = TfidfVectorizer(analyzer=analyzer, ngram_range=tuple(ngram_range), lowercase=True)
    test = vectorizer.fit_transform(test_captions)
    train = vectorizer.transform(train_captions).T.tocsc()
    out = np.empty(len(test_captions))
    for start in range(0, len(test_captions), chunk):
        sims = (test[start:start + chunk] @ train).toarray()
        top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
        out[start:start + chunk] = top.mean(axis=1)
    return out


@validate_params(similarity=ARRAY, captions=TEXTS)
def length_correlations(similarity, captions: Sequence[str]) -> dict:
    """Spearman and Kendall (tau-b) correlation of ``similarity`` with caption length.

    Length in words (whitespace tokens) and in characters (stripped caption). Keys:
    ``spearman_words``, ``kendall_words``, ``spearman_chars``, ``kendall_chars``.

    Parameters
    ----------
    similarity : array_like (n_captions,)
        A value per caption.
    captions : sequence of str
        The captions.

    Returns
    -------
    dict
        The four correlations.

    Examples
    --------
    >>> length_correlations([0.1, 0.5, 0.9], ["a man", "a man runs fast", "a man runs very fast"])
    {'spearman_words': 1.0, 'kendall_words': 1.0, 'spearman_chars': 1.0, 'kendall_chars': 1.0}
    """
    words = np.array([len(c.split()) for c in captions])
    chars = np.array([len(c.strip()) for c in captions])
    out = {}
    for name, length in (("words", words), ("chars", chars)):
        out[f"spearman_{name}"] = float(stats.spearmanr(similarity, length).statistic)
        out[f"kendall_{name}"] = float(stats.kendalltau(similarity, length, variant="b").statistic)
    return out
