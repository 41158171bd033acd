"""``store.slots``: profile slots, written once for both stores: the typed facts a person states (name, birthday,
allergy, job, city, family, ...), one row per (fact, holder, slot, value).

A row points at the fact that says it and goes with it (``ON DELETE CASCADE``): an erased fact
leaves no slot behind. Rows are only added; which value is current is decided when they are read,
in the order they were said (gieok.engine.slots).
"""

from __future__ import annotations

from collections.abc import Sequence

from gieok.records import ScopeFilter, SlotRow
from gieok.store._area import Area
from gieok.store._scopes import sources_in_scope

__all__ = ["SQLSlots"]


_COLUMNS = "fact_id, person, holder, slot, value, relation, negated, said_at"


class SQLSlots(Area):
    """Profile slots (person, slot, value) of a bank."""

    def add(self, bank_id: int, rows: Sequence[SlotRow]) -> None:
        """Store slot rows (a row already there is kept as it is)."""
        if not rows:
            return
        self._require_write().executemany(
            f"INSERT INTO profile_slots (bank_id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (bank_id, fact_id, holder, slot, value) DO NOTHING",
            [(bank_id, r.fact_id, r.person, r.holder, r.slot, r.value, r.relation, bool(r.negated), r.said_at)
             for r in rows])

    def people(self, bank_id: int, scope: ScopeFilter | None = None) -> list[tuple[str | None, str]]:
        """Who stated something about themselves, as ``(user id, person)``: the one with the most
        distinct slots first, then in the order they first spoke (rows of archived facts, and out of
        ``scope``, left out) — the order ``gieok.engine.slots`` gives profiles, counted in SQL so a
        question about one slot reads no other slot's rows."""
        in_scope, scope_args = sources_in_scope(scope, bank_id, "f.source_id")
        rows = self._conn().execute(
            "SELECT s.user_id, p.person FROM profile_slots p JOIN facts f ON f.id = p.fact_id "
            "JOIN sources s ON s.id = f.source_id "
            f"WHERE p.bank_id = ? AND f.archived_at IS NULL{in_scope} GROUP BY s.user_id, p.person "
            "ORDER BY COUNT(DISTINCT p.holder || '|' || p.slot) DESC, MIN(p.said_at), MIN(p.fact_id)",
            [bank_id, *scope_args]).fetchall()
        return [(None if r[0] is None else str(r[0]), str(r[1])) for r in rows]

    def all(self, bank_id: int, person: str | None = None, slot: str | None = None,
            holder: str | None = None, scope: ScopeFilter | None = None) -> list[SlotRow]:
        """A bank's slot rows (of one person / slot / holder, and of facts in ``scope``, when given),
        oldest said first; rows of archived facts are left out."""
        where, args = ["p.bank_id = ?", "f.archived_at IS NULL"], [bank_id]
        for column, value in (("person", person), ("slot", slot), ("holder", holder)):
            if value is not None:
                where.append(f"p.{column} = ?")
                args.append(value)  # type: ignore[arg-type]
        in_scope, scope_args = sources_in_scope(scope, bank_id, "f.source_id")
        rows = self._conn().execute(
            f"SELECT {', '.join('p.' + c.strip() for c in _COLUMNS.split(','))}, s.user_id FROM profile_slots p "
            f"JOIN facts f ON f.id = p.fact_id JOIN sources s ON s.id = f.source_id "
            f"WHERE {' AND '.join(where)}{in_scope} ORDER BY p.said_at, p.fact_id",
            [*args, *scope_args]).fetchall()
        return [SlotRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), r[5], bool(r[6]), float(r[7]),
                        None if r[8] is None else str(r[8])) for r in rows]
