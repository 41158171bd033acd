"""Sparse logistic regression for the training scripts: named features in, weights out.

Each example is a ``{feature name: value}`` dict; :func:`design` turns a list of them into a sparse
matrix over a vocabulary (features seen at least ``min_count`` times), and :func:`fit` /
:func:`fit_softmax` train binary / multi-class L2 logistic regression by full-batch gradient descent
with momentum — deterministic, numpy only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Sparse", "design", "fit", "fit_softmax", "log_loss", "softmax"]


class Sparse:
    """An examples x features matrix as (row, column, value) triples: most of its cells are zero."""

    def __init__(self, rows: np.ndarray, columns: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> None:
        self.rows, self.columns, self.values, self.shape = rows, columns, values, shape

    def dot(self, w: np.ndarray) -> np.ndarray:
        if w.ndim == 1:
            return np.bincount(self.rows, weights=self.values * w[self.columns], minlength=self.shape[0])
        return np.stack([self.dot(w[:, c]) for c in range(w.shape[1])], axis=1)

    def tdot(self, g: np.ndarray) -> np.ndarray:
        if g.ndim == 1:
            return np.bincount(self.columns, weights=self.values * g[self.rows], minlength=self.shape[1])
        return np.stack([self.tdot(g[:, c]) for c in range(g.shape[1])], axis=1)

    def take(self, keep: np.ndarray) -> Sparse:
        """The rows ``keep`` (indices), renumbered from 0."""
        index = np.full(self.shape[0], -1)
        index[keep] = np.arange(len(keep))
        mask = index[self.rows] >= 0
        return Sparse(index[self.rows[mask]], self.columns[mask], self.values[mask], (len(keep), self.shape[1]))


def design(vectors: list[dict[str, float]], vocabulary: dict[str, int] | None = None,
           min_count: int = 2) -> tuple[Sparse, dict[str, int]]:
    if vocabulary is None:
        seen: dict[str, int] = {}
        for v in vectors:
            for name in v:
                seen[name] = seen.get(name, 0) + 1
        vocabulary = {name: i for i, name in enumerate(sorted(n for n, c in seen.items() if c >= min_count))}
    rows, columns, values = [], [], []
    for row, v in enumerate(vectors):
        for name, value in v.items():
            column = vocabulary.get(name)
            if column is not None:
                rows.append(row)
                columns.append(column)
                values.append(value)
    return Sparse(np.array(rows, dtype=np.int64), np.array(columns, dtype=np.int64), np.array(values, dtype=np.float64),
                  (len(vectors), len(vocabulary))), vocabulary


def fit(x: Sparse, y: np.ndarray, l2: float, steps: int = 1500) -> tuple[np.ndarray, float]:
    """L2 logistic regression, classes weighted to balance, by gradient descent with momentum."""
    w, b = np.zeros(x.shape[1]), 0.0
    vw, vb = np.zeros_like(w), 0.0
    weight = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    rate = 2.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x.dot(w) + b)))
        g = weight * (p - y)
        gw = x.tdot(g) / len(y) + l2 * w
        gb = float(g.mean())
        vw = 0.9 * vw - rate * gw
        vb = 0.9 * vb - rate * gb
        w, b = w + vw, b + vb
    return w, b


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """Mean binary log loss of probabilities ``p`` for labels ``y`` (0 / 1): how the scripts choose L2."""
    return float(-np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)))


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def fit_softmax(x: Sparse, y: np.ndarray, classes: int, l2: float, steps: int = 150,
                balance: float = 0.5, rate: float = 0.05, dense: np.ndarray | None = None,
                method: str = "adam") -> tuple[np.ndarray, ...]:
    """Multinomial L2 logistic regression; each class weighted by (1 / its share) ** ``balance``.
    ``dense`` (rows x d), if given, is a block of dense features with weights of its own (returned third).
    ``method`` "adam" (fewer steps: sparse features seen a few times move as fast as common ones) or
    "momentum" (plain descent with momentum at rate 1, what the entity-kind and slot-question heads
    were trained and measured with)."""
    if method == "momentum":
        return _fit_momentum(x, y, classes, l2, steps, balance)
    w, b = np.zeros((x.shape[1], classes)), np.zeros(classes)
    d = np.zeros((dense.shape[1], classes)) if dense is not None else None
    vd = np.zeros_like(d) if d is not None else None
    sd = np.zeros_like(d) if d is not None else None
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    weight, onehot = _class_weights(y, classes, balance), np.eye(classes)[y]
    # Adam: sparse features seen a few times move as fast as common ones, so far fewer steps converge
    sw, sb = np.zeros_like(w), np.zeros_like(b)
    for step in range(1, steps + 1):
        z = x.dot(w) + b
        if dense is not None:
            z = z + dense @ d
        p = softmax(z)
        g = weight[:, None] * (p - onehot)
        gw = x.tdot(g) / len(y) + l2 * w
        gb = g.mean(axis=0)
        if dense is not None:
            gd = dense.T @ g / len(y) + l2 * d
            vd = 0.9 * vd + 0.1 * gd
            sd = 0.999 * sd + 0.001 * gd ** 2
            d = d - rate * (np.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)) * vd / (np.sqrt(sd) + 1e-8)
        vw, vb = 0.9 * vw + 0.1 * gw, 0.9 * vb + 0.1 * gb
        sw, sb = 0.999 * sw + 0.001 * gw ** 2, 0.999 * sb + 0.001 * gb ** 2
        correction = np.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
        w = w - rate * correction * vw / (np.sqrt(sw) + 1e-8)
        b = b - rate * correction * vb / (np.sqrt(sb) + 1e-8)
    return (w, b) if d is None else (w, b, d)


def _class_weights(y: np.ndarray, classes: int, balance: float) -> np.ndarray:
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    share = np.maximum(counts / counts.sum(), 1e-9)
    weight = (1.0 / share) ** balance
    return np.asarray((weight / (weight[y].mean()))[y])


def _fit_momentum(x: Sparse, y: np.ndarray, classes: int, l2: float, steps: int,
                  balance: float) -> tuple[np.ndarray, np.ndarray]:
    w, b = np.zeros((x.shape[1], classes)), np.zeros(classes)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    weight, onehot = _class_weights(y, classes, balance), np.eye(classes)[y]
    for _ in range(steps):
        p = softmax(x.dot(w) + b)
        g = weight[:, None] * (p - onehot)
        gw = x.tdot(g) / len(y) + l2 * w
        gb = g.mean(axis=0)
        vw = 0.9 * vw - gw
        vb = 0.9 * vb - gb
        w, b = w + vw, b + vb
    return w, b
