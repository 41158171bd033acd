"""A fast deterministic embedder for the benchmarks' ``--fake`` runs: a bag of gieok keyword terms
hashed into 256 dimensions (lexical only, no model to load)."""

from __future__ import annotations

import hashlib

import numpy as np

from gieok.providers import Embedder, register
from gieok.text.terms import keyword_terms

__all__ = ["hash_embedder"]


def hash_embedder(model_id: str) -> str:
    """Register a hashing embedder under ``model_id`` (each benchmark its own, so banks never mix
    vectors of two benchmarks) and return the name to pass as ``Memory(embedder=...)``."""

    class HashEmbedder(Embedder):
        dim = 256

        def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for i, text in enumerate(texts):
                for term in keyword_terms(text) or (text,):
                    h = int.from_bytes(hashlib.sha256(term.encode("utf-8")).digest()[:4], "little")
                    out[i, h % (self.dim - 1)] += 1.0
                out[i, -1] = 0.01  # never the zero vector
            return out

    HashEmbedder.model_id = model_id
    register("embedder", model_id, HashEmbedder, replace=True)
    return model_id
