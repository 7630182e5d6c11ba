"""Semantic similarity between captions: Wray et al.'s (CVPR 2021) four proxies.

Every proxy scores a pair of captions in [0, 1] and is computed here as a whole
matrix ``S[i, j] = S'(captions_a[i], captions_b[j])``:

- ``"bow"`` -- bag of words: IoU of the caption's word sets without stop words.
- ``"pos"`` -- part of speech: 0.5 IoU(verb sets) + 0.5 IoU(noun sets).
- ``"syn"`` -- synsets: as ``"pos"`` but over WordNet synsets chosen by Lesk
  (the word itself when WordNet has no synset for it).
- ``"meteor"`` -- NLTK's METEOR with ``captions_a[i]`` as the *reference* and
  ``captions_b[j]`` as the *hypothesis* (Wray's reference code: rows = videos'
  captions as references, columns = query captions). Not symmetric.

The three set proxies are sparse set-IoU: a caption is a binary row over a shared
vocabulary, ``|A ∩ B| = X Yᵀ`` and ``|A ∪ B| = |A| + |B| - |A ∩ B|`` -- one sparse
product, no Python loop over pairs. METEOR has no such form, so it loops over
pairs (about 5,000-10,000 pairs/s on one core) and can cache its matrix on disk.

Conventions (those of Wray's reference code, mwray/Semantic-Video-Retrieval):

- Stop words: spaCy's English list (``STOP_WORDS``, copied from spaCy 3.8), used
  only by BoW. It contains "put", "take", "make", "move", "show", "top", "front",
  "empty", "full": BoW ignores them; PoS/SYN keep them (their verbs/nouns come from
  a tagger, not from the stop list).
- IoU of two empty sets is 0 (the reference divides by 0.0001). So a caption with
  no noun scores at most 0.5 under PoS/SYN, even against itself.
- Text is lower-cased and split into runs of letters/digits (the reference splits
  on spaces; the captions used here carry almost no punctuation).

Video level (MSR-VTT has 20 captions per video): :func:`video_item_sets` keeps an
item (word, or verb/noun/synset) when it occurs in at least 25 % of the video's
captions; :func:`video_similarity_matrix` then compares those sets with captions.

Scoring a run against these relevances (nDCG, instance-metric bounds, proxy
correlation) lives in :mod:`fireeval.t2v.semantic_evaluation`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from fireeval.core.trec import PATH
from fireeval.core.validation import ANY, ARRAY, STR, Instance, Options, Real, validate_params
from fireeval.t2v.nlp import tokenize
from fireeval.t2v.param_checks import TEXTS

__all__ = [
    "PROXIES",
    "STOP_WORDS",
    "content_words",
    "caption_items",
    "check_captions",
    "set_iou_matrix",
    "set_containment_matrix",
    "set_containment_to",
    "epic_relevance",
    "similarity_matrix",
    "similarity_to",
    "video_item_sets",
    "video_similarity_matrix",
    "query_relevance",
]

PROXIES = ("bow", "pos", "syn", "meteor")
_TAGGER = [Instance(Callable, fix="pass a function caption -> [(word, tag), ...]"), None]
_SETS = Instance(Iterable, fix="pass a list of sets")
_NOUNS = Instance(Iterable, fix="pass each item's noun classes (a list of tuples)")

# spaCy 3.8.18, spacy/lang/en/stop_words.py (MIT licence), the list Wray et al.'s
# reference code takes from `spacy_model.Defaults.stop_words`; pinned here so BoW does
# not depend on spaCy being installed.
_SPACY_STOP_WORDS = """
a about above across after afterwards again against all almost alone along already also although
always am among amongst amount an and another any anyhow anyone anything anyway anywhere are around
as at back be became because become becomes becoming been before beforehand behind being below
beside besides between beyond both bottom but by call can cannot ca could did do does doing done
down due during each eight either eleven else elsewhere empty enough even ever every everyone
everything everywhere except few fifteen fifty first five for former formerly forty four from
front full further get give go had has have he hence her here hereafter hereby herein hereupon
hers herself him himself his how however hundred i if in indeed into is it its itself keep last
latter latterly least less just made make many may me meanwhile might mine more moreover most
mostly move much must my myself name namely neither never nevertheless next nine no nobody none
noone nor not nothing now nowhere of off often on once one only onto or other others otherwise our
ours ourselves out over own part per perhaps please put quite rather re really regarding same say
see seem seemed seeming seems serious several she should show side since six sixty so some somehow
someone something sometime sometimes somewhere still such take ten than that the their them
themselves then thence there thereafter thereby therefore therein thereupon these they third this
those though three through throughout thru thus to together too top toward towards twelve twenty
two under until up unless upon us used using various very via was we well were what whatever when
whence whenever where whereafter whereas whereby wherein whereupon wherever whether which while
whither who whoever whole whom whose why will with within without would yet you your yours
yourself yourselves n't 'd 'll 'm 're 's 've
"""
STOP_WORDS = frozenset(_SPACY_STOP_WORDS.split())



@validate_params(caption=STR, stop_words=TEXTS)
def content_words(caption: str, stop_words: Iterable[str] = STOP_WORDS) -> frozenset[str]:
    """The BoW word set: tokens of ``caption`` that are not stop words.

    Parameters
    ----------
    caption : str
        The caption.
    stop_words : iterable of str
        Words left out.

    Returns
    -------
    frozenset of str

    >>> sorted(content_words("a man is driving a car down the road"))
    ['car', 'driving', 'man', 'road']
    """
    if not isinstance(caption, str):
        return frozenset(w for w in tokenize(caption))  # (unchecked calls) tokenize raises the clear TypeError
    # Cached per (caption, stop list): the same captions are looked up again for every
    # chunk of queries (fire.caption_agreement), 235k calls for 21.6k distinct captions.
    stop = stop_words if isinstance(stop_words, frozenset) else frozenset(stop_words)
    return _content_words_cached(caption, stop)


@lru_cache(maxsize=1 << 17)
def _content_words_cached(caption: str, stop: frozenset) -> frozenset[str]:
    return frozenset(w for w in tokenize.__wrapped__(caption) if w not in stop)  # (unchecked: per distinct caption)


@validate_params(captions=TEXTS, proxy=Options(*PROXIES), stop_words=TEXTS, tagger=_TAGGER)
def caption_items(captions: Sequence[str], proxy: str = "bow", *, stop_words=STOP_WORDS,
                  tagger=None) -> list[tuple[float, list[frozenset]]]:
    """Each caption's item sets per channel: ``[(weight, [set per caption]), ...]``.

    BoW has one channel (content words, weight 1); PoS and SYN have two (verbs and
    nouns, weight 0.5 each; SYN's items are synset names). The proxy score is the
    weighted sum of the channels' IoUs. ``tagger`` (PoS/SYN only) maps a caption to
    ``[(word, tag), ...]`` with tags "VERB"/"NOUN"/other; default
    :func:`fireeval.t2v.nlp.pos_tag`.

    Parameters
    ----------
    captions : sequence of str
        The captions.
    proxy : {"bow", "pos", "syn"}
        The proxy.
    stop_words : iterable of str
        Words left out.
    tagger : callable, optional
        A PoS tagger.

    Returns
    -------
    list of (float, list of frozenset)

    Examples
    --------
    >>> [(weight, [sorted(s) for s in sets]) for weight, sets in caption_items(["a man drives a car"])]
    [(1.0, [['car', 'drives', 'man']])]
    """
    captions = check_captions(captions, "captions")
    if proxy == "bow":
        stop = frozenset(stop_words)
        words = content_words.__wrapped__  # (unchecked: called per caption)
        return [(1.0, [words(c, stop) for c in captions])]
    if proxy in ("pos", "syn"):
        from fireeval.t2v import nlp

        verbs, nouns = nlp.verb_noun_sets(captions, synsets=(proxy == "syn"), tagger=tagger)
        return [(0.5, verbs), (0.5, nouns)]
    if proxy == "meteor":
        raise ValueError("METEOR is not a set proxy: it has no item sets (use similarity_matrix)")
    raise ValueError(f"unknown proxy {proxy!r}; choose one of {PROXIES}")


@validate_params(captions=ANY, name=STR)
def check_captions(captions, name: str = "captions") -> list[str]:
    """``captions`` as a list of strings, or a TypeError naming ``name`` and the first entry that is not one.

    Parameters
    ----------
    captions : iterable
        The captions.
    name : str
        What they are, for the message.

    Returns
    -------
    list of str

    Examples
    --------
    >>> check_captions(("a man", "a car"))
    ['a man', 'a car']
    >>> check_captions(["a man", 3])
    Traceback (most recent call last):
    ...
    TypeError: captions[1] is int (3), expected a caption string
    """
    if isinstance(captions, str):
        raise TypeError(f"{name} must be a sequence of captions, not one string ({captions[:40]!r})")
    captions = list(captions)
    for i, c in enumerate(captions):
        if not isinstance(c, str):
            raise TypeError(f"{name}[{i}] is {type(c).__name__} ({c!r}), expected a caption string")
    return captions


def _binary_rows(sets_a, sets_b):
    """CSR binary matrices of two lists of sets over their shared vocabulary."""
    vocab: dict = {}
    mats = []
    for sets in (sets_a, sets_b):
        lengths = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        indices = np.fromiter((vocab.setdefault(item, len(vocab)) for s in sets for item in s),
                              dtype=np.int64, count=int(indptr[-1]))
        mats.append((indices, indptr))
    n_vocab = max(len(vocab), 1)
    return [sp.csr_matrix((np.ones(len(ind), dtype=np.float32), ind, ptr), shape=(len(ptr) - 1, n_vocab))
            for ind, ptr in mats]


@validate_params(sets_a=_SETS, sets_b=_SETS)
def set_iou_matrix(sets_a: Sequence[Iterable], sets_b: Sequence[Iterable]) -> np.ndarray:
    """Jaccard index (IoU) of every pair of sets, as a dense ``(len(a), len(b))`` array.

    .. math:: \\mathrm{IoU}(A, B) = \\frac{|A \\cap B|}{|A| + |B| - |A \\cap B|},
              \\quad \\mathrm{IoU}(\\emptyset, \\emptyset) = 0

    Computed as one sparse product of binary rows (no loop over pairs).

    Parameters
    ----------
    sets_a, sets_b : sequence of iterables
        The sets.

    Returns
    -------
    ndarray (len(sets_a), len(sets_b))

    >>> set_iou_matrix([{"man", "car"}, set()], [{"car"}, {"man", "car", "road"}, set()])
    array([[0.5       , 0.66666667, 0.        ],
           [0.        , 0.        , 0.        ]])
    """
    sets_a = [s if isinstance(s, (set, frozenset)) else set(s) for s in sets_a]
    sets_b = [s if isinstance(s, (set, frozenset)) else set(s) for s in sets_b]
    xa, xb = _binary_rows(sets_a, sets_b)
    # Counts are small integers, exact in float32 and float64 alike: multiplying in
    # float64 gives the same intersection matrix without a float32 copy to convert.
    xa.data = xa.data.astype(np.float64)
    xb.data = xb.data.astype(np.float64)
    inter = (xa @ xb.T).toarray()
    size_a = np.diff(xa.indptr).astype(np.float64).reshape(-1, 1)   # |A|, (n_a, 1)
    size_b = np.diff(xb.indptr).astype(np.float64).reshape(1, -1)
    return _iou_in_place(inter, size_a, size_b)


def _iou_in_place(inter, size_a, size_b):
    """IoU from the intersection counts ``inter`` (overwritten) and the sets' sizes ``size_a`` (n_a, 1) and
    ``size_b`` (1, n_b), all float64 holding integers."""
    # The union, by blocks of rows in one reused buffer; IoU overwrites `inter` in place.
    # union = 0 only for two empty sets (then inter = 0); integer unions are otherwise
    # >= 1, so max(union, 1) leaves them unchanged and gives IoU(∅, ∅) = 0 / 1 = 0.
    n_a, n_b = inter.shape
    step = max(1, min(n_a, (1 << 17) // max(n_b, 1)))
    buffer = np.empty((step, n_b))
    for start in range(0, n_a, step):
        block = inter[start:start + step]
        union = buffer[:len(block)]
        np.add(size_a[start:start + step], size_b, out=union)
        union -= block
        np.maximum(union, 1.0, out=union)
        np.divide(block, union, out=block)
    return inter


@validate_params(sets_a=_SETS, sets_b=_SETS)
def set_containment_matrix(sets_a: Sequence[Iterable], sets_b: Sequence[Iterable]) -> np.ndarray:
    """Share of each set of ``a`` found in each set of ``b``, as a dense ``(len(a), len(b))`` array.

    .. math:: \\mathrm{C}(A, B) = \\frac{|A \\cap B|}{|A|}, \\quad \\mathrm{C}(\\emptyset, B) = 0

    Parameters
    ----------
    sets_a, sets_b : sequence of iterables
        The sets.

    Returns
    -------
    ndarray (len(sets_a), len(sets_b))

    >>> set_containment_matrix([{"man", "car"}, set()], [{"car"}, {"man", "car", "road"}])
    array([[0.5, 1. ],
           [0. , 0. ]])
    """
    as_set = lambda s: s if isinstance(s, (set, frozenset)) else set(s)  # noqa: E731
    xa, xb = _binary_rows([as_set(s) for s in sets_a], [as_set(s) for s in sets_b])
    inter = (xa @ xb.T).toarray().astype(np.float64)
    size_a = np.asarray(xa.sum(axis=1), dtype=np.float64)
    return np.divide(inter, size_a, out=np.zeros_like(inter), where=size_a > 0)


@validate_params(verbs_a=ARRAY, nouns_a=_NOUNS, verbs_b=[ARRAY, None], nouns_b=[_NOUNS, None])
def epic_relevance(verbs_a, nouns_a, verbs_b=None, nouns_b=None) -> np.ndarray:
    """EPIC-KITCHENS-100's official semantic relevance of every item in ``a`` (rows) with every item in ``b``.

    .. math:: R(a, b) = \\tfrac12 [v_a = v_b] + \\tfrac12 \\mathrm{IoU}(N_a, N_b)

    ``verbs_*``: verb class per item; ``nouns_*``: iterable of noun classes per item.

    Parameters
    ----------
    verbs_a, nouns_a : sequences
        The rows' verb class and noun classes.
    verbs_b, nouns_b : sequences, optional
        The columns' (default: the rows').

    Returns
    -------
    ndarray (len(a), len(b))

    >>> epic_relevance([0, 1], [(2,), (2, 5)], [0], [(5,)])
    array([[0.5 ],
           [0.25]])
    """
    if verbs_b is None:
        verbs_b, nouns_b = verbs_a, nouns_a
    va, vb = np.asarray(verbs_a), np.asarray(verbs_b)
    return 0.5 * (va[:, None] == vb[None, :]) + 0.5 * set_iou_matrix(nouns_a, nouns_b)


def _weighted_iou(channels_a, channels_b, iou=None):
    """The channels' weighted sum of ``iou(sets_a, sets_b)`` (default :func:`set_iou_matrix`)."""
    out = None
    for (w, sa), (_, sb) in zip(channels_a, channels_b):
        part = (iou or set_iou_matrix)(sa, sb)
        part *= w  # in place: the same products and sums as `w * iou` and `out + part`
        if out is None:
            out = part
        else:
            out += part
    return out


