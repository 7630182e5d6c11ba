"""Text-to-video retrieval: the chapters *false negatives* and *semantic similarity*.

- ``false_negatives``: FIRE's pooled judgements, corrected and leave-model-out scores, the proxy annotator.
- ``similarity``: Wray et al.'s caption proxies (BoW, PoS, SYN, METEOR) as matrices.
- ``semantic_evaluation``: nDCG under a proxy, GMR bounds, random-ranking expectations.
- ``nlp``: tokeniser, offline WordNet and tagger, METEOR.
- ``caption_overlap``: train-test TF-IDF caption overlap (FIRE Table 7).
- ``retrieval``: scoring a similarity matrix: R@K, median and mean rank, FIRE-style corrected scores.
- ``param_checks``: the declarations its functions' parameters share (captions, cut-offs).

Imports :mod:`fireeval.core` and :mod:`fireeval.stats` only.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
