"""One write path per store: a single write connection behind a lock, one reader per thread.

Writes go through the store's one write connection, guarded by a re-entrant lock, one transaction
per ``with store.write():`` block (nested blocks join the outer one; an exception rolls the block
back and is re-raised as it was). Reads use one connection per thread, opened on first use, so they
run beside the writer (SQLite's WAL, PostgreSQL's MVCC); inside a write block the writer's own
connection is used, so the block sees its own rows. Every connection handed to the shared queries
goes through ``_dialect.connection`` (PostgreSQL's takes ``?`` placeholders that way).

Both stores are built on :class:`WritePath`; each says how to open a reader, how to begin a
transaction (``BEGIN IMMEDIATE`` on SQLite; on PostgreSQL ``BEGIN``, reconnecting first if the
server dropped the writer), and how to roll back and close.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gieok.errors import StoreError
from gieok.store._dialect import Dialect

__all__ = ["WritePath"]


class WritePath:
    """The connections of a store; call :meth:`_open_write_path` before opening the writer."""

    _dialect: Dialect
    _writer: Any
    _readers_share_writer = False  # True where there is only the one connection (in-memory SQLite)

    def _open_write_path(self) -> None:
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[Any] = []
        self._readers_lock = threading.Lock()
        self._closed = False

    # -- what each store says ----------------------------------------------------------------
    def _open_reader(self) -> Any:
        raise NotImplementedError

    def _begin(self) -> Any:
        """The write connection, in a transaction just begun."""
        raise NotImplementedError

    def _rollback(self, conn: Any) -> None:
        conn.execute("ROLLBACK")

    def _close_writer(self) -> None:
        self._writer.close()

    # -- connections -------------------------------------------------------------------------
    def _in_write(self) -> bool:
        return bool(getattr(self._local, "in_write", False))

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed; open a new Memory")

    def _conn(self) -> Any:
        self._check_open()
        if self._readers_share_writer or self._in_write():
            return self._dialect.connection(self._writer)
        conn = getattr(self._local, "reader", None)
        if conn is None or getattr(conn, "closed", False):  # a PostgreSQL reader the server dropped
            conn = self._open_reader()
            self._local.reader = conn
            with self._readers_lock:
                self._readers.append(conn)
        return self._dialect.connection(conn)

    def _require_write(self) -> Any:
        if not self._in_write():
            raise StoreError("store writes must run inside `with store.write():`")
        return self._dialect.connection(self._writer)

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction on the single write path; nested blocks join the outer one."""
        with self._write_lock:
            if self._in_write():
                yield
                return
            conn = self._begin()
            self._local.in_write = True
            try:
                yield
            except BaseException:
                self._local.in_write = False
                self._rollback(conn)
                raise
            self._local.in_write = False
            conn.execute("COMMIT")

    @contextmanager
    def try_write(self) -> Iterator[bool]:
        """Like :meth:`write` when the write path is free (yields True); yields False at once when
        another thread holds it, for bookkeeping that may wait (a recall's "used" marks)."""
        if not self._write_lock.acquire(blocking=False):
            yield False
            return
        try:
            with self.write():
                yield True
        finally:
            self._write_lock.release()

    @contextmanager
    def _outside_write(self) -> Iterator[None]:
        """Hold the write path for work that cannot run in a transaction (VACUUM)."""
        with self._write_lock:
            if self._in_write():
                raise StoreError("vacuum cannot run inside `with store.write():`")
            yield

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self._write_lock:
            self._close_writer()
