"""Seeded synthetic stand-ins, so every chapter runs where the real data are absent.

- ``trec``: TREC-style runs, qrels and pools (pooling chapters).
- ``video``: captioned videos with latent topics (text-to-video chapters).
- ``fire``: a FIRE-format judged benchmark built on ``video``.
- ``moments``: moment-retrieval ground truth and systems (AxIoU chapters).

Everything they produce is labelled SYNTHETIC. They may import any study subpackage
(they simulate its inputs); no study imports them. Names are re-exported lazily.
"""
from fireeval._lazy import attach

__getattr__, __dir__ = attach(__name__, __file__, ["trec", "video", "fire", "moments"])
