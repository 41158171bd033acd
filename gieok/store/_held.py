"""``store.held``: the memory quarantine's rows, written once for both stores (see ``_schema.QUARANTINE``).

A held statement is what retain would have written as a fact but held back: its text (as in the
verbatim source), speaker, message id and chunk, the trust level of where it came from, and why.
Rows hang off their source and chunk (ON DELETE CASCADE): forgetting the source takes them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from gieok.store._area import Area

__all__ = ["SQLHeld", "HeldRow"]


@dataclass(frozen=True)
class HeldRow:
    id: int
    bank_id: int
    source_id: int  # the source row
    source_external_id: str
    chunk_id: int
    message_id: str | None
    speaker: str | None
    said_at: str | None  # the message's or document's timestamp, ISO 8601, as retained
    text: str
    trust: str
    reason: str
    probability: float
    created_at: float


_COLUMNS = ("q.id, q.bank_id, q.source_id, s.external_id, q.chunk_id, q.message_id, q.speaker, q.said_at, q.text, "
            "q.trust, q.reason, q.probability, q.created_at")


def _row(r: Sequence[object]) -> HeldRow:
    return HeldRow(int(r[0]), int(r[1]), int(r[2]), str(r[3]), int(r[4]),  # type: ignore[call-overload]
                   None if r[5] is None else str(r[5]), None if r[6] is None else str(r[6]),
                   None if r[7] is None else str(r[7]), str(r[8]), str(r[9]), str(r[10]),
                   float(r[11]), float(r[12]))  # type: ignore[arg-type]


class SQLHeld(Area):
    """The quarantine: statements retain held back for review."""

    def add(self, bank_id: int, source_id: int, chunk_id: int,
            rows: Sequence[tuple[str | None, str | None, str | None, str, str, str, float]]) -> list[int]:
        """Hold statements of one chunk: (message id, speaker, said at, text, trust, reason, probability)."""
        conn, now = self._require_write(), time.time()
        return [self._dialect.insert_id(
            conn, "INSERT INTO quarantine (bank_id, source_id, chunk_id, message_id, speaker, said_at, text, trust, "
            "reason, probability, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (bank_id, source_id, chunk_id, *row[:6], float(row[6]), now)) for row in rows]

    def all(self, bank_id: int, limit: int = 1000) -> list[HeldRow]:
        """The bank's held statements, newest first."""
        rows = self._conn().execute(f"SELECT {_COLUMNS} FROM quarantine q JOIN sources s ON s.id = q.source_id "
                                    "WHERE q.bank_id = ? ORDER BY q.id DESC LIMIT ?", (bank_id, int(limit)))
        return [_row(r) for r in rows.fetchall()]

    def get(self, bank_id: int, held_id: int) -> HeldRow | None:
        r = self._conn().execute(f"SELECT {_COLUMNS} FROM quarantine q JOIN sources s ON s.id = q.source_id "
                                 "WHERE q.bank_id = ? AND q.id = ?", (bank_id, int(held_id))).fetchone()
        return _row(r) if r else None

    def drop(self, bank_id: int, held_id: int) -> int:
        cur = self._require_write().execute("DELETE FROM quarantine WHERE bank_id = ? AND id = ?",
                                            (bank_id, int(held_id)))
        return int(cur.rowcount or 0)