@validate_params(captions_a=TEXTS, captions_b=TEXTS, proxy=Options(*PROXIES), stop_words=TEXTS, tagger=_TAGGER,
                 cache_dir=[PATH, None])
def similarity_matrix(captions_a: Sequence[str], captions_b: Sequence[str], proxy: str = "bow", *,
                      stop_words=STOP_WORDS, tagger=None, cache_dir=None) -> np.ndarray:
    """Proxy similarity of every caption in ``captions_a`` with every caption in ``captions_b``.

    Parameters
    ----------
    captions_a, captions_b : sequences of str
        Rows and columns. For METEOR, ``captions_a`` are the references.
    proxy : {"bow", "pos", "syn", "meteor"}
        See the module docstring for definitions and conventions.
    stop_words : iterable of str
        BoW's stop list (default: spaCy's English list, as in Wray's reference code).
    tagger : callable, optional
        PoS/SYN tagger ``caption -> [(word, tag), ...]`` (default :func:`fireeval.t2v.nlp.pos_tag`).
    cache_dir : path, optional
        METEOR only: folder (named by the user) where the matrix is cached, keyed by
        a hash of both caption lists and the NLTK version.

    Returns
    -------
    ndarray of shape (len(captions_a), len(captions_b)), values in [0, 1].
    BoW/PoS/SYN are symmetric: ``similarity_matrix(a, b).T == similarity_matrix(b, a)``.

    >>> similarity_matrix(["a man drives a car", "a dog runs"], ["the man drives", ""])
    array([[0.66666667, 0.        ],
           [0.        , 0.        ]])
    """
    captions_a = check_captions(captions_a, "captions_a")
    captions_b = check_captions(captions_b, "captions_b")
    if proxy == "meteor":
        from fireeval.t2v import nlp

        return nlp.meteor_matrix(captions_a, captions_b, cache_dir=cache_dir)
    # Items of both sides in one pass so a tagger/Lesk runs once per distinct caption.
    distinct = list(dict.fromkeys(captions_a + captions_b))
    where = {c: i for i, c in enumerate(distinct)}
    channels = caption_items(distinct, proxy, stop_words=stop_words, tagger=tagger)
    ia = [where[c] for c in captions_a]
    ib = [where[c] for c in captions_b]
    ch_a = [(w, [sets[i] for i in ia]) for w, sets in channels]
    ch_b = [(w, [sets[i] for i in ib]) for w, sets in channels]
    return _weighted_iou(ch_a, ch_b)


