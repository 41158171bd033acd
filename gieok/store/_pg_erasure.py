"""The erasure proof of the PostgreSQL store (``store.erasure`` on :class:`~gieok.store.postgres.PostgresStore`).

Erasure itself is shared with the SQLite store (:mod:`gieok.store._erasure`): the same hard
delete of the facts with everything derived from them — here their keyword rows, vectors, mentions
and links go by ``ON DELETE CASCADE`` — and the same ``[erased]`` marks in the evidence.

The proof differs in one respect. ``scan`` searches every text, JSON and bytea column of every
table in the store's schema; ``vacuum`` runs ``VACUUM (FULL)`` on those tables, which rewrites them
without the dead rows. ``file_contains`` returns nothing: a server's data files, its write-ahead log
and its base backups are not this process's to read, so the PostgreSQL proof covers the tables,
not the raw files (WAL retention and backups are the operator's erasure policy).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gieok.store._erasure import SQLErasure

if TYPE_CHECKING:
    from gieok.store.postgres import PostgresStore

__all__ = ["PostgresErasure"]


_SCANNED_TYPES = ("text", "varchar", "bpchar", "json", "jsonb", "bytea")


class PostgresErasure(SQLErasure):
    """The erasure proof over the PostgreSQL schema's tables."""

    _store: PostgresStore

    def _scanned_columns(self, conn: Any) -> list[tuple[str, str, str]]:
        """(table, column, type) of every text, JSON and bytea column of the schema's tables."""
        rows = conn.execute(
            "SELECT c.relname, a.attname, t.typname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid "
            "JOIN pg_type t ON t.oid = a.atttypid "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'm') AND a.attnum > 0 "
            "AND NOT a.attisdropped AND t.typname = ANY(%s::text[]) ORDER BY c.relname, a.attnum",
            (list(_SCANNED_TYPES),),
        ).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]

    def scan(self, needles: Sequence[str]) -> list[dict[str, Any]]:
        """Where any needle still appears: every text, JSON and bytea column (as UTF-8 bytes) of every
        table in the store's schema, keyword and vector tables included. Returns [{needle, table, column, rows}]."""
        from psycopg import sql

        needles = list(needles)
        if not needles:
            return []
        conn = self._conn()
        found: list[dict[str, Any]] = []
        for table, column, typ in self._scanned_columns(conn):
            col = sql.Identifier(column)
            if typ == "bytea":
                test = sql.SQL("position(convert_to({n}, 'UTF8') IN {c}) > 0")
            else:
                test = sql.SQL("strpos({c}::text, {n}) > 0")
            counts = sql.SQL(", ").join(
                sql.SQL("count(*) FILTER (WHERE {})").format(test.format(c=col, n=sql.Literal(n))) for n in needles)
            row = conn.execute(sql.SQL("SELECT {} FROM {}").format(counts, sql.Identifier(table))).fetchone()
            for needle, n in zip(needles, row):
                if n:
                    found.append({"needle": needle, "table": table, "column": column, "rows": int(n)})
        return found

    def _schema_words(self) -> Iterator[str]:
        """Names of the schema's tables and columns, and the keyword table's field names."""
        conn = self._conn()
        yield " ".join(f"{t} {c}" for t, c, _typ in self._scanned_columns(conn))
        yield " ".join(str(r[0]) for r in conn.execute("SELECT DISTINCT field FROM fact_terms").fetchall())

    def checkpoint(self) -> bool:
        """Nothing this process can do: the server's write-ahead log is recycled by the server
        (see the module docstring and the README on what VACUUM removes). Always True."""
        return True

    def vacuum(self) -> None:
        """``VACUUM (FULL)`` every table of the schema: rewritten without dead rows, so erased text is
        no longer in the table files. Runs outside any transaction, on the write connection."""
        from psycopg import sql

        with self._store._outside_write():
            conn = self._store._writer_connection()
            tables = [str(r[0]) for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname")]
            if tables:
                conn.execute(sql.SQL("VACUUM (FULL) {}").format(sql.SQL(", ").join(map(sql.Identifier, tables))))

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Always empty: the PostgreSQL proof covers the tables (:meth:`scan` after :meth:`vacuum`),
        not the server's raw data files or WAL, which this process cannot read."""
        return []
