"""``store.search``: the keyword and vector channels and the indexes behind them.

Search is each database's own — FTS5 and sqlite-vec tables on SQLite
(:mod:`gieok.store._sqlite_search`), BM25 in SQL and pgvector on PostgreSQL
(:mod:`gieok.store._pg_search`) — so this module holds only what both implementations promise:
the :class:`~gieok.store.protocol.Search` methods and the index hooks through which the shared
areas keep a bank's keyword and vector indexes in step with its facts (``store.banks`` when a bank
is created or deleted, ``store.facts`` and ``store.sources`` when facts come or go,
``store.erasure`` when they are erased, ``store.reembed`` when a bank's vectors are swapped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gieok.records import ScopeFilter
from gieok.store._area import Area
from gieok.store.protocol import VectorOptions

__all__ = ["IndexedFact", "SQLSearch"]

# a fact to index: fact id, terms, context terms, vector, context vector (or None)
IndexedFact = tuple[int, Sequence[str], Sequence[str], Any, Any]


class SQLSearch(Area):
    """The search area of a store; each database subclasses it."""

    @property
    def _options(self) -> VectorOptions:
        """How to search a large bank (set on the store by the engine)."""
        return self._store.vector_options

    # -- the index hooks the other areas call --------------------------------------------------
    def _create_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        raise NotImplementedError

    def _drop_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        """Runs before the bank row is deleted (its other rows go by cascade)."""
        raise NotImplementedError

    def _index_fact(self, conn: Any, bank_id: int, dim: int, fact_id: int, terms: Sequence[str],
                    context_terms: Sequence[str], vector: Any, context_vector: Any | None) -> None:
        """``context_vector``: a reply's vector with the message it answers (None: the fact has none)."""
        raise NotImplementedError

    def _index_facts(self, conn: Any, bank_id: int, dim: int, rows: Sequence[IndexedFact]) -> None:
        """Index facts just added, ``(fact id, terms, context terms, vector, context vector or None)``
        each, then :meth:`_facts_indexed`; a database that writes many rows faster at once overrides it."""
        for fact_id, terms, context_terms, vector, context_vector in rows:
            self._index_fact(conn, bank_id, dim, fact_id, terms, context_terms, vector, context_vector)
        if rows:
            self._facts_indexed(conn, bank_id, dim, len(rows))

    def _drop_fact_indexes(self, conn: Any, bank_id: int, dim: int, fact_ids: Sequence[int]) -> None:
        """Runs before the facts are deleted."""
        raise NotImplementedError

    def indexed_terms(self, bank_id: int, fact_ids: Sequence[int]) -> dict[int, tuple[list[str], list[str]]]:
        """Each fact's keyword words as its index holds them: ``(terms, context terms)``, tokenized."""
        raise NotImplementedError

    def _facts_indexed(self, conn: Any, bank_id: int, dim: int, count: int) -> None:
        """Runs after ``count`` facts were added and indexed (an index that grows in steps steps here)."""
        raise NotImplementedError

    def _swap_fact_vectors(self, conn: Any, bank_id: int, old_dim: int, dim: int) -> dict[str, int]:
        """The store's own vector tables: delete the bank's vectors of ``old_dim``, move the staged
        ones in as vectors of ``dim``; returns {"facts": n, "context_vectors": n}."""
        raise NotImplementedError

    # -- the protocol ----------------------------------------------------------------------------
    def keyword(self, bank_id: int, terms: Sequence[str], limit: int, context_weight: float = 0.0,
                scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        raise NotImplementedError

    def vector(self, bank_id: int, dim: int, vector: np.ndarray, limit: int, view: str = "fact",
               scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        raise NotImplementedError

    def vector_many(self, bank_id: int, dim: int, vectors: np.ndarray, limit: int,
                    scope: ScopeFilter | None = None) -> list[list[tuple[int, float]]]:
        """Each row of ``vectors``'s nearest facts, as :meth:`vector` returns them (retain searches the
        neighbours of all of a call's new facts at once). Here one search per row; a database that can
        answer many at once overrides it."""
        return [self.vector(bank_id, dim, row, limit, scope=scope) for row in vectors]

    def vectors_of(self, dim: int, fact_ids: Sequence[int], view: str = "fact") -> dict[int, np.ndarray]:
        raise NotImplementedError

    def sample(self, bank_id: int, dim: int, limit: int) -> np.ndarray:
        raise NotImplementedError

    def train_index(self, bank_id: int, dim: int) -> int:
        raise NotImplementedError

    def index_due(self, bank_id: int) -> bool:
        raise NotImplementedError

    def suspend_index(self, bank_id: int, dim: int) -> bool:
        """Before a bulk load: stop keeping an index that is faster built once afterwards (by
        :meth:`build_index`). Returns whether anything was suspended."""
        raise NotImplementedError

    def build_index(self, bank_id: int, dim: int, *, batch: int = 0,
                    progress: Callable[[int, int], None] | None = None) -> int:
        raise NotImplementedError

    def compact(self, bank_id: int) -> None:
        raise NotImplementedError

    def clear_context(self, bank_id: int, dim: int, fact_id: int) -> None:
        raise NotImplementedError