class _ColumnSets:
    """Lists of sets (one list per channel) as the columns of :func:`set_iou_matrix`, encoded once: their
    vocabulary, sizes and binary (vocabulary x sets) rows, against which any rows' sets are compared."""

    def __init__(self, sets_b):
        self.vocab: dict = {}
        lengths = np.fromiter((len(s) for s in sets_b), dtype=np.int64, count=len(sets_b))
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        indices = np.fromiter((self.vocab.setdefault(item, len(self.vocab)) for s in sets_b for item in s),
                              dtype=np.int64, count=int(indptr[-1]))
        xb = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(sets_b), max(len(self.vocab), 1)))
        self.xb_t = xb.T.tocsr()  # (vocabulary, n_b): the product's right side, converted once
        self.size_b = lengths.astype(np.float64).reshape(1, -1)

    def _intersections(self, sets_a):
        """``(|A ∩ B| for every pair, |A| per row)``, float64 integers; an item of ``a`` outside ``b``'s vocabulary
        meets no set of ``b`` and counts in ``|A|`` alone."""
        sets_a = [s if isinstance(s, (set, frozenset)) else set(s) for s in sets_a]
        vocab = self.vocab
        size_a = np.fromiter((len(s) for s in sets_a), dtype=np.float64, count=len(sets_a)).reshape(-1, 1)
        cols = [[c for c in map(vocab.get, s) if c is not None] for s in sets_a]
        indptr = np.concatenate([[0], np.cumsum([len(c) for c in cols], dtype=np.int64)])
        indices = np.fromiter((c for row in cols for c in row), dtype=np.int64, count=int(indptr[-1]))
        xa = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(sets_a), self.xb_t.shape[0]))
        return (xa @ self.xb_t).toarray(), size_a

    def iou(self, sets_a) -> np.ndarray:
        """``set_iou_matrix(sets_a, sets_b)``, bit for bit: intersections and sizes are the same integers."""
        inter, size_a = self._intersections(sets_a)
        return _iou_in_place(inter, size_a, self.size_b)

    def containment(self, sets_a) -> np.ndarray:
        """``set_containment_matrix(sets_a, sets_b)``, bit for bit: the same integers, divided alike."""
        inter, size_a = self._intersections(sets_a)
        return np.divide(inter, size_a, out=np.zeros_like(inter), where=size_a > 0)


