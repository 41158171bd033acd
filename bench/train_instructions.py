"""Train the quarantine's instruction model (gieok/defense/_instructions.py) on its labelled set.

Reads ``bench/data/quarantine_train*.jsonl`` (see bench/data/README.md), keeps what the engine would
judge (``judged_part``: a user's own words are never judged, only what they quote), and fits L2
logistic regression over the model's features (those in at least two texts) by full-batch gradient
descent. Five folds, split by a fixed seed, choose the regularisation (out-of-fold log loss) and
the threshold: the lowest at which at most ``--benign-rate`` of the folds' benign texts are judged
instructions — a benign document held back costs a user a memory, so the threshold is chosen for
them. Writes ``gieok/data/instructions.json``; the blind split is measured by bench/quarantine.py.
Deterministic: ``make train-instructions`` twice gives the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _sparse import Sparse, design, fit, log_loss  # noqa: E402

from gieok.defense._instructions import InstructionModel, judged_part, vector  # noqa: E402

DATA = sorted((ROOT / "bench" / "data").glob("quarantine_train*.jsonl"))
OUT = ROOT / "gieok" / "data" / "instructions.json"
TRUST = {"user": "user", "assistant": "assistant", "document": "document", "web": "web", "tool": "tool",
         "email": "document"}


def examples(path: Path) -> list[tuple[str, int, str]]:
    """(judged text, 1 for an instruction, language) of each item the engine would judge."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            part = judged_part(item["text"], TRUST[item["source"]])
            if part is not None:
                out.append((part, int(item["label"] == "injection"), item["lang"]))
    return out


def predict(x: Sparse, w: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x.dot(w) + b))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--benign-rate", type=float, default=0.015)
    args = parser.parse_args()
    items = [item for path in args.data for item in examples(path)]
    vectors = [vector(t) for t, _, _ in items]
    y = np.array([label for _, label, _ in items], dtype=np.float64)
    print(f"{len(items)} judged texts ({int(y.sum())} instructions) of {', '.join(p.name for p in args.data)}")
    order = np.random.default_rng(20261205).permutation(len(items))
    folds = [order[k::args.folds] for k in range(args.folds)]
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in (1e-7, 1e-6, 1e-5):
        oof = np.zeros(len(items))
        for k, held in enumerate(folds):
            train = np.concatenate([f for j, f in enumerate(folds) if j != k])
            x, vocabulary = design([vectors[i] for i in train])
            w, b = fit(x, y[train], l2)
            oof[held] = predict(design([vectors[i] for i in held], vocabulary)[0], w, b)
        loss = log_loss(y, oof)
        print(f"l2 {l2:g}: out-of-fold log loss {loss:.4f}")
        if best is None or loss < best[0]:
            best = (loss, l2, oof)
    assert best is not None
    _, l2, oof = best
    benign = np.sort(oof[y == 0])[::-1]
    allowed = int(np.floor(args.benign_rate * len(benign)))
    threshold = float(benign[allowed]) + 1e-6 if allowed < len(benign) else 0.5
    caught = float((oof[y == 1] >= threshold).mean())
    held = float((oof[y == 0] >= threshold).mean())
    print(f"chosen l2 {l2:g}, threshold {threshold:.4f}: out of fold, instructions caught {caught:.3f}, "
          f"benign judged instructions {held:.3f}")
    for lang in ("ko", "en", "mixed"):
        mask = np.array([it[2] == lang for it in items])
        if mask.any():
            print(f"  {lang}: caught {float((oof[mask & (y == 1)] >= threshold).mean()):.3f}, "
                  f"benign {float((oof[mask & (y == 0)] >= threshold).mean()):.3f}")
    x, vocabulary = design(vectors)
    w, b = fit(x, y, l2)
    names = sorted(vocabulary, key=vocabulary.__getitem__)
    weights = {name: float(w[i]) for i, name in enumerate(names) if abs(w[i]) >= 1e-3}
    model = InstructionModel(weights, float(b), threshold)
    args.out.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"wrote {args.out.relative_to(ROOT)}: {len(weights):,} weights of {len(names):,} features")


if __name__ == "__main__":
    main()
