"""An experiment toward the decision model's update head: does a learned pair classifier beat the
supersede rules (``gieok.lifecycle.detect_update``, which answer the decision task ``updates`` offline)
on pairs nobody wrote either from?

    python bench/train_updates.py [--precision 0.97] [--unrelated] [--out heads.json]   # make bench-updates

L2 logistic regression (``bench/_sparse.py``) over features of an (older, newer) statement pair — the
newer one's character n-grams, words and word pairs, the older one's words, the words they share and
how much they share — on ``bench/data/supersede_train.jsonl`` plus the rules' own
``supersede_pairs.json`` splits ``tune``, ``held-out`` and ``fresh``. Two heads: lexical, and e5-small,
which adds the product and difference of the two statements' e5 vectors (as retain embeds a fact).
Five fixed folds choose the regularisation (out-of-fold log loss) and the bar (the lowest probability
keeping ``--precision`` out of fold: a false update hides a fact that is still true); each head is then
fitted on every training pair. ``--unrelated`` adds, per written pair, a made-up negative (its newer
statement after another pair's older one), the kind of pair retain asks about most. ``--out`` writes
the heads as JSON.

Reports, on the blind ``supersede_blind.jsonl`` and on ``fresh-2`` (blind to the rules), the heads' and
the rules' precision and recall per language; the blind sets never choose a feature, a weight or a bar.
The engine does not use the heads: alone, asked by retain, the e5 head closed 840 of LoCoMo's 1,347
facts (docs/benchmarks/supersede.md).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _sparse import Sparse, design, fit  # noqa: E402

from gieok.defense._instructions import reveal  # noqa: E402
from gieok.engine._retain_plan import embed_text  # noqa: E402
from gieok.lifecycle import detect_update  # noqa: E402

LEXICAL = "lexical"  # the head without vectors
_WORD = re.compile(r"[^\W_]+")


def features(old: str, new: str) -> dict[str, float]:
    """The pair's lexical features: unit-length n-gram and word counts, plus overlap values (not scaled)."""
    old_text, new_text = reveal(old), reveal(new)
    counts: Counter[str] = Counter()
    squeezed = " " + " ".join(new_text.split()) + " "
    for n in (2, 3, 4):
        counts.update("c" + squeezed[i:i + n] for i in range(len(squeezed) - n + 1))
    old_words, new_words = set(_WORD.findall(old_text)), _WORD.findall(new_text)
    counts.update("w" + w for w in new_words)
    counts.update(f"p{a} {b}" for a, b in zip(new_words, new_words[1:]))
    counts.update("o" + w for w in old_words)
    shared = old_words & set(new_words)
    counts.update("s" + w for w in shared)
    scaled = {k: 1.0 + math.log(v) for k, v in counts.items()}
    norm = math.sqrt(sum(v * v for v in scaled.values())) or 1.0
    out = {k: v / norm for k, v in scaled.items()}
    grams = [{t[i:i + 3] for i in range(max(0, len(t) - 2))} for t in (old_text, new_text)]
    out["xtrigram overlap"] = len(grams[0] & grams[1]) / (len(grams[0] | grams[1]) or 1)
    out["xword overlap"] = len(shared) / (len(old_words | set(new_words)) or 1)
    return out