@validate_params(sets_b=_SETS)
def set_containment_to(sets_b: Sequence[Iterable]) -> Callable[[Sequence[Iterable]], np.ndarray]:
    """``sets_a -> set_containment_matrix(sets_a, sets_b)``, the same numbers bit for bit, with ``sets_b``'s
    vocabulary and binary rows made once (for many blocks of rows against the same columns).

    Parameters
    ----------
    sets_b : sequence of iterables
        The columns' sets.

    Returns
    -------
    callable
        ``sets_a -> ndarray (len(sets_a), len(sets_b))``.

    Examples
    --------
    >>> set_containment_to([{"car"}, {"man", "car", "road"}])([{"man", "car"}, set()])
    array([[0.5, 1. ],
           [0. , 0. ]])
    """
    return _ColumnSets([s if isinstance(s, (set, frozenset)) else set(s) for s in sets_b]).containment


@validate_params(captions_b=TEXTS, proxy=Options("bow", "pos", "syn"), stop_words=TEXTS, tagger=_TAGGER)
def similarity_to(captions_b: Sequence[str], proxy: str = "bow", *, stop_words=STOP_WORDS,
                  tagger=None) -> Callable[[Sequence[str]], np.ndarray]:
    """``captions_a -> similarity_matrix(captions_a, captions_b, proxy)``, the same numbers bit for bit, with
    ``captions_b``'s item sets and binary rows made once: for many blocks of rows against the same columns
    (:func:`fireeval.t2v.false_negatives.caption_agreement` compares blocks of queries with every caption).

    Parameters
    ----------
    captions_b : sequence of str
        The columns.
    proxy : {"bow", "pos", "syn"}
        A set proxy.
    stop_words, tagger
        As :func:`similarity_matrix`.

    Returns
    -------
    callable
        ``captions_a -> ndarray (len(captions_a), len(captions_b))``.

    Examples
    --------
    >>> to_b = similarity_to(["the man drives", ""])
    >>> to_b(["a man drives a car", "a dog runs"])
    array([[0.66666667, 0.        ],
           [0.        , 0.        ]])
    """
    captions_b = check_captions(captions_b, "captions_b")
    items = caption_items.__wrapped__  # (unchecked: the captions are checked here and in each call)
    distinct = list(dict.fromkeys(captions_b))
    where = {c: i for i, c in enumerate(distinct)}
    ib = [where[c] for c in captions_b]
    columns = [(w, _ColumnSets([sets[i] for i in ib])) for w, sets in
               items(distinct, proxy, stop_words=stop_words, tagger=tagger)]

    def rows(captions_a: Sequence[str]) -> np.ndarray:
        captions_a = check_captions.__wrapped__(captions_a, "captions_a")
        return _weighted_iou(items(captions_a, proxy, stop_words=stop_words, tagger=tagger), columns,
                             lambda sets_a, cols: cols.iou(sets_a))

    return rows


