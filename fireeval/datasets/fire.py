"""The FIRE relevance labels (facebookresearch/mm-retrieval-evaluation), when you have them.

The repository keeps ``data/fire_msrvtt_dataset.json``, ``data/fire_msvd_dataset.json``
and ``data/predictions.zip`` in Git LFS. A checkout without ``git lfs pull`` holds
only *pointer* files (``version https://git-lfs...``, ``oid sha256:...``, ``size ...``);
the registry records the real objects' sha256, so a file placed under
``FIREEVAL_DATA/fire/`` is verified before use (:func:`load_labels`). Reading a
pointer instead of the object is reported with the fix.

Schema (upstream ``mmr/datasets.py``, ``FireDataset``)::

    {"annotations": [{"query": caption text, "video_id": str, "label": "relevant"|"irrelevant",
                      "annotator_ids": [int], "annotator_labels": [label], "response_ids": [int],
                      "queue_ids": [int], "models": ["CLIP4CLIP"|"SSB"|"CE"], "dataset": "MSRVTT"|"MSVD"}],
     "disagreements": [same without "label"],
     "source_ds", "source_data_md5", "source_annotator_map_md5", "created_ds", "email",
     "creator", "website", "license", "datasets"}

Joins are by caption *text* and video id, as upstream: every query row whose caption
text equals an annotation's ``query`` gets that annotation (MSR-VTT 1k-A has 995
distinct captions for 1000 rows, so a few rows share their judgements). Disagreements
(no majority) count as judged and not relevant; upstream ignores them, which scores
the same.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fireeval.core.judgements import Judgements
from fireeval.core.validation import ANY, STR, Instance, Options, validate_params
from fireeval.datasets import FILE, ROOT, DataError, data_path, registry

__all__ = ["FILES", "POINTERS", "PREDICTIONS", "FIRE_MODELS", "LABELS", "read_lfs_pointer", "read_labels", "parse_labels",
           "load_labels", "to_judgements", "named_judgements", "agreement_table", "load_predictions"]

FILES = {"msrvtt": "fire/fire_msrvtt_dataset.json", "msvd": "fire/fire_msvd_dataset.json"}
POINTERS = {k: v + ".lfs-pointer.txt" for k, v in FILES.items()}
PREDICTIONS = "fire/predictions.zip"
# Upstream model tags, and the names the paper prints (CE is the TeachText checkpoint).
FIRE_MODELS = {"CLIP4CLIP": "CLIP4Clip", "SSB": "SSB", "CE": "TeachText"}
PREDICTION_DIRS = {"CLIP4CLIP": "clip4clip", "CE": "collaborative-experts", "SSB": "ssb"}
LABELS = ("relevant", "irrelevant")
_REQUIRED = ("query", "video_id", "annotator_ids", "annotator_labels", "response_ids", "queue_ids", "models",
             "dataset")
_LFS_MAGIC = b"version https://git-lfs"
_LABELS = Instance(pd.DataFrame, fix="pass the DataFrame of read_labels or load_labels")
_TEXTS = Instance(Sequence, np.ndarray, fix="pass a list of str")


@validate_params(path=FILE)
def read_lfs_pointer(path) -> dict:
    """``{"sha256", "size"}`` of the object a Git LFS pointer file stands for.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x")
    >>> _ = open(p, "w").write("version https://git-lfs.github.com/spec/v1\\noid sha256:" + "ab" * 32 + "\\nsize 12\\n")
    >>> read_lfs_pointer(p)["size"]
    12
    """
    fields = dict(line.split(" ", 1) for line in Path(path).read_text().splitlines() if " " in line)
    if not fields.get("version", "").startswith("https://git-lfs") or not fields.get("oid", "").startswith("sha256:"):
        raise ValueError(f"{path} is not a Git LFS pointer (expected 'version https://git-lfs...' and 'oid sha256:...')")
    return {"sha256": fields["oid"][len("sha256:"):].strip(), "size": int(fields["size"])}


def _sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_not_pointer(path):
    with open(path, "rb") as fh:
        head = fh.read(len(_LFS_MAGIC))
    if head == _LFS_MAGIC:
        raise DataError(f"{path} is a Git LFS pointer, not the FIRE data. Fix: in a clone of "
                        "facebookresearch/mm-retrieval-evaluation run `git lfs pull` and place the real file "
                        "under FIREEVAL_DATA/fire/")


@validate_params(path=FILE, expected_sha256=[STR, None])
def read_labels(path, expected_sha256: str | None = None) -> pd.DataFrame:
    """Parse a FIRE dataset file (exact upstream schema) into one row per judged pair.

    Columns: query, video_id, label ("relevant" / "irrelevant" / None for a
    disagreement), agreement (bool), n_labels, n_relevant_labels, annotator_ids,
    annotator_labels, models (tuple of upstream tags), dataset. ``expected_sha256``
    (e.g. from the LFS pointer) is checked first when given. Schema errors name the
    file and the offending entry.
    """
    path = Path(path)
    _check_not_pointer(path)
    if expected_sha256 is not None:
        actual = _sha256(path)
        if actual != expected_sha256:
            raise DataError(f"{path}: sha256 is {actual}, expected {expected_sha256} (the Git LFS pointer's oid). "
                            "Fix: use the file from facebookresearch/mm-retrieval-evaluation @ 49ec7239 (git lfs pull).")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}") from err
    return parse_labels(data, source=str(path))


def _checked_entry(entry: dict, agree: bool, where: str) -> tuple[list, tuple]:
    """``(annotator labels, models)`` of one FIRE entry, its fields checked (one line naming the entry)."""
    missing = [f for f in _REQUIRED + (("label",) if agree else ()) if f not in entry]
    if missing:
        raise ValueError(f"{where} lacks {missing}; every entry needs {list(_REQUIRED)}"
                         f"{' and label' if agree else ''}")
    labels = list(entry["annotator_labels"])
    if len(labels) != len(entry["annotator_ids"]) or not labels:
        raise ValueError(f"{where}: {len(labels)} annotator_labels for {len(entry['annotator_ids'])} "
                         "annotator_ids; they must pair up one to one")
    bad = [x for x in labels + ([entry["label"]] if agree else []) if x not in LABELS]
    if bad:
        raise ValueError(f"{where}: label {bad[0]!r} is not one of {LABELS}")
    models = tuple(entry["models"])
    if any(m not in FIRE_MODELS for m in models):
        raise ValueError(f"{where}: models {list(models)} must be among {list(FIRE_MODELS)}")
    return labels, models


@validate_params(data=ANY, source=STR)
def parse_labels(data: dict, source: str = "<FIRE dict>") -> pd.DataFrame:
    """:func:`read_labels` on an already parsed FIRE dict (``source`` names it in errors)."""
    path = source
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be a JSON object, not {type(data).__name__}")
    for key in ("annotations", "disagreements"):
        if not isinstance(data.get(key), list):
            raise ValueError(f"{path}: top-level key {key!r} missing or not a list; a FIRE dataset file has "
                             "'annotations' and 'disagreements' (mmr/datasets.py FireDataset)")
    rows = []
    for key, agree in (("annotations", True), ("disagreements", False)):
        for i, entry in enumerate(data[key]):
            labels, models = _checked_entry(entry, agree, f"{path}: {key}[{i}]")
            rows.append({"query": entry["query"], "video_id": str(entry["video_id"]),
                         "label": entry["label"] if agree else None, "agreement": agree,
                         "n_labels": len(labels), "n_relevant_labels": sum(x == "relevant" for x in labels),
                         "annotator_ids": tuple(entry["annotator_ids"]), "annotator_labels": tuple(labels),
                         "models": models, "dataset": entry["dataset"]})
    columns = ["query", "video_id", "label", "agreement", "n_labels", "n_relevant_labels", "annotator_ids",
               "annotator_labels", "models", "dataset"]
    return pd.DataFrame(rows, columns=columns)


@validate_params(dataset=Options(*FILES), root=ROOT)
def load_labels(dataset: str = "msrvtt", root=None) -> pd.DataFrame:
    """The real FIRE labels for ``"msrvtt"`` or ``"msvd"``, verified against the registry.

    The registry's sha256 is the Git LFS pointer's oid (a test checks they agree).
    Raises :class:`fireeval.datasets.DataUnavailable` when the file is not present.
    """
    return read_labels(data_path(FILES[dataset], root))


def _normalise(text: str) -> str:
    return " ".join(str(text).split())


@validate_params(labels=_LABELS, queries=_TEXTS, video_ids=_TEXTS, models=[_TEXTS, None], normalise=Instance(Callable,
                 fix="pass a function str -> str"))
def to_judgements(labels: pd.DataFrame, queries: Sequence[str], video_ids: Sequence[str],
                  models: Sequence[str] | None = None, normalise=_normalise) -> tuple[Judgements, dict]:
    """Place FIRE labels on the (query row x video) grid of a benchmark.

    ``queries[i]`` is row i's caption text and ``video_ids[j]`` column j's video. A
    label applies to every row whose ``normalise``-d caption equals its query text,
    at the column of its video. Returns the :class:`~fireeval.core.judgements.Judgements`
    (``models`` = upstream tags, default all in the file) and join statistics: labels
    placed, labels whose caption or video is not in the grid.
    """
    col = {str(v): j for j, v in enumerate(video_ids)}
    rows_of: dict[str, list[int]] = {}
    for i, q in enumerate(queries):
        rows_of.setdefault(normalise(q), []).append(i)
    tags = list(models) if models is not None else [m for m in FIRE_MODELS if labels["models"].map(
        lambda ms, m=m: m in ms).any()]
    shape = (len(queries), len(video_ids))
    contributed = np.zeros((len(tags),) + shape, dtype=bool)
    judged = np.zeros(shape, dtype=bool)
    relevant = np.zeros(shape, dtype=bool)
    stats = {"labels": len(labels), "placed": 0, "caption_not_found": 0, "video_not_found": 0}
    keys = labels["query"].map(normalise)
    cols = labels["video_id"].map(col)
    for key, j, label, ms in zip(keys, cols, labels["label"], labels["models"]):
        rows = rows_of.get(key)
        if rows is None:
            stats["caption_not_found"] += 1
            continue
        if j is None or (isinstance(j, float) and np.isnan(j)):
            stats["video_not_found"] += 1
            continue
        j = int(j)
        stats["placed"] += 1
        judged[rows, j] = True
        if label == "relevant":
            relevant[rows, j] = True
        for m in ms:
            if m in tags:
                contributed[tags.index(m), rows, j] = True
    return Judgements(tuple(tags), contributed, judged, relevant), stats


@validate_params(labels=_LABELS, queries=_TEXTS, video_ids=_TEXTS, names=[Instance(Mapping,
                 fix="pass {FIRE tag: run name}"), None])
def named_judgements(labels: pd.DataFrame, queries: Sequence[str], video_ids: Sequence[str],
                     names: dict | None = None) -> tuple[Judgements, dict]:
    """:func:`to_judgements` with the upstream model tags renamed by ``names`` (default :data:`FIRE_MODELS`:
    the names the paper prints), so they match the keys of the runs being scored."""
    judgements, stats = to_judgements(labels, queries, video_ids)
    return judgements.rename(FIRE_MODELS if names is None else names), stats


@validate_params(labels=_LABELS)
def agreement_table(labels: pd.DataFrame) -> dict:
    """FIRE Table 2: pairs, agreement, relevant share, and inter-annotator reliability.

    - ``pairs``: judged pairs; ``agreement_pairs`` / ``disagreement_pairs``: resolved to a
      majority label or not; ``relevant`` / ``irrelevant``: majority labels; ``labels``:
      all individual labels.
    - ``percent_agreement``: over pairs with two or more labels, the share of agreeing
      label pairs (Krippendorff's observed agreement 1 - D_o),
      sum_u sum_c n_uc (n_uc - 1) / sum_u n_u (n_u - 1).
    - ``krippendorff_alpha``: nominal alpha over those pairs (``krippendorff`` package,
      from per-pair value counts, so annotator identity does not matter).
    """
    import krippendorff

    n_rel = labels["n_relevant_labels"].to_numpy()
    n = labels["n_labels"].to_numpy()
    counts = np.stack([n_rel, n - n_rel], axis=1)
    multi = counts[n >= 2]
    out = {
        "pairs": int(len(labels)),
        "labels": int(n.sum()),
        "agreement_pairs": int(labels["agreement"].sum()),
        "disagreement_pairs": int((~labels["agreement"]).sum()),
        "relevant": int((labels["label"] == "relevant").sum()),
        "irrelevant": int((labels["label"] == "irrelevant").sum()),
        "multiply_labelled": int(len(multi)),
    }
    out["share_relevant"] = out["relevant"] / out["pairs"] if out["pairs"] else float("nan")
    if len(multi):
        m = multi.sum(axis=1)
        out["percent_agreement"] = float((multi * (multi - 1)).sum() / (m * (m - 1)).sum())
        out["krippendorff_alpha"] = float(krippendorff.alpha(value_counts=multi, level_of_measurement="nominal"))
    else:
        out["percent_agreement"] = out["krippendorff_alpha"] = float("nan")
    return out


@validate_params(dataset=Options(*FILES), root=ROOT)
def load_predictions(dataset: str = "msrvtt", root=None) -> dict[str, np.ndarray]:
    """FIRE's own similarity matrices from ``predictions.zip``: ``{upstream tag: sim_test}``.

    MSR-VTT: rows = queries and columns = videos in MSRVTT_JSFUSION_test.csv order
    (upstream ``MsrvttEvaluation``). MSVD's CE matrix needs its meta.pkl and is not read.
    """
    path = data_path(PREDICTIONS, root)
    _check_not_pointer(path)
    out = {}
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for tag, folder in PREDICTION_DIRS.items():
            member = f"data/predictions/{dataset}/{folder}/sim_test.npy"
            if member in names and not (dataset == "msvd" and tag == "CE"):
                out[tag] = np.load(io.BytesIO(zf.read(member)))
    if not out:
        raise DataError(f"{path} holds no data/predictions/{dataset}/*/sim_test.npy")
    return out


def pointer_sha256(dataset: str = "msrvtt", root=None) -> str:
    """The sha256 the Git LFS pointer in the data folder gives for the real file."""
    return read_lfs_pointer(data_path(POINTERS[dataset], root))["sha256"]


def registry_sha256(dataset: str = "msrvtt") -> str:
    """The sha256 data/registry.json expects for the real file."""
    return registry()[FILES[dataset]]["sha256"]
