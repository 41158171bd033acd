"""Keyword (FTS5 BM25) and vector (sqlite-vec cosine) indexes of the SQLite store.

Each bank gets its own FTS5 table (``fts_bank_<id>``, rowid = fact id) so BM25's document
frequencies and average length are that bank's, not the whole file's. Vectors live in ``vec_<dim>``
tables partitioned by bank, rowid = fact id, cosine distance; a reply's second vector (with the message
it answers) lives in ``vecctx_<dim>``, the same way. These tables are not reached by
foreign keys, so the hooks of :class:`gieok.store._dialect.StoreQueries` keep them in step with the
facts: the shared queries call them when a bank is created or deleted and when facts come or go.

The PostgreSQL store's counterpart is :mod:`gieok.store._pg_search`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gieok.records import ScopeFilter
from gieok.store._connect import sqlite_module
from gieok.store._dialect import VECTOR_VIEWS, StoreQueries, check_view
from gieok.store._scopes import sources_in_scope

__all__ = ["SQLiteIndexes", "fts_table", "vec_table", "create_vector_tables"]


def fts_table(bank_id: int) -> str:
    return f"fts_bank_{int(bank_id)}"


def vec_table(dim: int, view: str = "fact") -> str:
    """The vector table of a dimension: ``fact`` (each fact's own vector) or ``context`` (replies)."""
    return f"vec_{int(dim)}" if check_view(view) == "fact" else f"vecctx_{int(dim)}"


def create_vector_tables(conn: Any, dim: int) -> None:
    for view in VECTOR_VIEWS:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {vec_table(dim, view)} USING vec0("
                     f"bank_id integer partition key, embedding float[{int(dim)}] distance_metric=cosine)")


def _fts_query(terms: Sequence[str]) -> str:
    # every term quoted (FTS5 syntax characters in user text must not become operators), OR-ed
    unique = dict.fromkeys(t for t in terms if t)
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)


def _facts_in_scope(scope: ScopeFilter | None, bank_id: int) -> tuple[str, list[Any]]:
    """``" AND rowid IN (the bank's facts in scope)"``: sqlite-vec and FTS5 apply it before their
    ``k`` / ``LIMIT``, so a filtered search still returns its limit of facts in scope."""
    condition, params = sources_in_scope(scope, bank_id, "f.source_id")
    if not condition:
        return "", []
    return f" AND rowid IN (SELECT f.id FROM facts f WHERE f.bank_id = ?{condition})", [int(bank_id), *params]