def _frequent_items(sets: Sequence[frozenset], min_fraction: float) -> frozenset:
    if not sets:
        return frozenset()
    counts: dict = {}
    for s in sets:
        for item in s:
            counts[item] = counts.get(item, 0) + 1
    need = min_fraction * len(sets)
    return frozenset(item for item, n in counts.items() if n >= need - 1e-9)


@validate_params(video_captions=TEXTS, proxy=Options(*PROXIES), min_fraction=Real(0, 1, closed="right"),
                 stop_words=TEXTS, tagger=_TAGGER)
def video_item_sets(video_captions: Sequence[Sequence[str]], proxy: str = "bow", *, min_fraction: float = 0.25,
                    stop_words=STOP_WORDS, tagger=None) -> list[tuple[float, list[frozenset]]]:
    """Video-level item sets: items in at least ``min_fraction`` of a video's captions.

    Wray et al. (Sec. 5, MSR-VTT): "we only include words which are present in 25 % or
    more of all of the captions for a given video (excluding stop words)". Applied per
    channel (BoW words; PoS/SYN verbs and nouns). Returns the same structure as
    :func:`caption_items`, one set per video.

    Parameters
    ----------
    video_captions : sequence of sequence of str
        Each video's captions.
    proxy : {"bow", "pos", "syn"}
        The proxy.
    min_fraction : float
        The least share of captions an item must appear in.
    stop_words, tagger
        As :func:`caption_items`.

    Returns
    -------
    list of (float, list of frozenset)

    >>> [(w, [sorted(s) for s in sets]) for w, sets in video_item_sets(
    ...     [["a man drives a car", "a man in a car", "a woman sings", "a car", "a dog"]])]
    [(1.0, [['car', 'man']])]
    """
    check = check_captions.__wrapped__  # (unchecked: called per video)
    video_captions = [check(caps, f"video_captions[{v}]") for v, caps in enumerate(video_captions)]
    flat = [c for caps in video_captions for c in caps]
    distinct = list(dict.fromkeys(flat))
    where = {c: i for i, c in enumerate(distinct)}
    channels = caption_items(distinct, proxy, stop_words=stop_words, tagger=tagger)
    out = []
    for w, sets in channels:
        out.append((w, [_frequent_items([sets[where[c]] for c in caps], min_fraction) for caps in video_captions]))
    return out


