"""Every row of every table of a store, to prove a refused call wrote nothing at all (not a turn, not a
fact, not an audit row, not a summary). SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from gieok.store import SQLiteStore


def _tables(store: Any) -> list[str]:
    if isinstance(store, SQLiteStore):
        rows = store._conn().execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite_%'").fetchall()
    else:
        rows = store._conn().execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()
    return sorted(str(r[0]) for r in rows)


def snapshot(store: Any) -> dict[str, list[str]]:
    """Each table's rows, as sorted text (rows hold blobs, vectors and NULLs side by side)."""
    return {table: sorted(repr(tuple(row)) for row in store._conn().execute(f'SELECT * FROM "{table}"').fetchall())
            for table in _tables(store)}
