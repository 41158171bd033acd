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
from collections.abc import Iterator, Sequence
from typing import Any

from gieok.errors import ConfigError, StoreBusyError
from gieok.store._connect import BUSY_TIMEOUT_S, open_connection, sqlite_module
from gieok.store._core import CoreQueries
from gieok.store._derived import DerivedQueries
from gieok.store._dialect import Dialect
from gieok.store._graph import GraphQueries
from gieok.store._keys import KeyQueries
from gieok.store._lifecycle import LifecycleQueries
from gieok.store._profile import ProfileQueries
from gieok.store._quarantine import QuarantineQueries
from gieok.store._reembed import ReembedQueries
from gieok.store._sessions import SessionQueries
from gieok.store._sqlite_search import SQLiteIndexes
from gieok.store._write_path import WritePath
from gieok.store.migrations import migrate

__all__ = ["SQLiteStore"]


def _hits(table: str, column: str, values: list[bytes],
          wanted: Sequence[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """The needles found in one column's values: one pass over the joined bytes per needle,
    counting rows only for the needles that are there."""
    joined = b"\x00".join(values)
    out = []
    for needle, raw in wanted:
        if raw in joined:
            out.append({"needle": needle, "table": table, "column": column,
                        "rows": sum(1 for v in values if raw in v)})
    return out


class SQLiteStore(WritePath, SQLiteIndexes, CoreQueries, GraphQueries, LifecycleQueries, DerivedQueries,
                  KeyQueries, SessionQueries, ProfileQueries, ReembedQueries,
                  QuarantineQueries):
    """The SQLite implementation of :class:`gieok.store.protocol.Store`."""

    _dialect = Dialect()

    def __init__(self, path: str) -> None:
        self.path = str(path)
        _check_path(self.path)
        self._memory = self.path == ":memory:" or self.path.startswith("file::memory:")
        self.file_backed = not self._memory
        self.ephemeral = self._memory
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

    def lock_bank(self, bank: int | str) -> None:
        """Nothing to do: BEGIN IMMEDIATE already made this the file's only writer."""

    def _begin(self) -> Any:
        self._check_open()
        try:
            self._writer.execute("BEGIN IMMEDIATE")
        except sqlite_module().OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusyError(
                    f"{self.path}: another process held the write lock for over {BUSY_TIMEOUT_S:g} s (a long "
                    "retain or a maintenance pass); nothing of this call was written: retry it, or run the "
                    "writers through one `gieok serve`") from None
            raise
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
        """Where any needle still appears: every text column of every table (FTS and vector shadow
        tables included) and every blob, as UTF-8 bytes, and the term list of every FTS index
        (``fts5vocab``). An FTS index's segments (``*_data``, ``*_idx``) store their terms
        prefix-compressed — "entire" after "enjoy" is kept as "en" + "tire" — so their bytes hold
        pieces of remaining terms that would look like other words; the index is read through its
        term list instead. Returns [{needle, table, column, rows}]."""
        conn = self._conn()
        wanted = [(n, n.encode("utf-8")) for n in dict.fromkeys(needles) if n]
        found: list[dict[str, Any]] = []
        indexes = self._index_terms()
        segments = {f"{t}_{part}" for t in indexes for part in ("data", "idx")}
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' "
            "ORDER BY name")]
        for table in tables:
            if table in segments:
                continue
            for column in [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]:
                values = [v.encode("utf-8") if isinstance(v, str) else bytes(v)
                          for (v,) in conn.execute(f'SELECT "{column}" FROM "{table}"')
                          if isinstance(v, (str, bytes, memoryview))]
                found += _hits(table, column, values, wanted)
        for table, terms in indexes.items():
            found += _hits(f"{table} (index terms)", "term", [t.encode("utf-8") for t in terms], wanted)
        return found

    def _index_terms(self) -> dict[str, list[str]]:
        """Every FTS5 table's indexed terms (through a temporary ``fts5vocab`` table)."""
        conn = self._conn()
        out: dict[str, list[str]] = {}
        for (table,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5(%' "
                "ORDER BY name").fetchall():
            vocab = f"gieok_vocab_{table}"
            conn.execute(f'CREATE VIRTUAL TABLE IF NOT EXISTS temp."{vocab}" USING fts5vocab(main, "{table}", row)')
            try:
                out[table] = [str(r[0]) for r in conn.execute(f'SELECT term FROM temp."{vocab}"')]
            finally:
                conn.execute(f'DROP TABLE temp."{vocab}"')
        return out

    def _schema_words(self) -> Iterator[str]:
        """The schema (``sqlite_master``) and what FTS5 and sqlite-vec keep about their tables
        (``*_config``, ``*_info``, ``sqlite_sequence``): words of the file that are no one's text."""
        conn = self._conn()
        yield " ".join(str(v) for r in conn.execute("SELECT name, sql FROM sqlite_master") for v in r if v)
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                     "(name LIKE '%\\_config' ESCAPE '\\' OR name LIKE '%\\_info' ESCAPE '\\' "
                                     "OR name = 'sqlite_sequence')").fetchall():
            yield " ".join(str(v) for r in conn.execute(f'SELECT * FROM "{table}"') for v in r if isinstance(v, str))

    def vacuum(self) -> None:
        """Checkpoint the WAL into the file, rebuild the file without free pages, truncate the WAL."""
        with self._outside_write():
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._writer.execute("VACUUM")
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def default_key_file(self) -> str | None:
        """Where the audit fingerprint key lives by default: a file beside the database (none for an
        in-memory one), so a copy of the database file alone cannot check guesses against the log."""
        return None if self._memory else self.path + ".key"

    def checkpoint(self) -> bool:
        """Copy the WAL into the file and truncate it, so what a transaction overwrote (PRAGMA
        secure_delete zeroed it in the new page images) is gone from both files now, not when the
        last connection closes. False when a reader kept it from completing."""
        if self._memory:
            return True
        with self._outside_write():
            busy, _log, _done = self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not busy

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Which needles appear as UTF-8 bytes in the database file or its WAL. A needle that is
        part of a term the FTS index still holds is not counted: the index stores terms
        prefix-compressed, so such pieces are in the file whatever was erased, and the term itself is
        what :meth:`scan_for` reports."""
        if self._memory:
            return []
        blobs = []
        for suffix in ("", "-wal"):
            if os.path.exists(self.path + suffix):
                with open(self.path + suffix, "rb") as handle:
                    blobs.append(handle.read())
        terms = "\x00".join(t for ts in self._index_terms().values() for t in ts)
        return [n for n in needles if any(n.encode("utf-8") in blob for blob in blobs) and n not in terms]


def _check_path(path: str) -> None:
    """Refuse, with the fix, a path SQLite could not open as a gieok database: a folder, a file in a
    folder that does not exist, or an existing file that is not an SQLite database."""
    if path == ":memory:" or path.startswith("file:"):
        return
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise ConfigError(f"{path!r} is a folder: give the database file inside it, e.g. "
                          f"{os.path.join(path, 'memories.db')!r}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ConfigError(f"the folder {parent!r} does not exist: create it (mkdir -p {parent}) or pick another path")
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as handle:
            header = handle.read(16)
        if header != b"SQLite format 3\x00":
            raise ConfigError(f"{path!r} is not a gieok database (it is not an SQLite file): pick a new file name "
                              "for the memory, e.g. memories.db")
