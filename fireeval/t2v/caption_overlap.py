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

from fireeval.core.validation import ARRAY, Instance, Int, Options, validate_params
from fireeval.t2v.param_checks import TEXTS

__all__ = ["train_test_similarity", "char_wb_counts", "length_correlations"]


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

    The same numbers, bit for bit, as scikit-learn's ``TfidfVectorizer(...).fit(test)``
    applied to the train captions; for ``char_wb`` each distinct word's n-grams are
    counted once (:func:`char_wb_counts`, 6x faster on MSR-VTT's 49,740 captions): the
    counts are integers, so summing them per word changes no bit, and the TF-IDF weighting
    is scikit-learn's own.

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
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    test_captions, train_captions = list(test_captions), list(train_captions)
    if len(train_captions) < k:
        raise ValueError(f"k = {k} nearest train captions requested but only {len(train_captions)} given")
    # TfidfVectorizer is CountVectorizer (float64 counts) followed by TfidfTransformer: the same two steps here
    counter = CountVectorizer(analyzer=analyzer, ngram_range=tuple(ngram_range), lowercase=True, dtype=np.float64)
    test_counts = counter.fit_transform(test_captions)
    weighting = TfidfTransformer().fit(test_counts)
    test = weighting.transform(test_counts, copy=False)
    train_counts = (char_wb_counts(train_captions, counter.vocabulary_, ngram_range) if analyzer == "char_wb"
                    else counter.transform(train_captions))
    # the product's right side as CSR, converted once (a CSC one is converted again for every chunk's product)
    train = weighting.transform(train_counts, copy=False).T.tocsr()
    out = np.empty(len(test_captions))
    for start in range(0, len(test_captions), chunk):
        sims = (test[start:start + chunk] @ train).toarray()
        top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
        out[start:start + chunk] = top.mean(axis=1)
    return out


def _char_wb_grams(word: str, min_n: int, max_n: int) -> list[str]:
    """scikit-learn's ``char_wb`` n-grams of one (lower-cased) word, padded with a space each side, in its order."""
    w = f" {word} "
    grams = []
    for n in range(min_n, max_n + 1):
        grams.extend(w[i:i + n] for i in range(max(len(w) - n + 1, 1)))
        if len(w) <= n:  # the whole padded word was this n's only n-gram: scikit-learn stops here
            break
    return grams


@validate_params(docs=TEXTS, vocabulary=Instance(dict, fix="pass a fitted vectorizer's vocabulary_ (n-gram -> column)"),
                 ngram_range=Instance(tuple, fix="pass (min_n, max_n)"))
def char_wb_counts(docs: Sequence[str], vocabulary: dict, ngram_range: tuple[int, int] = (1, 5)):
    """``CountVectorizer(analyzer="char_wb", ngram_range=..., lowercase=True, dtype=float64,
    vocabulary=vocabulary).transform(docs)``, bit for bit, with each distinct word's n-grams counted once.

    A document's ``char_wb`` n-grams are its words' (lower-cased, split on white space) n-grams
    put together, so its counts are the sum of its words' counts: (documents x words) @
    (words x n-grams), integers in float64, indices sorted as scikit-learn sorts them.

    Parameters
    ----------
    docs : sequence of str
        The documents.
    vocabulary : dict
        n-gram -> column (a fitted vectorizer's ``vocabulary_``); other n-grams are dropped.
    ngram_range : (int, int)
        The n-gram lengths.

    Returns
    -------
    scipy.sparse.csr_matrix (n_docs, len(vocabulary)) of float64

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> cv = CountVectorizer(analyzer="char_wb", ngram_range=(1, 3)).fit(["a man", "a dog"])
    >>> (char_wb_counts(["A man, a plan"], cv.vocabulary_, (1, 3)) != cv.transform(["A man, a plan"])).nnz
    0
    """
    import scipy.sparse as sp

    min_n, max_n = (int(n) for n in ngram_range)
    word_ids: dict[str, int] = {}
    doc_rows, doc_words = [], []
    for d, doc in enumerate(docs):
        for word in doc.lower().split():
            doc_rows.append(d)
            doc_words.append(word_ids.setdefault(word, len(word_ids)))
    gram_rows, gram_cols = [], []
    for word, i in word_ids.items():
        cols = [c for c in map(vocabulary.get, _char_wb_grams(word, min_n, max_n)) if c is not None]
        gram_rows.extend([i] * len(cols))
        gram_cols.extend(cols)
    shape_words = (len(word_ids), len(vocabulary))
    by_word = sp.csr_array((np.ones(len(gram_cols)), (np.asarray(gram_rows, dtype=np.int64),
                                                       np.asarray(gram_cols, dtype=np.int64))), shape=shape_words)
    by_doc = sp.csr_array((np.ones(len(doc_words)), (np.asarray(doc_rows, dtype=np.int64),
                                                      np.asarray(doc_words, dtype=np.int64))),
                          shape=(len(docs), len(word_ids)))
    # in blocks of documents: scipy sizes a product by its upper bound on non-zeros (every word's n-grams), which
    # for MSR-VTT's 49,740 captions at once is 11x the 6.8 million it holds
    counts = sp.vstack([by_doc[lo:lo + 4096] @ by_word for lo in range(0, len(docs), 4096)] or [by_doc @ by_word],
                       format="csr")
    counts.sum_duplicates()  # sorted indices, no explicit zeros: scikit-learn's layout
    counts.indices, counts.indptr = counts.indices.astype(np.int32), counts.indptr.astype(np.int32)
    # scikit-learn's own type: a csr_matrix (with scikit-learn 1.3, TfidfTransformer multiplies by its idf with
    # ``*``, which on a csr_array is element by element: "inconsistent shapes")
    return sp.csr_matrix(counts)


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
