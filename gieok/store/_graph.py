"""Entity, mention, link and time-range queries of the SQLite store (mixed into SQLiteStore)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GraphQueries", "EntityRow"]


@dataclass(frozen=True)
class EntityRow:
    id: int
    canonical_name: str
    kind: str
    aliases: list[str]
    titles: list[str]
    cooccurring: dict[str, int]
    last_seen: float | None


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _chunks(values: Sequence[Any], size: int = 500) -> Iterable[list[Any]]:
    for i in range(0, len(values), size):
        yield list(values[i : i + size])


class GraphQueries:
    """Needs ``_conn()`` and ``_require_write()`` from the store it is mixed into."""

    def _conn(self) -> Any: ...
    def _require_write(self) -> Any: ...

    # -- entities ----------------------------------------------------------------------------
    def entities_by_keys(self, bank_id: int, keys: Sequence[str]) -> list[EntityRow]:
        if not keys:
            return []
        rows = self._conn().execute(
            "SELECT DISTINCT e.id, e.canonical_name, e.kind, e.aliases, e.titles, e.cooccurring, e.last_seen "
            f"FROM entity_keys k JOIN entities e ON e.id = k.entity_id WHERE k.bank_id = ? AND k.key IN ({_marks(len(keys))})",
            (bank_id, *keys),
        ).fetchall()
        return [EntityRow(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), json.loads(r[5]), r[6]) for r in rows]

    def save_entity(self, bank_id: int, entity_id: int | None, canonical_name: str, kind: str, aliases: list[str],
                    titles: list[str], cooccurring: dict[str, int], last_seen: float | None,
                    keys: Sequence[str]) -> int:
        conn = self._require_write()
        values = (canonical_name, kind, json.dumps(aliases, ensure_ascii=False), json.dumps(titles, ensure_ascii=False),
                  json.dumps(cooccurring, ensure_ascii=False), last_seen)
        if entity_id is None:
            cur = conn.execute(
                "INSERT INTO entities (bank_id, canonical_name, kind, aliases, titles, cooccurring, last_seen) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (bank_id, *values),
            )
            entity_id = int(cur.lastrowid)
        else:
            conn.execute(
                "UPDATE entities SET canonical_name = ?, kind = ?, aliases = ?, titles = ?, cooccurring = ?, "
                "last_seen = ? WHERE id = ?", (*values, entity_id),
            )
        conn.executemany(
            "INSERT OR IGNORE INTO entity_keys (bank_id, key, entity_id) VALUES (?, ?, ?)",
            [(bank_id, key, entity_id) for key in keys],
        )
        return entity_id

    def recent_entity_names(self, bank_id: int, limit: int) -> list[str]:
        rows = self._conn().execute(
            "SELECT canonical_name, aliases FROM entities WHERE bank_id = ? ORDER BY last_seen DESC, id DESC LIMIT ?",
            (bank_id, limit),
        ).fetchall()
        names: list[str] = []
        for canonical, aliases in rows:
            names.append(canonical)
            names.extend(json.loads(aliases))
        return names

    def add_mentions(self, fact_id: int, mentions: Sequence[tuple[int, str]]) -> None:
        self._require_write().executemany(
            "INSERT OR IGNORE INTO mentions (fact_id, entity_id, surface) VALUES (?, ?, ?)",
            [(fact_id, entity_id, surface) for entity_id, surface in mentions],
        )

    def context_degrees(self, bank_id: int, keys: Sequence[str]) -> dict[str, int]:
        if not keys:
            return {}
        rows = self._conn().execute(
            f"SELECT key, degree FROM context_degrees WHERE bank_id = ? AND key IN ({_marks(len(keys))})",
            (bank_id, *keys),
        )
        return {k: int(d) for k, d in rows}

    def bump_context_degrees(self, bank_id: int, keys: Iterable[str]) -> None:
        self._require_write().executemany(
            "INSERT INTO context_degrees (bank_id, key, degree) VALUES (?, ?, 1) "
            "ON CONFLICT (bank_id, key) DO UPDATE SET degree = degree + 1",
            [(bank_id, key) for key in keys],
        )

    def delete_orphan_entities(self, bank_id: int) -> int:
        cur = self._require_write().execute(
            "DELETE FROM entities WHERE bank_id = ? AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = entities.id)",
            (bank_id,),
        )
        return int(cur.rowcount)

    def entities_of_facts(self, fact_ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for part in _chunks(fact_ids):
            for fact_id, entity_id in self._conn().execute(
                f"SELECT fact_id, entity_id FROM mentions WHERE fact_id IN ({_marks(len(part))})", part
            ):
                out.setdefault(int(fact_id), []).append(int(entity_id))
        return out

    def entity_degrees(self, entity_ids: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        for part in _chunks(entity_ids):
            for entity_id, n in self._conn().execute(
                f"SELECT entity_id, COUNT(*) FROM mentions WHERE entity_id IN ({_marks(len(part))}) GROUP BY entity_id", part
            ):
                out[int(entity_id)] = int(n)
        return out

    def facts_of_entities(self, entity_ids: Sequence[int], limit_per_entity: int) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for entity_id in entity_ids:
            rows = self._conn().execute(
                "SELECT fact_id FROM mentions WHERE entity_id = ? ORDER BY fact_id DESC LIMIT ?",
                (entity_id, limit_per_entity),
            ).fetchall()
            out[int(entity_id)] = [int(r[0]) for r in rows]
        return out

    def entity_names(self, entity_ids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for part in _chunks(entity_ids):
            for entity_id, name in self._conn().execute(
                f"SELECT id, canonical_name FROM entities WHERE id IN ({_marks(len(part))})", part
            ):
                out[int(entity_id)] = str(name)
        return out

    # -- links -------------------------------------------------------------------------------
    def add_links(self, bank_id: int, links: Sequence[tuple[int, int, str, float]]) -> None:
        self._require_write().executemany(
            "INSERT OR REPLACE INTO links (bank_id, from_fact, to_fact, type, weight) VALUES (?, ?, ?, ?, ?)",
            [(bank_id, a, b, t, w) for a, b, t, w in links],
        )

    def links_of(self, fact_ids: Sequence[int], types: Sequence[str] | None = None) -> list[tuple[int, int, str, float]]:
        """Links touching ``fact_ids`` in either direction, as (seed, other, type, weight)."""
        out: list[tuple[int, int, str, float]] = []
        type_filter = f" AND type IN ({_marks(len(types))})" if types else ""
        for part in _chunks(fact_ids, 250):
            params = (*part, *(types or ()))
            marks = _marks(len(part))
            for a, b, t, w in self._conn().execute(
                f"SELECT from_fact, to_fact, type, weight FROM links WHERE from_fact IN ({marks}){type_filter}", params
            ):
                out.append((int(a), int(b), str(t), float(w)))
            for a, b, t, w in self._conn().execute(
                f"SELECT to_fact, from_fact, type, weight FROM links WHERE to_fact IN ({marks}){type_filter}", params
            ):
                out.append((int(a), int(b), str(t), float(w)))
        return out

    def recent_facts_of_source(self, source_id: int, limit: int) -> list[tuple[int, float | None]]:
        rows = self._conn().execute(
            "SELECT id, mentioned_at FROM facts WHERE source_id = ? ORDER BY id DESC LIMIT ?", (source_id, limit)
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]

    def vectors_sample(self, bank_id: int, dim: int, limit: int) -> np.ndarray:
        rows = self._conn().execute(
            f"SELECT embedding FROM vec_{int(dim)} WHERE bank_id = ? LIMIT ?", (bank_id, limit)
        ).fetchall()
        if not rows:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])

    def vectors_of(self, dim: int, fact_ids: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for part in _chunks(fact_ids):
            for rowid, blob in self._conn().execute(
                f"SELECT rowid, embedding FROM vec_{int(dim)} WHERE rowid IN ({_marks(len(part))})", part
            ):
                out[int(rowid)] = np.frombuffer(blob, dtype=np.float32)
        return out

    # -- time --------------------------------------------------------------------------------
    def facts_in_range(self, bank_id: int, start: float, end: float, limit: int) -> list[tuple[int, float, float]]:
        """Facts whose occurred range (or, without one, the time they were said) overlaps [start, end);
        returns (fact id, range start, range end)."""
        rows = self._conn().execute(
            "SELECT id, COALESCE(occurred_start, mentioned_at), COALESCE(occurred_end, occurred_start, mentioned_at) "
            "FROM facts WHERE bank_id = ? AND COALESCE(occurred_start, mentioned_at) < ? "
            "AND COALESCE(occurred_end, occurred_start, mentioned_at) >= ? LIMIT ?",
            (bank_id, end, start, limit),
        ).fetchall()
        return [(int(r[0]), float(r[1]), float(r[2])) for r in rows]
