"""The inputs of the three AxIoU chapters (axiou_measures, axiou_label_noise, axiou_model_selection).

One call per chapter assembles its data and says where it came from:

* the registry's real Charades-STA files (ground truth, the AxIoU paper's released
  top-10 lists, the re-annotations or the training split where the chapter needs them);
* the reader's own moment predictions (chapter parameter ``predictions``: name -> path,
  any format of :mod:`fireeval.datasets.moment_formats`), scored against the chapter's
  Charades-STA test ground truth beside the shipped systems;
* the seeded synthetic stand-in, only through :func:`fireeval.datasets.choose_source`
  (never when real files fail their checksum, or when the reader named data).

The reader's files are validated (format, queries against the ground truth, counts), not
checked against the registry: every error is one line naming the file and the fix.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from dataclasses import dataclass, field

import numpy as np

from fireeval.book.inputs import Inputs
from fireeval.core.validation import ANY, BOOL, COLLECTION, SEED, Instance, Int, Options, validate_params
from fireeval.datasets import SOURCES

__all__ = ["MomentInputs", "read_reader_predictions", "measures_inputs", "label_noise_inputs",
           "model_selection_inputs"]

K = 10  # every chapter scores the top 10


@dataclass(frozen=True, kw_only=True)
class MomentInputs(Inputs):
    """A chapter's moment data (``source``, ``note`` and ``reader_files`` as every bundle). ``predictions``
    holds the shipped systems, then the reader's (``reader``)."""

    data_label: str  # the claims rows' data label
    gt: np.ndarray  # (queries, 2) [start, end] seconds
    lengths: np.ndarray  # (queries,) video length, seconds
    predictions: dict  # {name: (queries, K, 2)}
    shipped: list  # names of the book's systems
    reader: list = field(default_factory=list)  # names of the reader's systems
    reader_info: dict = field(default_factory=dict)  # {name: what the reader's file gave (format, counts)}
    gt_frame: object = None  # the Charades-STA test rows (DataFrame) when real
    quirks: dict = field(default_factory=dict)  # {system: prediction_quirks} when real
    extra: dict = field(default_factory=dict)  # chapter-specific inputs (re-annotations, training split, videos)

    @property
    def names(self) -> list:
        return list(self.predictions)


def _bundle(source, note, label, gt, lengths, predictions, shipped, reader=(), reader_info=None, gt_frame=None,
            quirks=None, extra=None) -> MomentInputs:
    reader_info = dict(reader_info or {})
    return MomentInputs(source=source, note=note, reader_files=tuple(i["path"] for i in reader_info.values()),
                        data_label=label, gt=gt, lengths=lengths, predictions=predictions, shipped=list(shipped),
                        reader=list(reader), reader_info=reader_info, gt_frame=gt_frame, quirks=dict(quirks or {}),
                        extra=dict(extra or {}))


def _pad(arr: np.ndarray, k: int = K) -> np.ndarray:
    arr = np.asarray(arr, dtype=float)
    if arr.shape[1] >= k:
        return arr[:, :k]
    pad = np.full((arr.shape[0], k - arr.shape[1], 2), np.nan)
    return np.concatenate([arr, pad], axis=1)


