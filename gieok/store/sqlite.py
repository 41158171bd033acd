"""The embedded store: one SQLite file, WAL, one write path, FTS5 BM25 and sqlite-vec KNN.

Writes go through a single connection guarded by a lock, in ``BEGIN IMMEDIATE`` transactions
(``with store.write(): ...``). Reads use one connection per thread (WAL lets them run beside a
writer); inside a write block the writer's own connection is used so the block sees its own rows.

The queries are shared with the PostgreSQL store (:mod:`gieok.store._core`, ``_graph``,
``_lifecycle``, ``_derived``, written in SQLite's dialect; see :mod:`gieok.store._dialect`). What is
SQLite's own lives here and in :mod:`gieok.store._sqlite_search`: the connections, the per-bank FTS5
and per-dimension sqlite-vec tables, and the erasure proof over the file's bytes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from gieok.store._connect import open_connection, sqlite_module
from gieok.store._core import CoreQueries
from gieok.store._derived import DerivedQueries
from gieok.store._dialect import Dialect
from gieok.store._graph import GraphQueries
from gieok.store._keys import KeyQueries
from gieok.store._lifecycle import LifecycleQueries
from gieok.store._sqlite_search import SQLiteIndexes
from gieok.store._write_path import WritePath
from gieok.store.migrations import migrate

__all__ = ["SQLiteStore"]


class SQLiteStore(WritePath, SQLiteIndexes, CoreQueries, GraphQueries, LifecycleQueries, DerivedQueries,
                  KeyQueries):
    """The SQLite implementation of :class:`gieok.store.protocol.Store`."""

    _dialect = Dialect()

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self._memory = self.path == ":memory:" or self.path.startswith("file::memory:")
        self.file_backed = not self._memory
        self._readers_share_writer = self._memory  # each connection to :memory: is a new database
        self._open_write_path()
        self._writer = open_connection(self.path)
        try:
            if not self._memory:
                self._writer.execute("PRAGMA journal_mode = WAL")
                self._writer.execute("PRAGMA synchronous = NORMAL")
            migrate(self._writer)
        except Exception:
            self._writer.close()
            raise
        self.sqlite_version = sqlite_module().sqlite_version

    # -- the write path (see gieok.store._write_path) ----------------------------------------
    def _open_reader(self) -> Any:
        return open_connection(self.path)

    def _begin(self) -> Any:
        self._check_open()
        self._writer.execute("BEGIN IMMEDIATE")
        return self._writer

    def _close_writer(self) -> None:
        if not self._memory:
            try:
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except Exception:  # a checkpoint is an optimisation; closing must still happen
                pass
        self._writer.close()

    # -- the erasure proof -------------------------------------------------------------------
    # PRAGMA secure_delete (set on every connection) zeroes the freed pages, an FTS ``optimize``
    # (compact_indexes) merges away the index segments that still held the erased terms, and
    # sqlite-vec zeroes a deleted vector's slot; these prove what is left.
    def scan_for(self, needles: Sequence[str]) -> list[dict[str, Any]]:
        """Where any needle still appears: every text column of every table (FTS shadow tables
        included) and every blob as UTF-8 bytes. Returns [{needle, table, column, rows}]."""
        conn = self._conn()
        found: list[dict[str, Any]] = []
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            for column in columns:
                for needle in needles:
                    n = conn.execute(
                        f'SELECT COUNT(*) FROM "{table}" WHERE instr(CAST("{column}" AS BLOB), CAST(? AS BLOB)) > 0',
                        (needle,)).fetchone()[0]
                    if n:
                        found.append({"needle": needle, "table": table, "column": column, "rows": int(n)})
        return found

    def vacuum(self) -> None:
        """Checkpoint the WAL into the file, rebuild the file without free pages, truncate the WAL."""
        with self._outside_write():
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._writer.execute("VACUUM")
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Which needles appear as UTF-8 bytes in the database file or its WAL."""
        if self._memory:
            return []
        blobs = []
        for suffix in ("", "-wal"):
            if os.path.exists(self.path + suffix):
                with open(self.path + suffix, "rb") as handle:
                    blobs.append(handle.read())
        return [n for n in needles if any(n.encode("utf-8") in blob for blob in blobs)]
