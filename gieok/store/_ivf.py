"""The numbers of the SQLite store's approximate vector index (IVF): k-means centroids and clusters.

A bank smaller than ``min_vectors`` is scanned exactly (sqlite-vec's ``vec_<dim>``, partitioned by
bank). When it reaches that size, k-means over a sample of its vectors gives ``nlist`` centroids;
every vector moves to ``ivf_<dim>``, a sqlite-vec table partitioned by bank *and* cluster (its
nearest centroid), and a search reads only the ``probes`` clusters nearest the query (one KNN per
cluster, merged by their exact cosine distances: the stored vectors are float32, so the merge is the
exact re-scoring). When the bank has grown to :data:`RETRAIN_GROWTH` times the size it was trained
at, it is trained again and every vector reassigned.

Each training is a new *generation*; cluster ids are ``generation << 20 | index``, so a retraining
reads the old generation's partitions while writing the new one's. Centroids are means of at least
:data:`MIN_MEMBERS` sampled vectors (a smaller cluster is dropped and its members go to the next
nearest), so no centroid is a copy of one fact's vector that could outlive its erasure.

Measured on this project's 2-core machine (bench/scale.py, 256-d clustered vectors, 100k facts):
sqlite-vec's exact scan 51 ms per KNN, its int8 scan 74 ms (no faster), IVF with 316 clusters and
16 probes 4.3 ms at R@10 1.0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GENERATION_SHIFT", "MIN_MEMBERS", "RETRAIN_GROWTH", "Centroids", "assign", "cluster_count", "train"]

GENERATION_SHIFT = 20  # cluster id = generation << 20 | index: up to a million clusters per generation
MIN_MEMBERS = 8  # a centroid averages at least this many sampled vectors
RETRAIN_GROWTH = 4  # retrain when the bank holds 4x the vectors it was trained on
SAMPLE_PER_CLUSTER = 40
ITERATIONS = 8
_BATCH = 8192


@dataclass(frozen=True)
class Centroids:
    """One generation of a bank's clusters: unit-length centroids, row i is cluster ``ids[i]``."""

    generation: int
    vectors: np.ndarray

    @property
    def ids(self) -> list[int]:
        return [self.generation << GENERATION_SHIFT | i for i in range(len(self.vectors))]

    def nearest(self, query: np.ndarray, probes: int) -> list[int]:
        """The ids of the ``probes`` clusters whose centroids are nearest the query, nearest first."""
        scores = self.vectors @ _unit(np.asarray(query, dtype=np.float32))
        count = min(probes, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        return [self.generation << GENERATION_SHIFT | int(i) for i in top[np.argsort(-scores[top])]]

    def assign(self, vectors: np.ndarray) -> list[int]:
        """Each vector's cluster id."""
        return [self.generation << GENERATION_SHIFT | int(i) for i in assign(self.vectors, vectors)]


def cluster_count(vectors: int) -> int:
    """How many clusters a bank of this many vectors gets: √ of the size it may grow to before the
    next training (√(4n)), so clusters stay near √n vectors; at least 16."""
    return max(16, min(1 << GENERATION_SHIFT, round(math.sqrt(RETRAIN_GROWTH * max(vectors, 1)))))


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def assign(centroids: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Index of each vector's nearest centroid by cosine (in batches: a 1M x 1k score matrix is 4 GB)."""
    vectors = _unit(np.asarray(vectors, dtype=np.float32).reshape(-1, centroids.shape[1]))
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), _BATCH):
        out[start:start + _BATCH] = np.argmax(vectors[start:start + _BATCH] @ centroids.T, axis=1)
    return out


def train(sample: np.ndarray, clusters: int, seed: int = 0) -> np.ndarray:
    """Spherical k-means (cosine) over the sample: unit centroids, each the mean of at least
    :data:`MIN_MEMBERS` sample vectors (fewer clusters than asked when the sample is small)."""
    data = _unit(np.asarray(sample, dtype=np.float32))
    clusters = max(1, min(clusters, len(data) // MIN_MEMBERS))
    rng = np.random.default_rng(seed)
    centroids: np.ndarray = data[rng.choice(len(data), clusters, replace=False)].copy()
    for _ in range(ITERATIONS):
        centroids = _means(data, assign(centroids, data), len(centroids))
    return centroids


def _means(data: np.ndarray, labels: np.ndarray, clusters: int) -> np.ndarray:
    """The unit means of the clusters with at least MIN_MEMBERS members; the others are dropped."""
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=clusters)
    present = np.flatnonzero(counts)
    sums = np.add.reduceat(data[order].astype(np.float64), np.concatenate(([0], np.cumsum(counts[present])[:-1])))
    kept = sums[counts[present] >= MIN_MEMBERS]
    if not len(kept):  # cannot happen with len(data) >= MIN_MEMBERS; keep one mean of everything
        kept = data.mean(axis=0, keepdims=True)
    unit: np.ndarray = _unit(kept.astype(np.float32))
    return unit
