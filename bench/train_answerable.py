"""Train the answerability head (gieok/answering/_answerable.py) on bench/data/answer_train.jsonl.

Each item is (question, memory, who said it, yes/no). The head scores every sentence of a memory (and
the whole memory when it has several) and takes the best, so it is trained on those units: a "no"
memory gives each of them as a negative; a "yes" memory gives its whole text and the sentence holding
its labelled answer as positives. Two variants are fitted over the same units: ``full`` (e5-small
vectors — cosine and the element-wise product — plus the lexical features) and ``lexical`` (for a
bank with another embedder). Vectors come from bench/_embed_cache.py, computed once.

Five folds split by *question* (the memories written for one question share it: splitting them would
leak) choose the regularisation (out-of-fold log loss), then a Platt scaling of the out-of-fold
scores makes the probability calibrated (its reliability table is printed), and the bar is the
lowest at which the folds' precision reaches ``--precision``. Trained on all items with these, the
weights go to gieok/data/answerable_e5-small.json. Deterministic: two runs give the same file. The
blind split is only measured, by bench/answerable.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _embed_cache import DiskCachedEmbedder  # noqa: E402
from _sparse import log_loss  # noqa: E402

from gieok.answering._answerable import EMBEDDER, features, lexical_features, sentences  # noqa: E402

DATA = ROOT / "bench" / "data" / "answer_train.jsonl"
OUT = ROOT / "gieok" / "data" / f"answerable_{EMBEDDER}.json"
SEED = 20261205
MIN_COUNT = 3


@dataclass
class Item:
    id: str
    lang: str
    question: str
    speaker: str
    memory: str
    label: int
    answer: str | None
    trap: str | None

    @property
    def candidates(self) -> list[str]:
        """What the head scores at run time: each sentence, and the whole memory when it has several."""
        parts = sentences(self.memory)
        return parts if len(parts) == 1 else [*parts, self.memory]


def load(path: Path) -> list[Item]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Item(r["id"], r["lang"], r["question"], r.get("speaker") or "", r["memory"], int(r["label"] == "yes"),
                 r.get("answer"), r.get("trap")) for r in rows]


def training_units(item: Item) -> list[tuple[str, int]]:
    if not item.label:
        return [(c, 0) for c in item.candidates]
    units = [(item.memory, 1)]
    holding = [s for s in sentences(item.memory) if item.answer and item.answer in s]
    if len(holding) == 1 and holding[0] != item.memory:
        units.append((holding[0], 1))
    return units


class Vectors:
    """Question and text vectors from the disk cache, batched once for a whole set."""

    def __init__(self, items: list[Item]) -> None:
        embedder = DiskCachedEmbedder(EMBEDDER)
        questions = sorted({it.question for it in items})
        texts = sorted({c for it in items for c in [*it.candidates, it.memory]})
        self.q = dict(zip(questions, embedder.embed(questions, "query"), strict=True))
        self.t = dict(zip(texts, embedder.embed(texts, "document"), strict=True))


def vector(item: Item, text: str, vectors: Vectors | None) -> dict[str, float]:
    if vectors is None:
        return lexical_features(item.question, text, item.speaker)
    return features(item.question, text, item.speaker, vectors.q[item.question], vectors.t[text])


def dense(rows: list[dict[str, float]], vocabulary: dict[str, int] | None = None) -> tuple[np.ndarray, dict[str, int]]:
    if vocabulary is None:
        seen: dict[str, int] = {}
        for r in rows:
            for name in r:
                seen[name] = seen.get(name, 0) + 1
        vocabulary = {n: i for i, n in enumerate(sorted(n for n, c in seen.items() if c >= MIN_COUNT and n != "bias"))}
    x = np.zeros((len(rows), len(vocabulary)))
    for i, r in enumerate(rows):
        for name, value in r.items():
            j = vocabulary.get(name)
            if j is not None:
                x[i, j] = value
    return x, vocabulary


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 1500) -> tuple[np.ndarray, float]:
    """L2 logistic regression, classes balanced, full-batch gradient descent with momentum (as bench/_sparse.py)."""
    w, b = np.zeros(x.shape[1]), 0.0
    vw, vb = np.zeros_like(w), 0.0
    weight = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = weight * (p - y)
        vw = 0.9 * vw - 0.5 * (x.T @ g / len(y) + l2 * w)
        vb = 0.9 * vb - 0.5 * float(g.mean())
        w, b = w + vw, b + vb
    return w, b


def platt(z: np.ndarray, y: np.ndarray, steps: int = 3000) -> tuple[float, float]:
    """Fit p = sigmoid(a z + b) to the labels (unweighted: the probability is meant at face value)."""
    a, b = 1.0, 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * z + b)))
        g = p - y
        a -= 0.1 * float((g * z).mean())
        b -= 0.1 * float(g.mean())
    return a, b


def auc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def item_scores(items: list[Item], unit_item: np.ndarray, unit_z: np.ndarray, candidate: np.ndarray) -> np.ndarray:
    """Each item's score: the best of its run-time candidates' (the training-only units are not asked)."""
    out = np.full(len(items), -np.inf)
    for u in np.flatnonzero(candidate):
        out[unit_item[u]] = max(out[unit_item[u]], unit_z[u])
    return out


def folds_by_question(items: list[Item], k: int) -> list[np.ndarray]:
    questions = sorted({it.question for it in items})
    order = np.random.default_rng(SEED).permutation(len(questions))
    fold_of = {questions[q]: i % k for i, q in enumerate(order)}
    return [np.array([i for i, it in enumerate(items) if fold_of[it.question] == f]) for f in range(k)]


def train_variant(items: list[Item], vectors: Vectors | None, folds: list[np.ndarray], precision: float,
                  name: str) -> dict[str, object]:
    units = [(i, text, label, text in items[i].candidates) for i, it in enumerate(items)
             for text, label in training_units(it)]
    rows = [vector(items[i], text, vectors) for i, text, _, _ in units]
    unit_item = np.array([u[0] for u in units])
    unit_y = np.array([u[2] for u in units], dtype=np.float64)
    candidate = np.array([u[3] for u in units])
    y = np.array([it.label for it in items], dtype=np.float64)
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in (1e-4, 3e-4, 1e-3):
        oof_units = np.zeros(len(units))
        for held in folds:
            held_units = np.isin(unit_item, held)
            x, vocabulary = dense([rows[u] for u in np.flatnonzero(~held_units)])
            w, b = fit(x, unit_y[~held_units], l2)
            oof_units[held_units] = dense([rows[u] for u in np.flatnonzero(held_units)], vocabulary)[0] @ w + b
        z = item_scores(items, unit_item, oof_units, candidate)
        p = 1 / (1 + np.exp(-z))
        loss = log_loss(y, p)
        print(f"  [{name}] l2 {l2:g}: out-of-fold log loss {loss:.4f}, AUC {auc(z, y):.3f}")
        if best is None or loss < best[0]:
            best = (loss, l2, z)
    assert best is not None
    _, l2, z = best
    a, b = platt(z, y)
    p = 1 / (1 + np.exp(-(a * z + b)))
    threshold = choose_bar(p, y, precision)
    report(items, p, y, threshold, name, l2)
    x, vocabulary = dense(rows)
    w, bias = fit(x, unit_y, l2)
    weights = {n: round(float(w[j]), 4) for n, j in vocabulary.items() if abs(w[j]) >= 1e-4}
    return {"weights": weights, "bias": round(float(bias), 4), "platt": [round(a, 4), round(b, 4)],
            "threshold": round(threshold, 4), "l2": l2}


def choose_bar(p: np.ndarray, y: np.ndarray, precision: float) -> float:
    """The lowest bar at which the out-of-fold precision (of every item at or above it) is ``precision``."""
    order = np.argsort(-p, kind="stable")
    prec = np.cumsum(y[order]) / np.arange(1, len(p) + 1)
    ok = np.flatnonzero(prec >= precision)
    return float(p[order][ok[-1]]) if len(ok) else 0.99


def report(items: list[Item], p: np.ndarray, y: np.ndarray, bar: float, name: str, l2: float) -> None:
    said = p >= bar
    print(f"  [{name}] chosen l2 {l2:g}, bar {bar:.3f} (out of fold, Platt-calibrated)")
    for lang in ("ko", "en", "mixed", "all"):
        m = np.array([lang in ("all", it.lang) for it in items])
        tp = float((said & m & (y == 1)).sum())
        prec = tp / max(1.0, float((said & m).sum()))
        rec = tp / max(1.0, float((m & (y == 1)).sum()))
        print(f"    {lang:5s} n={int(m.sum()):4d} AUC {auc(p[m], y[m]):.3f} precision {prec:.3f} recall {rec:.3f}")
    traps = sorted({it.trap for it in items if it.trap})
    print("    said yes to: " + ", ".join(
        f"{t} {float(said[[i for i, it in enumerate(items) if it.trap == t]].mean()):.2f}" for t in traps))
    edges = np.linspace(0, 1, 6)
    cells = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        m = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if m.any():
            cells.append(f"{lo:.1f}-{hi:.1f}: p {p[m].mean():.2f} vs {y[m].mean():.2f} (n={int(m.sum())})")
    print("    calibration: " + "; ".join(cells))
    ece = sum(abs(p[(p >= lo) & (p < hi + (hi == 1))].mean() - y[(p >= lo) & (p < hi + (hi == 1))].mean())
              * ((p >= lo) & (p < hi + (hi == 1))).mean()
              for lo, hi in zip(edges, edges[1:], strict=False) if ((p >= lo) & (p < hi + (hi == 1))).any())
    print(f"    expected calibration error {ece:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--precision", type=float, default=0.9)
    args = parser.parse_args()
    items = load(args.data)
    print(f"{len(items)} items ({sum(it.label for it in items)} answer) of {args.data.name}, "
          f"{len({it.question for it in items})} questions")
    folds = folds_by_question(items, args.folds)
    vectors = Vectors(items)
    variants = {"full": train_variant(items, vectors, folds, args.precision, "full"),
                "lexical": train_variant(items, None, folds, args.precision, "lexical")}
    data = {"embedder": EMBEDDER, "trained_on": args.data.name, "precision_target": args.precision,
            "variants": variants}
    args.out.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out.relative_to(ROOT)}: " + ", ".join(
        f"{n} {len(v['weights'])} weights" for n, v in variants.items()))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
