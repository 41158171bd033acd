"""The base of a store's areas: each area is one class holding the store it belongs to.

An area (``store.banks``, ``store.facts``, ``store.jobs`` …; the protocols are in
:mod:`gieok.store.protocol`) runs its queries on the store's connections: ``self._conn()`` for reads
(inside a write block, the writer's own connection) and ``self._require_write()`` for writes
(a :class:`~gieok.errors.StoreError` outside ``with store.write():``). The SQL is written once, in
SQLite's dialect with ``?`` placeholders; where the two databases spell a thing differently it asks
``self._dialect`` (see :mod:`gieok.store._dialect`). An area that needs another one goes through the
store (``self._store.graph.delete_orphans(...)``), as a caller would.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gieok.records import Scope
from gieok.store._dialect import Dialect

if TYPE_CHECKING:
    from gieok.store._base import StoreBase

__all__ = ["Area", "dumps", "utc"]


def utc(ts: float) -> datetime:
    """A stored epoch second as an aware UTC datetime."""
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def dumps(value: Any) -> str:
    """A JSON column's text (Hangul kept as it is)."""
    return json.dumps(value, ensure_ascii=False)


class Area:
    """One area of a store's tables, run on the store's connections."""

    def __init__(self, store: StoreBase) -> None:
        self._store = store

    @property
    def _dialect(self) -> Dialect:
        return self._store._dialect

    def _conn(self) -> Any:
        """A connection for reads; inside a write block, the writer's own."""
        return self._store._conn()

    def _require_write(self) -> Any:
        """The write connection; a :class:`~gieok.errors.StoreError` outside ``with store.write():``."""
        return self._store._require_write()

    def _scope(self, user_id: Any, agent_id: Any, session_id: Any, tags: Any) -> Scope:
        """A source's scope from its columns (``tags`` is a JSON array)."""
        return Scope(user_id, agent_id, session_id, tuple(self._dialect.from_json(tags) or ()))

    def _bank_dim(self, conn: Any, bank_id: int) -> int:
        """The bank's dimension as ``conn``'s transaction sees it: a reembed may have swapped the
        bank to another one since the caller read its row, and vectors must go where they are."""
        return int(conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0])
