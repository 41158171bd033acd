"""Train the question side of the profile slots (gieok/extract/slot_question_model.py).

Reads ``bench/data/slot_questions_train.jsonl`` (see bench/data/README.md) and fits four L2 logistic
regressions over the model's features (those seen in at least two questions) by full-batch descent:
the slot (eleven slots and ``none``), whose (self / a relative / a named person, on the questions
that ask about a slot), previous (yes / no), and the name scorer over candidate spans. Five folds,
split by a fixed seed, choose each head's regularisation (out-of-fold log loss) and the slot bar: the
lowest probability at which the folds' answered slots are right at least ``--precision`` of the
time — a wrong slot puts a wrong memory first, no slot only leaves the other channels to it. Writes
``gieok/data/slot_questions.npz``; the blind split is measured by bench/slot_questions.py.
Deterministic: ``make train-slot-questions`` twice gives the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _sparse import design, fit_softmax, softmax  # noqa: E402

from gieok.extract.slot_model import SLOTS  # noqa: E402
from gieok.extract.slot_question_model import (  # noqa: E402
    WHOSE,
    SlotQuestionModel,
    candidate_features,
    candidates,
    features,
)

DATA = ROOT / "bench" / "data" / "slot_questions_train.jsonl"
OUT = ROOT / "gieok" / "data" / "slot_questions.npz"
CLASSES = (*SLOTS, "none")
L2_GRID = (1e-4, 3e-4, 1e-3, 3e-3)
FOLDS = 5
SEED = 34
STEPS = 400  # full-batch Adam steps of every head


def items(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def whose_kind(whose: str) -> int:
    if whose == "self":
        return WHOSE.index("self")
    return WHOSE.index("named" if whose.startswith("name:") else "relative")


def folds(n: int) -> np.ndarray:
    fold = np.empty(n, dtype=np.int64)
    fold[np.random.default_rng(SEED).permutation(n)] = np.arange(n) % FOLDS
    return fold


def out_of_fold(vectors: list[dict[str, float]], y: np.ndarray, classes: int, fold: np.ndarray,
                l2: float) -> np.ndarray:
    """Each item's class probabilities from the model trained on the other folds."""
    p = np.zeros((len(y), classes))
    for k in range(FOLDS):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        x, vocabulary = design([vectors[i] for i in train])
        w, b = fit_softmax(x, y[train], classes, l2, steps=STEPS, method="momentum")
        xt, _ = design([vectors[i] for i in test], vocabulary)
        p[test] = softmax(xt.dot(w) + b)
    return p


def choose_l2(name: str, vectors: list[dict[str, float]], y: np.ndarray, classes: int,
              fold: np.ndarray) -> tuple[float, np.ndarray]:
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in L2_GRID:
        p = out_of_fold(vectors, y, classes, fold, l2)
        loss = float(-np.mean(np.log(np.maximum(p[np.arange(len(y)), y], 1e-12))))
        accuracy = float(np.mean(p.argmax(axis=1) == y))
        print(f"{name}: l2={l2:g} out-of-fold log loss {loss:.4f}, accuracy {accuracy:.3f}")
        if best is None or loss < best[0]:
            best = (loss, l2, p)
    assert best is not None
    return best[1], best[2]


def choose_bar(p: np.ndarray, y: np.ndarray, precision: float) -> float:
    """The lowest bar at which the answered slots are right ``precision`` of the time on the folds."""
    none = CLASSES.index("none")
    masked = p.copy()
    masked[:, none] = -1.0
    best = masked.argmax(axis=1)
    top = masked.max(axis=1)
    chosen = None
    for bar in np.round(np.arange(0.20, 0.96, 0.025), 3):
        answered = top >= bar
        right = answered & (best == y)
        share = right.sum() / max(answered.sum(), 1)
        recall = right.sum() / max((y != none).sum(), 1)
        clean = np.mean(~answered[y == none])
        print(f"bar {bar:.3f}: precision {share:.3f}, slot recall {recall:.3f}, none kept clean {clean:.3f}")
        if chosen is None and share >= precision:
            chosen = float(bar)
    return chosen if chosen is not None else 0.95