def vector_features(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The pair's meaning from the two statements' vectors: their elementwise product and absolute
    difference (scaled to weigh like the lexical part), then their cosine."""
    u, v = np.asarray(old, dtype=np.float64), np.asarray(new, dtype=np.float64)
    return np.concatenate([u * v * 4, np.abs(u - v) * 2, [float(u @ v)]])


@dataclass(frozen=True)
class UpdateModel:
    """One head: ``embedder`` (LEXICAL, or the embedder whose vectors ``dense`` weighs), its lexical
    weights, its dense weights (empty for LEXICAL), bias and bar (a probability)."""

    embedder: str
    weights: Mapping[str, float]
    dense: np.ndarray
    bias: float
    threshold: float

    def probability(self, old: str, new: str, vectors: tuple[np.ndarray, np.ndarray] | None = None) -> float:
        """P(``new`` updates ``old``); ``vectors``: the two statements' own vectors (required when
        the head has dense weights)."""
        z = self.bias + sum(value * self.weights.get(name, 0.0) for name, value in features(old, new).items())
        if len(self.dense):
            if vectors is None:
                raise ValueError(f"the {self.embedder} update head needs the statements' vectors")
            z += float(vector_features(*vectors) @ self.dense)
        return 1.0 / (1.0 + math.exp(-z))

    def to_dict(self) -> dict[str, object]:
        return {"embedder": self.embedder, "bias": round(self.bias, 5), "threshold": round(self.threshold, 5),
                "dense": [round(float(w), 5) for w in self.dense],
                "weights": {k: round(w, 4) for k, w in sorted(self.weights.items())}}


DATA = ROOT / "bench" / "data"
EMBEDDER = "e5-small"
RULES_BAR = 0.5  # the engine's MIN_CONFIDENCE when the rules decided
Pair = dict[str, object]


def pairs(path: Path, splits: tuple[str, ...] | None = None) -> list[Pair]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = json.loads(path.read_text(encoding="utf-8"))
    return [p for p in items if splits is None or p["split"] in splits]


def embedded(items: Sequence[Pair], embedder: object) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each pair's two vectors, as retain embeds a fact said by "user"."""
    texts = [embed_text(str(t), "user") for p in items for t in (p["old"], p["new"])]
    vectors = np.asarray(embedder.embed(texts, "document"))  # type: ignore[attr-defined]
    return [(vectors[2 * i], vectors[2 * i + 1]) for i in range(len(items))]


class Stacked:
    """The lexical features (sparse) beside the vector features (dense), as ``_sparse.fit`` reads a
    matrix: the dense block multiplied by numpy, not cell by cell."""

    def __init__(self, lexical: Sparse, dense: np.ndarray) -> None:
        self.lexical, self.dense = lexical, dense
        self.shape = (lexical.shape[0], lexical.shape[1] + dense.shape[1])

    def dot(self, w: np.ndarray) -> np.ndarray:
        return np.asarray(self.lexical.dot(w[:self.lexical.shape[1]]) + self.dense @ w[self.lexical.shape[1]:])

    def tdot(self, g: np.ndarray) -> np.ndarray:
        return np.concatenate([self.lexical.tdot(g), self.dense.T @ g])


def matrix(table: Sequence[dict[str, float]], dense: np.ndarray,
           vocabulary: dict[str, int] | None = None) -> tuple[Stacked, dict[str, int]]:
    lexical, vocabulary = design(list(table), vocabulary, min_count=3)
    return Stacked(lexical, dense), vocabulary


def predict(x: Stacked, w: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x.dot(w) + b))))


