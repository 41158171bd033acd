"""Exact nearest rows by cosine, in numpy: many queries scored against one matrix at once.

Shared by the SQLite store (``store.search.vector_many`` reads an exactly searched bank's vectors
once and scores every query together) and retain (a call's new facts among themselves, merged with
what the store found for each): both must return what an exact KNN returns, best first, ties by id.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nearest_rows"]

_BLOCK = 256  # queries scored at once: a bounded score matrix, even for a long message's facts


def nearest_rows(ids: np.ndarray, matrix: np.ndarray, queries: np.ndarray,
                 limit: int) -> list[list[tuple[int, float]]]:
    """Per query, the ``limit`` (id, cosine) of ``matrix``'s rows (named by ``ids``) nearest to it,
    best first, ties by id."""
    if not len(ids) or limit <= 0:
        return [[] for _ in queries]
    norms = np.linalg.norm(matrix, axis=1)
    out: list[list[tuple[int, float]]] = []
    k = min(limit, len(ids))
    for start in range(0, len(queries), _BLOCK):
        block = queries[start:start + _BLOCK]
        scale = np.maximum(np.outer(np.linalg.norm(block, axis=1), norms), np.float32(1e-30))
        similar = (block @ matrix.T) / scale
        for row in similar:
            if k < len(row):  # every row as close as the k-th, so that a tie is broken by id
                picked = np.flatnonzero(row >= row[np.argpartition(-row, k - 1)[k - 1]])
            else:
                picked = np.arange(len(row))
            best = picked[np.lexsort((ids[picked], -row[picked]))][:k]
            out.append([(int(ids[i]), float(row[i])) for i in best])
    return out
