"""The SQL the two stores spell differently, so that everything else is written once.

The store's areas (``store.banks``, ``store.facts``, ``store.jobs`` …; see :mod:`._area` and
:mod:`._base`) hold every query both stores share. They write SQLite's SQL with ``?`` placeholders
and run it on ``self._conn()`` (reads) or ``self._require_write()`` (writes, inside
``with store.write():``).
:class:`~gieok.store.sqlite.SQLiteStore` hands them its sqlite3 connections as they are;
:class:`~gieok.store.postgres.PostgresStore` hands them its psycopg connections wrapped in
:class:`~gieok.store._pg_connect.PgConnection`, which turns ``?`` into ``%s``. The few places
where the dialects really differ ask the store's ``_dialect``:

==========================  ===================================  ==========================================
what                        SQLite (:class:`Dialect`)            PostgreSQL (:class:`PostgresDialect`)
==========================  ===================================  ==========================================
membership in a list        ``IN (?, ?, …)``, 500 per statement  ``= ANY(?::bigint[])``, one array
a JSON array holds a text   ``EXISTS (… json_each(column) …)``   ``column @> jsonb_build_array(?::text)``
a JSON column read back     text, decoded with ``json.loads``    already decoded by psycopg
the id of an inserted row   ``cursor.lastrowid``                 ``… RETURNING id``
byte-wise text order        the default (BINARY)                 ``COLLATE "C"``
ISO 8601 text as a time     ``julianday(…)``                     ``gieok_instant(…)`` (see migrations)
claiming a queued row       nothing: one writer per file         ``FOR UPDATE SKIP LOCKED``
check-then-insert           nothing: one writer per file         ``pg_advisory_xact_lock(…)``
a vector as a parameter     ``?``, float32 bytes                 ``CAST(? AS vector)``, pgvector's text
==========================  ===================================  ==========================================

So shared SQL keeps to what both engines accept: ``INSERT … ON CONFLICT DO NOTHING / DO UPDATE``
(never ``INSERT OR IGNORE / REPLACE``), ``TRUE`` and ``FALSE``, ``NULL``-safe orderings spelled as
``x IS NULL, x DESC``, an explicit ``ORDER BY`` wherever an order reaches the caller, and no
literal ``%``. What is not a spelling — FTS5 against BM25 in SQL, sqlite-vec against pgvector, the
erasure proof, the migration runners — stays in each store's own modules: the ``search`` and
``erasure`` areas each store subclasses (:mod:`._search`, :mod:`._erasure`) and the migrations.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from gieok.store._pg_connect import PgConnection, vector_literal

__all__ = ["Dialect", "PostgresDialect", "VECTOR_VIEWS", "check_view"]

# a fact's own vector, and a reply's second one with the message it answers
VECTOR_VIEWS = ("fact", "context")
COPY_FROM = 8  # rows from which PostgreSQL inserts by COPY (see PostgresDialect.insert_rows)


def check_view(view: str) -> str:
    if view not in VECTOR_VIEWS:
        raise ValueError(f"vector view {view!r}: use one of {', '.join(VECTOR_VIEWS)}")
    return view


def _distinct(values: Iterable[Any], text: bool) -> list[Any]:
    # plain ints (psycopg does not adapt numpy's), each once: parts never overlap
    return list(dict.fromkeys(str(v) if text else int(v) for v in values))


class Dialect:
    """SQLite's spelling: the reference the shared SQL is written in."""

    bytewise = ""  # appended to an ORDER BY term: SQLite's default collation already compares bytes
    instant = "julianday"  # ISO 8601 text → a number that orders as the instant it names
    skip_locked = ""  # appended to a SELECT that claims a row: the file lock already serialises writers
    batch = 500  # values bound per IN (...), well under the oldest SQLite's 999-variable limit
    octets = "LENGTH(CAST({} AS BLOB))"  # a text column's size in bytes (UTF-8), not in characters
    vector = "?"  # the placeholder of a $VECTOR column's value (see vector_value)

    def in_parts(self, values: Iterable[Any], *, text: bool = False,
                 size: int | None = None) -> Iterator[tuple[str, list[Any]]]:
        """``(condition, params)`` pairs that together cover ``values``: ``f"id {condition}"`` with
        ``params`` tests membership. Nothing is yielded for no values."""
        items = _distinct(values, text)
        size = size or self.batch
        for i in range(0, len(items), size):
            part = items[i : i + size]
            yield "IN (" + ",".join("?" * len(part)) + ")", part

    def in_all(self, values: Sequence[Any], *, text: bool = False) -> tuple[str, list[Any]]:
        """One ``(condition, params)`` for a short, non-empty list (job kinds, link types)."""
        return next(self.in_parts(values, text=text, size=len(values)))

    def json_has(self, column: str, value: str = "?") -> str:
        """A condition: the JSON array in ``column`` holds the text ``value`` (a parameter or a column)."""
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE json_each.value = {value})"

    def from_json(self, value: Any) -> Any:
        # most rows hold an empty list or object (a fact's message ids, a source's tags and metadata):
        # recall reads a few hundred rows, each with three of them
        if value == "[]":
            return []
        if value == "{}":
            return {}
        return json.loads(value)

    def vector_value(self, vector: Any) -> Any:
        """A vector as the parameter of :attr:`vector` (None stays None): float32 bytes."""
        return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()

    def insert_id(self, conn: Any, query: str, params: Sequence[Any]) -> int:
        """Run an ``INSERT`` into a table with an ``id`` key; return the new row's id."""
        return int(conn.execute(query, params).lastrowid)

    def insert_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[int]:
        """Insert ``rows`` (values in ``columns``' order) into a table with an ``id`` key; return the new
        ids in order. SQLite inserts them one statement each (no round trips to save in one process)."""
        query = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        return [self.insert_id(conn, query, row) for row in rows]

    def copy_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert rows of a table without an ``id`` of its own, many at once."""
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                         rows)

    def lock(self, conn: Any, key: str) -> None:
        """Serialise writers on ``key`` until the transaction ends (a check-then-insert)."""

    def is_conflict(self, exc: BaseException) -> bool:
        """Did a statement break a unique index (two processes racing to the same row)?"""
        from gieok.store._connect import sqlite_module

        return isinstance(exc, sqlite_module().IntegrityError)

    def connection(self, raw: Any) -> Any:
        """``raw`` as the shared queries use it: sqlite3 takes ``?`` placeholders as it is."""
        return raw


class PostgresDialect(Dialect):
    """PostgreSQL's spelling, for many processes sharing one database."""

    bytewise = ' COLLATE "C"'
    octets = "OCTET_LENGTH({})"
    instant = "gieok_instant"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    vector = "CAST(? AS vector)"

    def in_parts(self, values: Iterable[Any], *, text: bool = False,
                 size: int | None = None) -> Iterator[tuple[str, list[Any]]]:
        items = _distinct(values, text)
        if items:  # one array parameter, whatever the size
            yield ("= ANY(?::text[])" if text else "= ANY(?::bigint[])"), [items]

    def json_has(self, column: str, value: str = "?") -> str:
        return f"{column} @> jsonb_build_array(({value})::text)"

    def from_json(self, value: Any) -> Any:
        return value

    def vector_value(self, vector: Any) -> Any:
        return None if vector is None else vector_literal(vector)

    def insert_id(self, conn: Any, query: str, params: Sequence[Any]) -> int:
        return int(conn.execute(query + " RETURNING id", params).fetchone()[0])

    def insert_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[int]:
        """Many rows go by ``COPY`` with ids drawn from the table's sequence first (one round trip for
        the ids, one stream for the rows, instead of a round trip per row); a few by ``INSERT``."""
        if len(rows) < COPY_FROM:
            return super().insert_rows(conn, table, columns, rows)
        ids = sorted(int(r[0]) for r in conn.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", (table, len(rows))))
        self.copy_rows(conn, table, ("id", *columns), ((i, *row) for i, row in zip(ids, rows)))
        return ids

    def copy_rows(self, conn: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def lock(self, conn: Any, key: str) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (key,))

    def is_conflict(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(exc, psycopg.errors.UniqueViolation)

    def connection(self, raw: Any) -> Any:
        return PgConnection(raw)