def rates(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    closes = predicted.sum()
    right = (predicted & truth).sum()
    return (float(right / closes) if closes else 1.0), (float(right / truth.sum()) if truth.sum() else 1.0)


def unrelated(items: Sequence[Pair]) -> list[Pair]:
    """One pair per written pair, of the same language, that nobody would call an update: a written
    pair's newer statement after another pair's older one. Retain asks about many such pairs (nearest
    vectors, shared words, the last messages) and the written sets hold none: every written pair is
    about one topic, so without them the head learns that any pair is likely an update."""
    rng = np.random.default_rng(20261206)
    out: list[Pair] = []
    for language in ("ko", "en"):
        index = [i for i, p in enumerate(items) if p["language"] == language]
        other = rng.permutation(index)
        for i, j in zip(index, np.roll(other, 1)):
            if items[i]["old"] != items[j]["old"]:
                out.append({"old": items[j]["old"], "new": items[i]["new"], "update": False, "language": language})
    return out


def train_head(name: str, table: list[dict[str, float]], dense: np.ndarray, y: np.ndarray, written: np.ndarray,
               precision: float) -> UpdateModel:
    """Choose l2 and the bar on five fixed folds, then fit on everything. ``dense``: the pairs'
    vector features (no columns for the lexical head); ``written``: which pairs were written (the
    loss and the bar are measured on those, not on the made-up unrelated ones)."""
    order = np.random.default_rng(20261205).permutation(len(table))
    folds = [order[k::5] for k in range(5)]
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in (1e-5, 1e-4, 1e-3):
        oof = np.zeros(len(table))
        for k, held in enumerate(folds):
            rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
            x, vocabulary = matrix([table[i] for i in rest], dense[rest])
            w, b = fit(x, y[rest].astype(float), l2)  # type: ignore[arg-type]
            oof[held] = predict(matrix([table[i] for i in held], dense[held], vocabulary)[0], w, b)
        loss = float(-np.mean((y * np.log(oof + 1e-9) + (1 - y) * np.log(1 - oof + 1e-9))[written]))
        if best is None or loss < best[0]:
            best = (loss, l2, oof)
    assert best is not None
    _, l2, oof = best
    unrelated_oof = oof[~written]
    oof, y_written = oof[written], y[written]
    threshold = 0.5
    for candidate in np.sort(np.unique(oof)):
        if rates(oof >= candidate, y_written)[0] >= precision:
            threshold = float(candidate)
            break
    p, r = rates(oof >= threshold, y_written)
    closed = f", unrelated pairs closed {float(np.mean(unrelated_oof >= threshold)):.3f}" if len(unrelated_oof) else ""
    print(f"{name}: {int(written.sum())} written + {len(unrelated_oof)} unrelated training pairs; l2 {l2:g}; "
          f"bar {threshold:.3f}: out of fold precision {p:.3f} recall {r:.3f}{closed}")
    x, vocabulary = matrix(table, dense)
    w, b = fit(x, y.astype(float), l2)  # type: ignore[arg-type]
    lexical = {f: float(w[i]) for f, i in vocabulary.items() if round(float(w[i]), 4)}
    return UpdateModel(name, lexical, w[len(vocabulary):], float(b), threshold)


def write(heads: Sequence[UpdateModel], path: Path) -> None:
    body = {"about": "update heads: bench/train_updates.py", "heads": {h.embedder: h.to_dict() for h in heads}}
    path.write_text(json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def report(heads: Sequence[UpdateModel], embedder: object) -> None:
    print("| set | language | pairs | lexical head P / R | e5 head P / R | rules (the engine's) P / R |")
    print("|---|---|---:|---|---|---|")
    for name, test in (("supersede_blind.jsonl", pairs(DATA / "supersede_blind.jsonl")),
                       ("fresh-2", pairs(DATA / "supersede_pairs.json", ("fresh-2",)))):
        vectors = embedded(test, embedder)
        for language in ("ko", "en", None):
            chosen = [i for i, t in enumerate(test) if language is None or t["language"] == language]
            truth = np.array([bool(test[i]["update"]) for i in chosen])
            cells = []
            for head in heads:
                said = np.array([head.probability(str(test[i]["old"]), str(test[i]["new"]), vectors[i])
                                 >= head.threshold for i in chosen])
                precision, recall = rates(said, truth)
                cells.append(f"{precision:.3f} / {recall:.3f}")
            verdicts = [detect_update(str(test[i]["old"]), str(test[i]["new"])) for i in chosen]
            rules = rates(np.array([v is not None and v.confidence >= RULES_BAR for v in verdicts]), truth)
            print(f"| {name} | {language or 'all'} | {len(chosen)} | {cells[0]} | {cells[1]} | "
                  f"{rules[0]:.3f} / {rules[1]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.97)
    parser.add_argument("--unrelated", action="store_true", help="add one made-up unrelated negative per pair")
    parser.add_argument("--out", type=Path, default=None, help="write the heads here as JSON")
    args = parser.parse_args()
    from _embed_cache import DiskCachedEmbedder

    embedder = DiskCachedEmbedder(EMBEDDER)
    train = (pairs(DATA / "supersede_train.jsonl")
             + pairs(DATA / "supersede_pairs.json", ("tune", "held-out", "fresh")))
    written = np.array([True] * len(train) + [False] * len(train))
    if args.unrelated:
        train += unrelated(train)
    written = written[:len(train)]
    y = np.array([bool(p["update"]) for p in train])
    table = [features(str(p["old"]), str(p["new"])) for p in train]
    dense = np.array([vector_features(u, v) for u, v in embedded(train, embedder)])
    heads = [train_head(LEXICAL, table, np.zeros((len(train), 0)), y, written, args.precision),
             train_head(EMBEDDER, table, dense, y, written, args.precision)]
    if args.out is not None:
        write(heads, args.out)
    report([UpdateModel(h.embedder, h.weights, h.dense if h.embedder != LEXICAL else np.zeros(0), h.bias,
                        h.threshold) for h in heads], embedder)


if __name__ == "__main__":
    main()
