"""``store.observations``: consolidated observations and the facts waiting for consolidation,
written once for both stores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gieok.ids import observation_memory_id
from gieok.records import ScopeFilter
from gieok.store._area import Area
from gieok.store._scopes import source_in_scope

__all__ = ["SQLObservations", "ObservationRow"]


@dataclass(frozen=True)
class ObservationRow:
    id: int
    bank_id: int
    entity_id: int | None
    topic: str
    text: str
    fact_ids: list[int]
    history: list[dict[str, Any]]
    believed_at: float | None
    created_at: float
    updated_at: float
    tokens: int
    user_id: str | None = None  # whose facts it was written from (None: shared facts)


_OBSERVATION_COLUMNS = ("id, bank_id, entity_id, topic, text, history, believed_at, created_at, updated_at, tokens, "
                        "user_id")


def _observation_in_scope(scope: ScopeFilter | None) -> tuple[str, list[Any]]:
    """An observation is in a recall's scope only if every fact it rests on is: the condition, in SQL."""
    in_scope, params = source_in_scope(scope, "f.source_id")
    if not in_scope:
        return "", []
    return (" AND NOT EXISTS (SELECT 1 FROM observation_facts x JOIN facts f ON f.id = x.fact_id "
            f"WHERE x.observation_id = observations.id AND NOT (TRUE{in_scope}))", params)


class SQLObservations(Area):
    """Observations (and which facts are consolidated)."""

    def _observations(self, rows: Sequence[Any]) -> list[ObservationRow]:
        """Records for observation rows (``_OBSERVATION_COLUMNS``), each with the facts it rests on."""
        support: dict[int, list[int]] = {}
        for ids_in, part in self._dialect.in_parts([r[0] for r in rows]):
            for observation_id, fact_id in self._conn().execute(
                f"SELECT observation_id, fact_id FROM observation_facts WHERE observation_id {ids_in} "
                "ORDER BY observation_id, fact_id", part,
            ):
                support.setdefault(int(observation_id), []).append(int(fact_id))
        return [ObservationRow(int(r[0]), int(r[1]), r[2], str(r[3]), str(r[4]), support.get(int(r[0]), []),
                               self._dialect.from_json(r[5]), r[6], float(r[7]), float(r[8]), int(r[9]), r[10])
                for r in rows]

    def get(self, bank_id: int, ids: Sequence[int]) -> list[ObservationRow]:
        rows: list[Any] = []
        for ids_in, part in self._dialect.in_parts(ids):
            rows += self._conn().execute(
                f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE bank_id = ? AND id {ids_in}", (bank_id, *part),
            ).fetchall()
        return self._observations(sorted(rows, key=lambda r: int(r[0])))

    def all(self, bank_id: int, topic: str | None = None,
            user_id: str | None = None) -> list[ObservationRow]:
        """Every observation of the bank, or the one of ``topic`` written from ``user_id``'s facts (None:
        from shared facts)."""
        where, params = (("bank_id = ?", (bank_id,)) if topic is None else
                         ("bank_id = ? AND topic = ? AND COALESCE(user_id, '') = ?", (bank_id, topic, user_id or "")))
        return self._observations(self._conn().execute(
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE {where} ORDER BY id", params).fetchall())

    def save(self, bank_id: int, observation_id: int | None, *, entity_id: int | None, topic: str,
             text: str, fact_ids: Sequence[int], history: list[dict[str, Any]], believed_at: float | None,
             embedding: np.ndarray | None, terms: Sequence[str], tokens: int,
             user_id: str | None = None) -> int:
        conn = self._require_write()
        now = time.time()
        blob = np.asarray(embedding, dtype=np.float32).tobytes() if embedding is not None else None
        values = (entity_id, topic, text, blob, " ".join(terms), int(tokens), json.dumps(history, ensure_ascii=False),
                  believed_at)
        if observation_id is None:
            observation_id = self._dialect.insert_id(
                conn, "INSERT INTO observations (bank_id, entity_id, topic, text, embedding, terms, tokens, history, "
                "believed_at, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bank_id, *values, now, now, user_id))
        else:
            conn.execute(
                "UPDATE observations SET entity_id = ?, topic = ?, text = ?, embedding = ?, terms = ?, tokens = ?, "
                "history = ?, believed_at = ?, updated_at = ? WHERE id = ?", (*values, now, observation_id))
            conn.execute("DELETE FROM observation_facts WHERE observation_id = ?", (observation_id,))
        conn.executemany("INSERT INTO observation_facts (observation_id, fact_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                         [(observation_id, int(f)) for f in fact_ids])
        return observation_id

    def delete(self, bank_id: int, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        conn = self._require_write()
        self._store.models.clear_citing(bank_id, {observation_memory_id(i) for i in ids})
        deleted = 0
        for ids_in, part in self._dialect.in_parts(ids):
            conn.execute("UPDATE facts SET consolidated_at = NULL WHERE id IN (SELECT fact_id FROM observation_facts "
                         f"WHERE observation_id {ids_in})", part)
            deleted += conn.execute(f"DELETE FROM observations WHERE bank_id = ? AND id {ids_in}",
                                    (bank_id, *part)).rowcount
        return int(deleted)

    def of_facts(self, fact_ids: Sequence[int]) -> list[int]:
        out: set[int] = set()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            out |= {int(r[0]) for r in self._conn().execute(
                f"SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id {ids_in}", part)}
        return sorted(out)

    def vectors(self, bank_id: int,
                scope: ScopeFilter | None = None) -> tuple[list[int], np.ndarray | None]:
        # in the (bank_id, topic) index's order: the ranking breaks ties by position
        in_scope, params = _observation_in_scope(scope)
        rows = self._conn().execute(
            f"SELECT id, embedding FROM observations WHERE bank_id = ? AND embedding IS NOT NULL{in_scope} "
            f"ORDER BY topic{self._dialect.bytewise}, id", (bank_id, *params)).fetchall()
        if not rows:
            return [], None
        return [int(r[0]) for r in rows], np.stack([np.frombuffer(bytes(r[1]), dtype=np.float32) for r in rows])

    def terms(self, bank_id: int, scope: ScopeFilter | None = None) -> list[tuple[int, str]]:
        in_scope, params = _observation_in_scope(scope)
        return [(int(r[0]), str(r[1])) for r in self._conn().execute(
            f"SELECT id, terms FROM observations WHERE bank_id = ?{in_scope} ORDER BY id", (bank_id, *params))]

    def unconsolidated(self, bank_id: int, limit: int) -> list[int]:
        """Facts not yet consolidated, oldest said first; facts that failed alone are skipped."""
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = ? AND consolidated_at IS NULL AND consolidation_failed = FALSE "
            "AND valid_to IS NULL ORDER BY COALESCE(mentioned_at, created_at), id LIMIT ?", (bank_id, limit)).fetchall()
        return [int(r[0]) for r in rows]

    def mark_consolidated(self, fact_ids: Sequence[int], at: float, failed: bool = False) -> None:
        conn = self._require_write()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            if failed:
                conn.execute(f"UPDATE facts SET consolidation_failed = TRUE WHERE id {ids_in}", part)
            else:
                conn.execute(f"UPDATE facts SET consolidated_at = ? WHERE id {ids_in}", (float(at), *part))