@validate_params(predictions=Instance(Mapping), gt_frame=ANY, taken=COLLECTION, normalize=BOOL)
def read_reader_predictions(predictions: dict, gt_frame, taken=(), normalize: bool = False) -> tuple[dict, dict]:
    """``({name: (queries, K, 2)}, {name: info})`` for the reader's files, validated against ``gt_frame``.

    ``taken`` are the names already used (the shipped systems): a reader's name may not
    shadow one. A file whose entries match none of the ground-truth queries, or that
    cannot be read, is refused with one line naming the file and the fix; entries that
    match no query are counted in ``info["unknown"]``, queries without an entry in
    ``info["missing_queries"]`` (they score 0, as a shipped system's missing queries do).
    """
    from fireeval.datasets.moment_formats import read_predictions

    rows = list(gt_frame[["video", "description"]].itertuples(index=False, name=None))
    out, infos = {}, {}
    for name, path in (predictions or {}).items():
        if name in taken:
            raise ValueError(f"predictions: the name {name!r} is already a shipped system. "
                             f"Fix: call your predictions something else (e.g. 'my_{name}').")
        info = {}
        try:
            pred = read_predictions(path, rows, "charades", normalize=normalize, k=K, info=info)
        except FileNotFoundError as err:
            raise FileNotFoundError(f"predictions[{name!r}]: {err}") from None
        except ValueError as err:
            raise ValueError(f"predictions[{name!r}]: {err}") from None
        matched = len(rows) - int(info.get("missing_queries", 0))
        if matched <= 0 or np.isnan(pred[..., 0]).all():
            raise ValueError(f"predictions[{name!r}]: {path}: no entry matches a Charades-STA test query "
                             f"(e.g. {info.get('unmatched', [])[:1]}). Fix: key entries by the test split's video "
                             "id and query text exactly as in charades_sta_test.txt.")
        info = {"path": str(path), "format": info.get("format"), "queries": len(rows),
                "missing_queries": int(info.get("missing_queries", 0)), "unknown": int(info.get("unknown", 0)),
                "unmatched": [list(k) for k in info.get("unmatched", [])]}
        out[name], infos[name] = _pad(pred), info
    return out, infos


def reader_note(infos: dict) -> str:
    """``"; the reader's own runs: mine (csv, 3720 queries, 12 without predictions)"`` or ``""``."""
    if not infos:
        return ""
    parts = []
    for name, i in infos.items():
        extra = [f"{i['missing_queries']} queries without predictions (score 0)"] if i["missing_queries"] else []
        extra += [f"{i['unknown']} entries matching no test query, ignored"] if i["unknown"] else []
        parts.append(f"{name} ({i['format']} file{', ' + ', '.join(extra) if extra else ''})")
    return "; the reader's own runs: " + ", ".join(parts)


def _real_files(systems, extra_files=()):
    from fireeval.datasets import charades

    return [*charades.GROUND_TRUTH_FILES, *extra_files, *[f"charades_sta/predictions/{s}.json" for s in systems]]


def _why(data_source) -> str:
    return "data_source=synthetic" if data_source == "synthetic" else "no Charades-STA file found anywhere"


def _decide(data_source, files, data_dir, predictions, what):
    from fireeval.datasets import choose_source

    return choose_source(data_source, files, root=data_dir, reader_inputs={"predictions": predictions}, what=what)


def _real_base(systems, data_dir, predictions, normalize):
    from fireeval.datasets import charades

    gt_frame = charades.load_ground_truth("test", root=data_dir)
    shipped = charades.load_all_predictions(list(systems), root=data_dir)
    theirs, infos = read_reader_predictions(predictions, gt_frame, taken=set(shipped) | set(charades.ALL_SYSTEMS),
                                            normalize=normalize)
    return gt_frame, shipped, theirs, infos


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], systems=COLLECTION,
                 predictions=ANY, seed=SEED, n_synthetic_queries=Int(1), normalize=BOOL)
def measures_inputs(data_source: str = "auto", data_dir=None, systems=(), predictions=None, *, seed: int = 0,
                    n_synthetic_queries: int = 3720, normalize: bool = False) -> MomentInputs:
    """axiou_measures: Charades-STA test, the paper's systems plus the reader's predictions, or the stand-in."""
    from fireeval.datasets import charades
    from fireeval.synthetic.moment_collection import simulate_moments

    source = _decide(data_source, _real_files(systems), data_dir, predictions, "the Charades-STA files")
    if source == "synthetic":
        gt, lengths, preds = simulate_moments(n_synthetic_queries, len(systems), seed=seed)
        return _bundle(
            source, f"SYNTHETIC stand-in ({_why(data_source)}): {len(gt)} simulated queries and {len(preds)} "
            "simulated systems of graded quality, system_1 best",
            f"stand-in: synthetic ({len(gt)} simulated queries, {len(preds)} simulated systems)",
            gt, lengths, preds, list(preds))
    gt_frame, shipped, theirs, infos = _real_base(systems, data_dir, predictions, normalize)
    gt = gt_frame[["start", "end"]].to_numpy()
    note = (f"real data: Charades-STA test split, {len(gt)} queries, the AxIoU paper's {len(shipped)} systems' "
            f"top-10 predictions{reader_note(infos)}")
    label = (f"real: Charades-STA test ({len(gt)} queries), the paper's {len(shipped)} systems"
             + (f" + {len(theirs)} of the reader's" if theirs else ""))
    quirks = {s: charades.prediction_quirks(s, root=data_dir) for s in shipped}
    return _bundle(source, note, label, gt, gt_frame["length"].to_numpy(), {**shipped, **theirs},
                        list(shipped), list(theirs), infos, gt_frame, quirks)


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], systems=COLLECTION,
                 predictions=ANY, seed=SEED, n_synthetic_queries=Int(1), normalize=BOOL)
