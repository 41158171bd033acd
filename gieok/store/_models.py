"""``store.models``: mental models — standing questions with a stored answer — written once
for both stores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gieok.store._area import Area

__all__ = ["SQLMentalModels", "MentalModelRow"]


@dataclass(frozen=True)
class MentalModelRow:
    id: int
    bank_id: int
    name: str
    question: str
    answer: str | None
    based_on: list[str]
    refreshed_at: float | None
    created_at: float


class SQLMentalModels(Area):
    """Mental models and their answers."""

    def clear_citing(self, bank_id: int, memory_ids: set[str]) -> int:
        return self._clear_citing(self._require_write(), bank_id, memory_ids)

    def _clear_citing(self, conn: Any, bank_id: int, memory_ids: set[str]) -> int:
        cleared = 0
        for model_id, based_on in conn.execute(
            "SELECT id, based_on FROM mental_models WHERE bank_id = ? AND answer IS NOT NULL ORDER BY id", (bank_id,)
        ).fetchall():
            if set(self._dialect.from_json(based_on)) & memory_ids:
                conn.execute("UPDATE mental_models SET answer = NULL, based_on = '[]', refreshed_at = NULL "
                             "WHERE id = ?", (model_id,))
                cleared += 1
        return cleared

    def clear_answers(self, model_ids: Sequence[int]) -> int:
        conn = self._require_write()
        cleared = 0
        for ids_in, part in self._dialect.in_parts(model_ids):
            cleared += conn.execute("UPDATE mental_models SET answer = NULL, based_on = '[]', refreshed_at = NULL "
                                    f"WHERE id {ids_in}", part).rowcount
        return int(cleared)

    def _model(self, r: Any) -> MentalModelRow:
        return MentalModelRow(int(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4], self._dialect.from_json(r[5]), r[6],
                              float(r[7]))

    def save(self, bank_id: int, name: str, question: str) -> int:
        conn = self._require_write()
        conn.execute("INSERT INTO mental_models (bank_id, name, question, created_at) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (bank_id, name) DO UPDATE SET question = excluded.question, answer = NULL, "
                     "based_on = '[]', refreshed_at = NULL", (bank_id, name, question, time.time()))
        return int(conn.execute("SELECT id FROM mental_models WHERE bank_id = ? AND name = ?",
                                (bank_id, name)).fetchone()[0])

    def set_answer(self, model_id: int, answer: str, based_on: Sequence[str], at: float) -> None:
        self._require_write().execute(
            "UPDATE mental_models SET answer = ?, based_on = ?, refreshed_at = ? WHERE id = ?",
            (answer, json.dumps(list(based_on)), at, model_id))

    def all(self, bank_id: int) -> list[MentalModelRow]:
        rows = self._conn().execute(
            "SELECT id, bank_id, name, question, answer, based_on, refreshed_at, created_at FROM mental_models "
            f"WHERE bank_id = ? ORDER BY name{self._dialect.bytewise}", (bank_id,)).fetchall()
        return [self._model(r) for r in rows]

    def delete(self, bank_id: int, name: str) -> int:
        return int(self._require_write().execute(
            "DELETE FROM mental_models WHERE bank_id = ? AND name = ?", (bank_id, name)).rowcount)