@validate_params(video_captions=TEXTS, query_captions=TEXTS, proxy=Options(*PROXIES))
def query_relevance(video_captions, query_captions, proxy: str = "bow", **kwargs) -> np.ndarray:
    """Wray's Eq. 10 for text-to-video retrieval: ``R[q, v] = 1`` if ``v`` is query ``q``'s video, else
    the proxy similarity of video ``v`` (its captions) with caption ``q``. Shape (queries, videos).

    Query ``q``'s own video is video ``q`` (as in MSR-VTT 1k-A); keyword arguments go to
    :func:`video_similarity_matrix`.

    Parameters
    ----------
    video_captions : sequence of sequence of str
        Each video's captions.
    query_captions : sequence of str
        One query per video.
    proxy : str
        The proxy.
    **kwargs
        Options of :func:`video_similarity_matrix`.

    Returns
    -------
    ndarray (queries, videos)

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a dog runs"]]
    >>> query_relevance(captions, ["a man in a red car", "a man runs"])
    array([[1.  , 0.  ],
           [0.25, 1.  ]])
    """
    rel = video_similarity_matrix(video_captions, query_captions, proxy, **kwargs).T.copy()
    n = min(rel.shape)
    rel[np.arange(n), np.arange(n)] = 1.0
    return rel