def label_noise_inputs(data_source: str = "auto", data_dir=None, systems=(), predictions=None, *, seed: int = 0,
                       n_synthetic_queries: int = 1000, normalize: bool = False) -> MomentInputs:
    """axiou_label_noise: as :func:`measures_inputs` plus the five-rater re-annotations (``extra``:
    ``rater_queries`` (rows of the test split), ``rater_moments`` (raters, queries, 2))."""
    from fireeval.datasets import charades
    from fireeval.synthetic.moment_collection import simulate_moments
    from fireeval.vmr import noise

    files = _real_files(systems, charades.REANNOTATION_FILES)
    source = _decide(data_source, files, data_dir, predictions, "the Charades-STA files")
    if source == "synthetic":
        gt, lengths, preds = simulate_moments(n_synthetic_queries, len(systems), seed=seed)
        # Stand-in "real" raters: the noise model itself at σ = 2.5 s, plus a 1 s shared shift
        # so that raters disagree with the original annotation more than with each other.
        rater_queries = np.arange(min(len(gt), 1000))
        rater_moments = noise.simulate_raters(gt[rater_queries], 2.5, 1, 5, rng=seed + 1)[0] + 1.0
        return _bundle(
            source, f"SYNTHETIC stand-in ({_why(data_source)}): {len(gt)} simulated queries, "
            f"{len(preds)} simulated systems of graded quality, simulated raters",
            f"stand-in: synthetic ({len(gt)} simulated queries and systems, simulated raters)",
            gt, lengths, preds, list(preds),
            extra={"rater_queries": rater_queries, "rater_moments": rater_moments})
    gt_frame, shipped, theirs, infos = _real_base(systems, data_dir, predictions, normalize)
    rater_queries, bounds = charades.reannotation_bounds(charades.load_reannotations(root=data_dir))
    gt = gt_frame[["start", "end"]].to_numpy()
    note = (f"real data: Charades-STA test ({len(gt)} queries), the AxIoU paper's {len(shipped)} systems' top-10 "
            f"lists, and 5-rater re-annotations of {len(rater_queries)} queries{reader_note(infos)}")
    label = (f"real: Charades-STA test, the paper's {len(shipped)} systems"
             + (f" + {len(theirs)} of the reader's" if theirs else "")
             + f", 5-rater re-annotations of {len(rater_queries)} queries")
    return _bundle(source, note, label, gt, gt_frame["length"].to_numpy(), {**shipped, **theirs},
                        list(shipped), list(theirs), infos, gt_frame,
                        extra={"rater_queries": rater_queries, "rater_moments": np.moveaxis(bounds, 1, 0)})


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], nms_bases=COLLECTION,
                 systems=COLLECTION, predictions=ANY, seed=SEED, n_synthetic_queries=Int(1), normalize=BOOL)
