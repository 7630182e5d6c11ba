"""Seeded synthetic stand-ins, so every chapter runs where the real data are absent.

- ``trec_collection``: TREC-style runs, qrels and pools (pooling chapters).
- ``video``: captioned videos with latent topics (text-to-video chapters).
- ``fire_study``: a FIRE-format judged benchmark built on ``video``.
- ``moment_collection``: moment-retrieval ground truth and systems (AxIoU chapters).

Everything they produce is labelled SYNTHETIC. They may import any study subpackage
(they simulate its inputs); no study imports them.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
