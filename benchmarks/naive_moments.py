"""A naive pure-Python scorer of the AxIoU paper's 12 measures: the peer of `fireeval evaluate-moments`.

What a user would write without fireeval: read a Charades-STA ground-truth file and a
predictions JSON ({"entries": [{"vid", "query", "moments", "ratings"}]}), rank each
query's moments by rating, compute IoU in Python and print the mean of R@K,θ
(IoU >= θ) and AxIoU@K over the ground-truth queries (missing queries score 0).
No input checks beyond what Python does anyway.

Run: python benchmarks/naive_moments.py GT.txt PRED.json
"""
import json
import sys

KS, THETAS = (1, 5, 10), (0.3, 0.5, 0.7)
NAMES = [f"R@{k},{t}" for k in KS for t in THETAS] + [f"AxIoU@{k}" for k in KS]


def read(gt_path, pred_path):
    gt = []
    with open(gt_path, encoding="utf-8-sig") as fh:
        for line in fh:
            if line.strip():
                head, _, desc = line.rstrip("\n").partition("##")
                vid, s, e = head.split()
                gt.append(((vid, desc), float(s), float(e)))
    with open(pred_path, encoding="utf-8") as fh:
        entries = json.load(fh)["entries"]
    return gt, entries


def score(gt, entries):
    """Mean of every measure over the ground-truth queries: {name: value}."""
    ranked = {}
    for e in entries:
        if e["moments"] and (e["vid"], e["query"]) not in ranked:
            pairs = sorted(zip(e["ratings"], range(len(e["moments"])), e["moments"]), key=lambda t: (-t[0], t[1]))
            ranked[(e["vid"], e["query"])] = [m for _, _, m in pairs]
    totals = dict.fromkeys(NAMES, 0.0)
    for key, gs, ge in gt:
        ious = []
        for m in ranked.get(key, [])[:max(KS)]:
            ps, pe = m[0], m[1]
            inter = min(pe, ge) - max(ps, gs)
            union = max(pe, ge) - min(ps, gs)
            ious.append(max(inter, 0.0) / union if union > 0 else 0.0)
        if not ious:
            continue
        for k in KS:
            best = max(ious[:k])
            for t in THETAS:
                totals[f"R@{k},{t}"] += best >= t
            running, total = 0.0, 0.0
            for i in range(k):
                if i < len(ious):
                    running = max(running, ious[i])
                total += running
            totals[f"AxIoU@{k}"] += total / k
    return {name: totals[name] / len(gt) for name in NAMES}


def main(gt_path, pred_path):
    for name, value in score(*read(gt_path, pred_path)).items():
        print(f"{name:<10}\tall\t{value:.4f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