def name_examples(rows: list[dict[str, object]]) -> tuple[list[dict[str, float]], np.ndarray, list[int]]:
    """Every candidate span of every question, 1 when it is the named person; and its question's index."""
    vectors, labels, owner = [], [], []
    for index, row in enumerate(rows):
        whose = str(row["whose"] or "")
        gold = whose[5:] if whose.startswith("name:") else None
        for candidate in candidates(str(row["question"])):
            vectors.append(candidate_features(str(row["question"]), candidate))
            labels.append(int(candidate.text == gold))
            owner.append(index)
    return vectors, np.array(labels), owner


def fit_all(vectors: list[dict[str, float]], y: np.ndarray, classes: int, l2: float,
            vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    x, _ = design(vectors, vocabulary)
    return fit_softmax(x, y, classes, l2, steps=STEPS, method="momentum")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--precision", type=float, default=0.95, help="answered slots right this often on the folds")
    args = parser.parse_args()
    rows = items(DATA)
    vectors = [features(str(r["question"])) for r in rows]
    fold = folds(len(rows))
    slot_y = np.array([CLASSES.index(str(r["slot"]) if r["slot"] else "none") for r in rows])
    slot_l2, slot_p = choose_l2("slot", vectors, slot_y, len(CLASSES), fold)
    bar = choose_bar(slot_p, slot_y, args.precision)
    asked = [i for i, r in enumerate(rows) if r["slot"]]
    whose_y = np.array([whose_kind(str(rows[i]["whose"])) for i in asked])
    whose_l2, _ = choose_l2("whose", [vectors[i] for i in asked], whose_y, len(WHOSE), fold[asked])
    previous_y = np.array([int(bool(r["previous"])) for r in rows])
    previous_l2, _ = choose_l2("previous", vectors, previous_y, 2, fold)
    name_vectors, name_y, owner = name_examples(rows)
    name_l2, name_p = choose_l2("name span", name_vectors, name_y, 2, fold[owner])
    _report_names(rows, owner, name_p[:, 1], name_y)

    x, vocabulary = design(vectors)
    del x
    slot_w, slot_b = fit_all(vectors, slot_y, len(CLASSES), slot_l2, vocabulary)
    whose_w, whose_b = fit_all([vectors[i] for i in asked], whose_y, len(WHOSE), whose_l2, vocabulary)
    prev_w, prev_b = fit_all(vectors, previous_y, 2, previous_l2, vocabulary)
    _, name_vocabulary = design(name_vectors)
    name_w, name_b = fit_all(name_vectors, name_y, 2, name_l2, name_vocabulary)
    weights = np.concatenate([slot_w, whose_w, (prev_w[:, 1] - prev_w[:, 0])[:, None]], axis=1)
    bias = np.concatenate([slot_b, whose_b, [prev_b[1] - prev_b[0]]])
    model = SlotQuestionModel(vocabulary, weights, bias, CLASSES, bar, name_vocabulary,
                              name_w[:, 1] - name_w[:, 0], float(name_b[1] - name_b[0]))
    model.save(str(OUT))
    print(f"wrote {OUT.relative_to(ROOT)}: {len(vocabulary)} features, {len(name_vocabulary)} span features, "
          f"bar {bar}, {OUT.stat().st_size // 1024} KB")


def _report_names(rows: list[dict[str, object]], owner: list[int], p: np.ndarray, y: np.ndarray) -> None:
    named = {i for i, r in enumerate(rows) if str(r["whose"] or "").startswith("name:")}
    best: dict[int, tuple[float, int]] = {}
    for j, i in enumerate(owner):
        if i in named and (i not in best or p[j] > best[i][0]):
            best[i] = (float(p[j]), int(y[j]))
    reachable = len({owner[j] for j in range(len(owner)) if y[j] == 1})
    right = sum(label for _p, label in best.values())
    print(f"name span: gold among candidates {reachable}/{len(named)}, "
          f"out-of-fold best span right {right}/{len(named)}")


if __name__ == "__main__":
    main()