def model_selection_inputs(data_source: str = "auto", data_dir=None, nms_bases=(), systems=(), predictions=None, *,
                           seed: int = 0, n_synthetic_queries: int = 3000, normalize: bool = False) -> MomentInputs:
    """axiou_model_selection: the real lists the variant families are built from.

    ``predictions`` holds the NMS bases, then the other shipped lists, then the reader's
    lists, which enter the families as further lists used as they are (their rescalings
    and truncations become candidate variants beside the shipped ones). ``extra``:
    ``nms_bases``, ``systems`` (the lists used as they are, the reader's included),
    ``videos`` (video of each query, for the splits) and ``prior_moments``/``prior_lengths``
    (the training moments of the blind prior).
    """
    from fireeval.synthetic.moment_collection import simulate_moments

    files = _real_files(list(nms_bases) + list(systems), ("charades_sta/charades_sta_train.txt",
                                                          "charades_sta/Charades_v1_train.csv"))
    source = _decide(data_source, files, data_dir, predictions, "the Charades-STA files")
    if source == "synthetic":
        gt, lengths, sim = simulate_moments(n_synthetic_queries, 6, seed=seed)
        bases, others = ["system_1", "system_2"], ["system_3", "system_4", "system_5", "system_6"]
        tgt, tlen, _ = simulate_moments(5000, 1, seed=seed + 1)
        return _bundle(
            source, f"SYNTHETIC stand-in ({_why(data_source)}): {len(gt)} simulated queries, "
            "6 simulated systems",
            f"stand-in: synthetic ({len(gt)} simulated queries, variants of 6 simulated systems)",
            gt, lengths, {k: sim[k] for k in bases + others}, bases + others,
            extra={"nms_bases": bases, "systems": others, "videos": np.arange(len(gt)) // 3,  # three queries per video
                   "prior_moments": tgt, "prior_lengths": tlen})
    from fireeval.datasets import charades

    gt_frame, shipped, theirs, infos = _real_base(list(nms_bases) + list(systems), data_dir, predictions, normalize)
    train = charades.load_ground_truth("train", root=data_dir)
    gt, videos = gt_frame[["start", "end"]].to_numpy(), gt_frame["video"].to_numpy()
    note = (f"real data: Charades-STA test ({len(gt)} queries, {len(set(videos))} videos), real top-10 lists of "
            f"{len(shipped)} systems, blind priors from the {len(train)} training moments{reader_note(infos)}")
    label = ("stand-in variants built from real lists: Charades-STA test, post-processings of the released "
             "2D-TAN/SCDM/blind lists" + (f" and of {len(theirs)} of the reader's lists" if theirs else "")
             + " (the paper's 640 variants, 32 trained 2D-TAN checkpoints × 20 NMS thresholds, are not public)")
    return _bundle(source, note, label, gt, gt_frame["length"].to_numpy(), {**shipped, **theirs},
                        list(shipped), list(theirs), infos, gt_frame,
                        extra={"nms_bases": list(nms_bases), "systems": list(systems) + list(theirs), "videos": videos,
                               "prior_moments": train[["start", "end"]].to_numpy(),
                               "prior_lengths": train["length"].to_numpy()})


def fig4_evidence(data: MomentInputs, per_query):
    """Fig. 4's evidence when the reader's systems were added: the paper's cells against τ over the shipped
    systems only (the paper's numbers are about its six systems); None when there is nothing to separate."""
    from fireeval.datasets import charades
    from fireeval.stats.agreement import kendall_tau_matrix
    from fireeval.stats.claims import Evidence
    from fireeval.book.papers.togashi import FIG4_TAU
    from fireeval.vmr.reference import NOTEBOOK_SOURCE, fig4_upper

    if not data.reader or not data.use_real or list(data.shipped) != list(charades.SYSTEMS):
        return None
    tau = kendall_tau_matrix(np.asarray(per_query)[:, : len(data.shipped)].mean(axis=-1))
    return Evidence.compare(fig4_upper(FIG4_TAU), fig4_upper(tau),
                            f"Fig. 4 as printed (two decimals) in {NOTEBOOK_SOURCE}, cell 12", tolerance=0.005,
                            detail="the 66 cells above the diagonal, against τ over the paper's six systems only "
                                   "(the reader's systems are not in Fig. 4); the paper's numbers reproduce when "
                                   "every cell rounds to the printed value")
