"""``store.versions``: versions, decay and TTL of facts, written once for both stores.

A superseded fact is closed (``valid_to``, ``superseded_by``), never deleted; its strength decays
with time and recalls refresh it; facts with an ``expires_at`` past now are due for erasure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gieok.store._area import Area

__all__ = ["SQLVersions"]


class SQLVersions(Area):
    """Supersede chains, strengths and expiry of facts."""

    def supersede(self, old_fact: int, new_fact: int, valid_to: float, reason: str) -> None:
        """Close ``old_fact`` at ``valid_to``: ``new_fact`` holds from then on. Nothing is deleted."""
        self._require_write().execute(
            "UPDATE facts SET valid_to = ?, superseded_by = ?, supersede_reason = ? WHERE id = ?",
            (valid_to, new_fact, reason, old_fact),
        )

    def chain(self, fact_id: int) -> list[int]:
        """Every version of the fact's statement, oldest first (following ``superseded_by``)."""
        conn = self._conn()
        chain = [fact_id]
        seen = {fact_id}
        current = fact_id
        while True:  # back: facts this one superseded, the latest said first
            row = conn.execute("SELECT id FROM facts WHERE superseded_by = ? "
                               "ORDER BY mentioned_at IS NULL, mentioned_at DESC, id DESC LIMIT 1",
                               (current,)).fetchone()
            if row is None or row[0] in seen:
                break
            current = int(row[0])
            seen.add(current)
            chain.insert(0, current)
        current = fact_id
        while True:  # forward: the fact that superseded this one
            row = conn.execute("SELECT superseded_by FROM facts WHERE id = ?", (current,)).fetchone()
            if row is None or row[0] is None or row[0] in seen:
                break
            current = int(row[0])
            seen.add(current)
            chain.append(current)
        return chain

    def state_of(self, fact_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Per fact: superseded_by, supersede_reason, strength, recall_count, last_recalled_at, archived_at,
        and ``supersedes`` (the ids it superseded)."""
        out: dict[int, dict[str, Any]] = {}
        conn = self._conn()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            for r in conn.execute(
                "SELECT id, superseded_by, supersede_reason, strength, recall_count, last_recalled_at, archived_at "
                f"FROM facts WHERE id {ids_in}", part,
            ):
                out[int(r[0])] = {"superseded_by": r[1], "supersede_reason": r[2], "strength": float(r[3]),
                                  "recall_count": int(r[4]), "last_recalled_at": r[5], "archived_at": r[6],
                                  "supersedes": []}
            for old, new in conn.execute(
                    f"SELECT id, superseded_by FROM facts WHERE superseded_by {ids_in} ORDER BY id", part):
                out[int(new)]["supersedes"].append(int(old))
        return out

    def touch_recalled(self, fact_ids: Sequence[int], at: float) -> None:
        """A recall used these facts: refresh their strength's clock."""
        conn = self._require_write()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            conn.execute(
                "UPDATE facts SET recall_count = recall_count + 1, last_recalled_at = ?, strength = 1.0 "
                f"WHERE id {ids_in} AND archived_at IS NULL", (float(at), *part),
            )

    def decay_rows(self, bank_id: int, after_id: int,
                   limit: int) -> list[tuple[int, str, bool, float | None, float, int, float | None]]:
        """(id, decay_class, pinned, mentioned_at, created_at, recall_count, last_recalled_at) of unarchived facts."""
        rows = self._conn().execute(
            "SELECT id, decay_class, pinned, mentioned_at, created_at, recall_count, last_recalled_at FROM facts "
            "WHERE bank_id = ? AND id > ? AND archived_at IS NULL ORDER BY id LIMIT ?", (bank_id, after_id, limit),
        ).fetchall()
        return [(int(r[0]), str(r[1]), bool(r[2]), r[3], float(r[4]), int(r[5]), r[6]) for r in rows]

    def set_strengths(self, updates: Sequence[tuple[int, float, float | None]]) -> None:
        """(fact id, strength, archived_at or None) for each fact."""
        self._require_write().executemany(
            "UPDATE facts SET strength = ?, archived_at = ? WHERE id = ?",
            [(float(s), None if a is None else float(a), int(i)) for i, s, a in updates],
        )

    def set_class(self, fact_ids: Sequence[int], decay_class: str, importance: float, pinned: bool) -> None:
        conn = self._require_write()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            conn.execute(
                "UPDATE facts SET decay_class = ?, importance = ?, pinned = ?, strength = 1.0, archived_at = NULL "
                f"WHERE id {ids_in}", (decay_class, float(importance), bool(pinned), *part),
            )

    def expired(self, bank_id: int, now: float) -> list[int]:
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = ? AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY id",
            (bank_id, float(now)),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def reasons(self, bank_id: int) -> list[tuple[int, str]]:
        """(fact id, reason) of every closed version of the bank that kept a reason."""
        return [(int(r[0]), str(r[1])) for r in self._conn().execute(
            "SELECT id, supersede_reason FROM facts WHERE bank_id = ? AND supersede_reason IS NOT NULL ORDER BY id",
            (bank_id,)).fetchall()]

    def clear_reasons(self, bank_id: int, fact_ids: Sequence[int]) -> int:
        """Forget why these versions were closed (the reason quoted erased text); they stay closed."""
        conn = self._require_write()
        return sum(int(conn.execute(f"UPDATE facts SET supersede_reason = NULL WHERE bank_id = ? AND id {ids_in}",
                                    (bank_id, *part)).rowcount) for ids_in, part in self._dialect.in_parts(fact_ids))
