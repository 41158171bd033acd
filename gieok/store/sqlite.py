"""The embedded store: one SQLite file, WAL, one write path, FTS5 BM25 and sqlite-vec KNN.

Writes go through a single connection guarded by a lock, in ``BEGIN IMMEDIATE`` transactions
(``with store.write(): ...``). Reads use one connection per thread (WAL lets them run beside a
writer); inside a write block the writer's own connection is used so the block sees its own rows.

The store's areas (``store.banks``, ``store.facts``, ``store.jobs`` …; see
:mod:`gieok.store._base`) are shared with the PostgreSQL store, written in SQLite's dialect (see
:mod:`gieok.store._dialect`). What is SQLite's own lives here — the connections — and in two
areas: ``store.search`` (:mod:`gieok.store._sqlite_search`: the per-bank FTS5 and per-dimension
sqlite-vec tables) and ``store.erasure`` (:mod:`gieok.store._sqlite_erasure`: the proof over the
file's bytes).
"""

from __future__ import annotations

import os
import time
from typing import Any

from gieok.errors import ConfigError, StoreBusyError
from gieok.store._base import StoreBase
from gieok.store._connect import BUSY_TIMEOUT_S, open_connection, sqlite_module
from gieok.store._dialect import Dialect
from gieok.store._sqlite_erasure import SQLiteErasure
from gieok.store._sqlite_search import SQLiteSearch
from gieok.store.migrations import migrate

__all__ = ["SQLiteStore"]


def _into_wal(conn: Any) -> None:
    """Switch the file to WAL. Two processes opening a new file at once can find it locked here: the
    switch needs the file to themselves and SQLite answers "locked" at once instead of waiting on
    the busy timeout, so it is retried until the timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite_module().OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SQLiteStore(StoreBase):
    """The SQLite implementation of :class:`gieok.store.protocol.Store`."""

    _dialect = Dialect()
    _search_area = SQLiteSearch
    _erasure_area = SQLiteErasure

    def __init__(self, path: str) -> None:
        self.path = str(path)
        _check_path(self.path)
        self._memory = self.path == ":memory:" or self.path.startswith("file::memory:")
        self.file_backed = not self._memory
        self.ephemeral = self._memory
        self._readers_share_writer = self._memory  # each connection to :memory: is a new database
        self._open_write_path()
        self._open_areas()
        self._writer = open_connection(self.path)
        try:
            if not self._memory:
                _into_wal(self._writer)
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