def _blob(vector: Any) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class SQLiteIndexes(StoreQueries):
    """FTS5 and sqlite-vec tables: the index hooks, index maintenance and both search channels."""

    # -- hooks -------------------------------------------------------------------------------
    def _create_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        conn.execute(f"CREATE VIRTUAL TABLE {fts_table(bank_id)} USING fts5(terms, context, "
                     "tokenize='unicode61 remove_diacritics 0')")
        try:  # a deleted row's entries leave the index at once (SQLite 3.42+; see compact_indexes)
            conn.execute(f"INSERT INTO {fts_table(bank_id)} ({fts_table(bank_id)}, rank) VALUES ('secure-delete', 1)")
        except sqlite_module().OperationalError:  # older SQLite: compact_indexes rebuilds after each erasure
            pass
        create_vector_tables(conn, dim)

    def _drop_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        for view in VECTOR_VIEWS:
            conn.execute(f"DELETE FROM {vec_table(dim, view)} WHERE bank_id = ?", (bank_id,))
        conn.execute(f"DROP TABLE IF EXISTS {fts_table(bank_id)}")

    def _index_fact(self, conn: Any, bank_id: int, dim: int, fact_id: int, terms: Sequence[str],
                    context_terms: Sequence[str], vector: Any, context_vector: Any | None) -> None:
        conn.execute(f"INSERT INTO {fts_table(bank_id)} (rowid, terms, context) VALUES (?, ?, ?)",
                     (fact_id, " ".join(terms), " ".join(context_terms)))
        conn.execute(f"INSERT INTO {vec_table(dim)} (rowid, bank_id, embedding) VALUES (?, ?, ?)",
                     (fact_id, bank_id, _blob(vector)))
        if context_vector is not None:
            conn.execute(f"INSERT INTO {vec_table(dim, 'context')} (rowid, bank_id, embedding) VALUES (?, ?, ?)",
                         (fact_id, bank_id, _blob(context_vector)))

    def _drop_fact_indexes(self, conn: Any, bank_id: int, dim: int, fact_ids: Sequence[int]) -> None:
        for ids_in, part in self._dialect.in_parts(fact_ids):
            conn.execute(f"DELETE FROM {fts_table(bank_id)} WHERE rowid {ids_in}", part)
            for view in VECTOR_VIEWS:
                conn.execute(f"DELETE FROM {vec_table(dim, view)} WHERE rowid {ids_in}", part)

    # -- maintenance -------------------------------------------------------------------------
    def clear_fact_context(self, bank_id: int, dim: int, fact_id: int) -> None:
        """The message a reply answered is gone: drop its context terms and its context vector."""
        conn = self._require_write()
        conn.execute(f"UPDATE {fts_table(bank_id)} SET context = '' WHERE rowid = ?", (fact_id,))
        conn.execute(f"DELETE FROM {vec_table(dim, 'context')} WHERE rowid = ?", (fact_id,))

    def compact_indexes(self, bank_id: int) -> None:
        """Make deleted terms leave the bank's FTS index, not just get masked. FTS5 records a delete
        as a tombstone beside the entry it hides, and merging segments drops the pair only when the
        result is the oldest segment — a bank whose deletes were merged into one segment keeps both,
        and ``optimize`` then has nothing to merge. ``secure-delete`` (SQLite 3.42+, kept in the
        table's config) removes an entry when its row goes, and one ``rebuild`` clears what earlier
        deletes left; without secure-delete, each erasure rebuilds."""
        table = fts_table(bank_id)
        conn = self._require_write()
        secure = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'secure-delete'").fetchone()
        if secure is None or not int(secure[0]):
            try:
                conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)")
            except sqlite_module().OperationalError:  # before SQLite 3.42: no secure-delete, every erasure rebuilds
                conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
                return
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")  # what earlier deletes left
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")

    # -- channels ----------------------------------------------------------------------------
    def keyword_search(self, bank_id: int, terms: Sequence[str], limit: int,
                       context_weight: float = 0.0, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Okapi BM25 (FTS5 ``bm25()``), best first; scores returned positive (higher = better).

        The ``context`` column (terms of the message a fact answers) counts ``context_weight`` times
        as much as the fact's own terms; at 0 it is not searched at all. BM25's statistics stay the
        bank's under a ``scope`` filter (as in the PostgreSQL store)."""
        query = _fts_query(terms)
        if not query:
            return []
        table = fts_table(bank_id)
        if context_weight <= 0:
            query = "terms : (" + query + ")"
        in_scope, scope_params = _facts_in_scope(scope, bank_id)
        rows = self._conn().execute(
            f"SELECT rowid, bm25({table}, 1.0, ?) AS s FROM {table} WHERE {table} MATCH ?{in_scope} ORDER BY s LIMIT ?",
            (float(context_weight), query, *scope_params, limit),
        ).fetchall()
        return [(int(r[0]), -float(r[1])) for r in rows]

    def vector_search(self, bank_id: int, dim: int, vector: np.ndarray, limit: int,
                      view: str = "fact", scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Cosine KNN within the bank's partition (and ``scope``); returns (fact id, cosine similarity), best first."""
        in_scope, scope_params = _facts_in_scope(scope, bank_id)
        rows = self._conn().execute(
            f"SELECT rowid, distance FROM {vec_table(dim, view)} WHERE embedding MATCH ? AND k = ? AND bank_id = ?"
            f"{in_scope} ORDER BY distance",
            (_blob(vector), int(limit), bank_id, *scope_params),
        ).fetchall()
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    def vectors_sample(self, bank_id: int, dim: int, limit: int) -> np.ndarray:
        rows = self._conn().execute(
            f"SELECT embedding FROM {vec_table(dim)} WHERE bank_id = ? LIMIT ?", (bank_id, limit)
        ).fetchall()
        if not rows:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])

    def vectors_of(self, dim: int, fact_ids: Sequence[int], view: str = "fact") -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for ids_in, part in self._dialect.in_parts(fact_ids):
            for rowid, blob in self._conn().execute(
                f"SELECT rowid, embedding FROM {vec_table(dim, view)} WHERE rowid {ids_in}", part
            ):
                out[int(rowid)] = np.frombuffer(blob, dtype=np.float32)
        return out