@validate_params(video_captions=TEXTS, captions=TEXTS, proxy=Options(*PROXIES), min_fraction=Real(0, 1,
                 closed="right"), stop_words=TEXTS, tagger=_TAGGER, cache_dir=[PATH, None])
def video_similarity_matrix(video_captions: Sequence[Sequence[str]], captions: Sequence[str], proxy: str = "bow",
                            *, min_fraction: float = 0.25, stop_words=STOP_WORDS, tagger=None,
                            cache_dir=None) -> np.ndarray:
    """Similarity of every video (rows, given by its captions) with every caption (columns).

    Set proxies compare the video's frequent-item sets (:func:`video_item_sets`) with
    each caption's sets. METEOR has no item sets: a video scores a caption by the mean
    over the video's captions (as references) of METEOR against the caption -- the
    non-Mercer match kernel (Lyu 2005) with one caption on one side reduces to
    ``0.5 * (mean_r M(r, c) + max_r M(r, c))``, which is what is returned.

    Wray's Eq. 10 sets ``S(video_i, caption_i) = 1`` for the video's own caption; that
    is the caller's choice (see the chapter) and is not applied here.

    Parameters
    ----------
    video_captions : sequence of sequence of str
        Each video's captions.
    captions : sequence of str
        The captions compared with.
    proxy : {"bow", "pos", "syn", "meteor"}
        The proxy.
    min_fraction, stop_words, tagger
        As :func:`video_item_sets`.
    cache_dir : path-like, optional
        Where METEOR's scores are cached.

    Returns
    -------
    ndarray (videos, captions)

    Examples
    --------
    >>> video_similarity_matrix([["a man drives a car", "a man in a car"]], ["a man in a car", "a woman"])
    array([[0.66666667, 0.        ]])
    """
    captions = check_captions(captions, "captions")
    if proxy == "meteor":
        from fireeval.t2v import nlp

        flat = [c for caps in video_captions for c in caps]
        owner = np.repeat(np.arange(len(video_captions)), [len(c) for c in video_captions])
        m = nlp.meteor_matrix(flat, captions, cache_dir=cache_dir)
        sums = np.zeros((len(video_captions), len(captions)))
        np.add.at(sums, owner, m)
        counts = np.bincount(owner, minlength=len(video_captions)).reshape(-1, 1)
        mean = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
        best = np.zeros_like(sums)
        np.maximum.at(best, owner, m)
        return 0.5 * (mean + best)
    vid = video_item_sets(video_captions, proxy, min_fraction=min_fraction, stop_words=stop_words, tagger=tagger)
    cap = caption_items(captions, proxy, stop_words=stop_words, tagger=tagger)
    return _weighted_iou(vid, cap)
