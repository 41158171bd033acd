"""The erasure proof of the SQLite store (``store.erasure`` on :class:`~gieok.store.sqlite.SQLiteStore`).

Erasure itself is shared with the PostgreSQL store (:mod:`gieok.store._erasure`). What proves it
here: PRAGMA secure_delete (set on every connection) zeroes the freed pages, an FTS ``optimize``
(``store.search.compact``) merges away the index segments that still held the erased terms, and
sqlite-vec zeroes a deleted vector's slot; :meth:`SQLiteErasure.scan` and
:meth:`SQLiteErasure.file_contains` then show what is left, in the tables and in the file's bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from gieok.store._erasure import SQLErasure

__all__ = ["SQLiteErasure"]


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


class SQLiteErasure(SQLErasure):
    """The erasure proof over the SQLite file: every column, every FTS term list, the file's bytes."""

    # PRAGMA secure_delete (set on every connection) zeroes the freed pages, an FTS ``optimize``
    # (compact_indexes) merges away the index segments that still held the erased terms, and
    # sqlite-vec zeroes a deleted vector's slot; these prove what is left.
    def scan(self, needles: Sequence[str]) -> list[dict[str, Any]]:
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
        with self._store._outside_write():
            self._store._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._store._writer.execute("VACUUM")
            self._store._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def checkpoint(self) -> bool:
        """Copy the WAL into the file and truncate it, so what a transaction overwrote (PRAGMA
        secure_delete zeroed it in the new page images) is gone from both files now, not when the
        last connection closes. False when a reader kept it from completing."""
        if self._store.ephemeral:
            return True
        with self._store._outside_write():
            busy, _log, _done = self._store._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not busy

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Which needles appear as UTF-8 bytes in the database file or its WAL. A needle that is
        part of a term the FTS index still holds is not counted: the index stores terms
        prefix-compressed, so such pieces are in the file whatever was erased, and the term itself is
        what :meth:`scan` reports."""
        if self._store.ephemeral:
            return []
        blobs = []
        for suffix in ("", "-wal"):
            if os.path.exists(self._store.path + suffix):
                with open(self._store.path + suffix, "rb") as handle:
                    blobs.append(handle.read())
        terms = "\x00".join(t for ts in self._index_terms().values() for t in ts)
        return [n for n in needles if any(n.encode("utf-8") in blob for blob in blobs) and n not in terms]
