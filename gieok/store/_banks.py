"""``store.banks``: the banks and their configuration, written once for both stores.

A bank's keyword and vector indexes are the store's own (see :mod:`gieok.store._search`), so
creating and deleting a bank call the search area's index hooks. The SQL is SQLite's, with ``?``
placeholders; the few dialect differences go through ``self._dialect`` (see
:mod:`gieok.store._dialect`). Where a caller can see an order, the query states it, so both stores
give the same answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gieok.records import BankInfo
from gieok.store._area import Area, dumps, utc

__all__ = ["SQLBanks", "Bank"]


@dataclass(frozen=True)
class Bank:
    id: int
    name: str
    embedder: str
    dim: int




class SQLBanks(Area):
    """The banks of a store: rows, summaries, configuration, deletion."""

    def get(self, name: str) -> Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE name = ?", (name,)).fetchone()
        return Bank(*row) if row else None

    def by_id(self, bank_id: int) -> Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return Bank(*row) if row else None

    def rows(self) -> list[Bank]:
        """Every bank's row (id, name, embedder, dim), by name."""
        rows = self._conn().execute(
            f"SELECT id, name, embedder, dim FROM banks ORDER BY name{self._dialect.bytewise}").fetchall()
        return [Bank(*r) for r in rows]

    def create(self, name: str, embedder: str, dim: int) -> Bank:
        conn = self._require_write()
        bank_id = self._dialect.insert_id(
            conn, "INSERT INTO banks (name, embedder, dim, created_at) VALUES (?, ?, ?, ?)",
            (name, embedder, int(dim), time.time()))
        self._store.search._create_bank_indexes(conn, bank_id, int(dim))
        return Bank(bank_id, name, embedder, int(dim))

    def all(self) -> list[BankInfo]:
        rows = self._conn().execute(
            "SELECT b.name, b.embedder, b.dim, b.created_at, "
            "(SELECT COUNT(*) FROM sources s WHERE s.bank_id = b.id), "
            "(SELECT COUNT(*) FROM facts f WHERE f.bank_id = b.id) "
            f"FROM banks b ORDER BY b.name{self._dialect.bytewise}"
        ).fetchall()
        return [BankInfo(r[0], r[1], r[2], utc(r[3]), int(r[4]), int(r[5])) for r in rows]

    def delete(self, bank_id: int) -> dict[str, int]:
        conn = self._require_write()
        bank = conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        if bank is None:
            return {}
        counts = {
            table: int(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE bank_id = ?", (bank_id,)).fetchone()[0])
            for table in ("facts", "chunks", "messages", "sources")
        }
        self._store.search._drop_bank_indexes(conn, bank_id, int(bank[0]))
        conn.execute("DELETE FROM banks WHERE id = ?", (bank_id,))  # cascades to the rest
        return counts

    def delete_if_empty(self, bank_id: int) -> bool:
        """Delete the bank only when nothing was ever written into it: no source, fact, entity,
        job, observation, mental model, metered LLM spend or configuration. True when it went."""
        conn = self._require_write()
        row = conn.execute("SELECT config FROM banks WHERE id = ?", (bank_id,)).fetchone()
        if row is None or self._dialect.from_json(row[0]):
            return False
        for table in ("sources", "facts", "entities", "jobs", "observations", "mental_models", "llm_usage",
                      "session_turns"):
            if conn.execute(f"SELECT 1 FROM {table} WHERE bank_id = ? LIMIT 1", (bank_id,)).fetchone():
                return False
        self.delete(bank_id)
        return True

    def config(self, bank_id: int) -> dict[str, Any]:
        row = self._conn().execute("SELECT config FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return dict(self._dialect.from_json(row[0])) if row else {}

    def set_config(self, bank_id: int, config: dict[str, Any]) -> None:
        self._require_write().execute("UPDATE banks SET config = ? WHERE id = ?", (dumps(config), bank_id))

    def byte_size(self, bank_id: int, dim: int) -> int:
        """About what a bank holds, in bytes: its messages', chunks' and facts' text (UTF-8) and one
        float32 vector per fact (indexes and a reply's second vector come on top)."""
        conn, total = self._conn(), 0
        for table in ("messages", "chunks", "facts"):
            size = self._dialect.octets.format("text")
            total += int(conn.execute(f"SELECT COALESCE(SUM({size}), 0) FROM {table} WHERE bank_id = ?",
                                      (bank_id,)).fetchone()[0])
        return total + self._store.facts.count(bank_id) * dim * 4
