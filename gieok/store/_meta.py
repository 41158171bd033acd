"""``store.meta``: the store's own key/value rows (the fingerprint salt and the like), written
once for both stores.
"""

from __future__ import annotations

from gieok.store._area import Area

__all__ = ["SQLMeta"]


class SQLMeta(Area):
    """The ``meta`` table: read, set once, delete."""

    def get(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def claim(self, key: str, value: str) -> str:
        """Set a meta row unless one is there (inside a write); the value that stands, whoever set it."""
        conn = self._require_write()
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value))
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0])

    def delete(self, key: str) -> bool:
        """Remove a meta row (inside a write); True when there was one."""
        cursor = self._require_write().execute("DELETE FROM meta WHERE key = ?", (key,))
        return bool(cursor.rowcount)
