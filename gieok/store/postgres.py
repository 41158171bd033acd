"""The server store: PostgreSQL with pgvector, many processes sharing one database.

Same protocol, semantics and record types as :class:`gieok.store.sqlite.SQLiteStore` — the very
same queries, in fact: the store's areas (``store.banks``, ``store.facts``, ``store.jobs`` …; see
:mod:`gieok.store._base`) are written once in SQLite's dialect and run here through
:class:`~gieok.store._pg_connect.PgConnection` and :class:`~gieok.store._dialect.PostgresDialect`.
What is PostgreSQL's own lives here (connections, per-bank locks) and in
:mod:`gieok.store._pg_search` (``store.search``: keyword BM25 and vectors),
:mod:`gieok.store._pg_erasure` (``store.erasure``'s proof) and :mod:`gieok.store._pg_migrations`.

The connections are the SQLite store's too (:mod:`gieok.store._write_path`): in each process,
writes go through one connection guarded by a lock (``with store.write():`` is one transaction;
nested blocks join the outer one); reads use one autocommit connection per thread, except inside a
write block, where the writer's own connection is used so the block sees its own rows. Across
processes PostgreSQL's row locks do what SQLite's file lock does.

The schema lives in the DSN's current schema (the first of its ``search_path``), so one database can
hold several gieok stores side by side.

    >>> from gieok import Memory                                   # doctest: +SKIP
    >>> mem = Memory(store=PostgresStore("postgresql://gieok@db/gieok"))
"""

from __future__ import annotations

from typing import Any

from gieok.store._base import StoreBase
from gieok.store._dialect import PostgresDialect
from gieok.store._pg_connect import connect, display_dsn
from gieok.store._pg_erasure import PostgresErasure
from gieok.store._pg_migrations import migrate
from gieok.store._pg_search import PostgresSearch

__all__ = ["PostgresStore"]

_BANK_LOCKS = 0x6769  # the advisory-lock namespace of gieok's per-bank write locks ('gi')


class PostgresStore(StoreBase):
    """The PostgreSQL implementation of :class:`gieok.store.protocol.Store`.

    ``dsn`` is a libpq connection string or URI. ``path`` is that DSN without its password."""

    _dialect = PostgresDialect()
    _search_area = PostgresSearch
    _erasure_area = PostgresErasure

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.path = display_dsn(dsn)
        self.file_backed = False  # the erasure proof covers tables; the server's files are not ours to scan
        self.ephemeral = False
        self._open_write_path()
        self._open_areas()
        self._writer = connect(dsn)
        try:
            migrate(self._writer)
            self.server_version = str(self._writer.execute("SHOW server_version").fetchone()[0])
        except BaseException:
            self._writer.close()
            raise

    # -- the write path (see gieok.store._write_path) ----------------------------------------
    def _open_reader(self) -> Any:
        return connect(self._dsn)

    def _writer_connection(self) -> Any:
        """The write connection, reopened if the server dropped it (a restart, an idle timeout)."""
        self._check_open()
        if self._writer.closed or self._writer.broken:
            self._writer.close()
            self._writer = connect(self._dsn)
        return self._writer

    def lock_bank(self, bank: int | str) -> None:
        """Until this transaction ends, other processes' writes that lock the bank (by id, or by name
        while creating it) wait: PostgreSQL writers run side by side, and a retain's check of what is
        stored must not race another's."""
        conn = self._writer_connection()
        if isinstance(bank, str):
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_BANK_LOCKS + 1, bank))
        else:
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_BANK_LOCKS, int(bank)))

    def _begin(self) -> Any:
        conn = self._writer_connection()
        conn.execute("BEGIN")
        return conn

    def _rollback(self, conn: Any) -> None:
        import psycopg

        try:
            conn.execute("ROLLBACK")
        except psycopg.Error:
            # the connection died with the block: its transaction is gone with it, and the block's
            # own exception is the one to report; the next write reconnects
            conn.close()
