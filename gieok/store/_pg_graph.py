"""Entity, mention, link and time-range queries of the PostgreSQL store (mixed into PostgresStore).

Same semantics and record types as :mod:`gieok.store._graph`; lists of ids travel as one array
parameter (``= ANY(%s)``) instead of chunks of ``?`` marks. Where SQLite's order was only the
index's, an explicit ``ORDER BY`` gives the same order here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from gieok.store._graph import EntityRow
from gieok.store._pg_connect import ints

__all__ = ["PgGraphQueries"]


def _entity(r: Any) -> EntityRow:
    return EntityRow(int(r[0]), r[1], r[2], r[3], r[4], r[5], r[6])


class PgGraphQueries:
    """Needs ``_conn()`` and ``_require_write()`` from the store it is mixed into."""

    def _conn(self) -> Any: ...
    def _require_write(self) -> Any: ...

    # -- entities ----------------------------------------------------------------------------
    def entities_by_keys(self, bank_id: int, keys: Sequence[str]) -> list[EntityRow]:
        if not keys:
            return []
        rows = self._conn().execute(
            "SELECT e.id, e.canonical_name, e.kind, e.aliases, e.titles, e.cooccurring, e.last_seen FROM entities e "
            "WHERE e.id IN (SELECT k.entity_id FROM entity_keys k WHERE k.bank_id = %s AND k.key = ANY(%s::text[])) "
            "ORDER BY e.id", (bank_id, list(keys)),
        ).fetchall()
        return [_entity(r) for r in rows]

    def save_entity(self, bank_id: int, entity_id: int | None, canonical_name: str, kind: str, aliases: list[str],
                    titles: list[str], cooccurring: dict[str, int], last_seen: float | None,
                    keys: Sequence[str]) -> int:
        conn = self._require_write()
        values = (canonical_name, kind, json.dumps(aliases, ensure_ascii=False), json.dumps(titles, ensure_ascii=False),
                  json.dumps(cooccurring, ensure_ascii=False), last_seen)
        if entity_id is None:
            entity_id = int(conn.execute(
                "INSERT INTO entities (bank_id, canonical_name, kind, aliases, titles, cooccurring, last_seen) "
                "VALUES (%s, %s, %s, %s::json, %s::json, %s::json, %s) RETURNING id", (bank_id, *values),
            ).fetchone()[0])
        else:
            conn.execute(
                "UPDATE entities SET canonical_name = %s, kind = %s, aliases = %s::json, titles = %s::json, "
                "cooccurring = %s::json, last_seen = %s WHERE id = %s", (*values, entity_id),
            )
        if keys:
            conn.execute(
                "INSERT INTO entity_keys (bank_id, key, entity_id) SELECT %s, k, %s FROM unnest(%s::text[]) AS k "
                "ON CONFLICT DO NOTHING", (bank_id, entity_id, list(keys)),
            )
        return entity_id

    def recent_entity_names(self, bank_id: int, limit: int) -> list[str]:
        rows = self._conn().execute(
            "SELECT canonical_name, aliases FROM entities WHERE bank_id = %s "
            "ORDER BY last_seen DESC NULLS LAST, id DESC LIMIT %s", (bank_id, limit),
        ).fetchall()
        names: list[str] = []
        for canonical, aliases in rows:
            names.append(canonical)
            names.extend(aliases)
        return names

    def add_mentions(self, fact_id: int, mentions: Sequence[tuple[int, str]]) -> None:
        conn = self._require_write()
        if mentions:
            conn.execute(
                "INSERT INTO mentions (fact_id, entity_id, surface) SELECT %s, e, s FROM unnest(%s::bigint[], %s::text[]) "
                "AS x(e, s) ON CONFLICT DO NOTHING",
                (fact_id, ints([m[0] for m in mentions]), [m[1] for m in mentions]),
            )

    def context_degrees(self, bank_id: int, keys: Sequence[str]) -> dict[str, int]:
        if not keys:
            return {}
        rows = self._conn().execute(
            "SELECT key, degree FROM context_degrees WHERE bank_id = %s AND key = ANY(%s::text[])", (bank_id, list(keys)),
        )
        return {k: int(d) for k, d in rows}

    def bump_context_degrees(self, bank_id: int, keys: Iterable[str]) -> None:
        conn = self._require_write()
        # one row per occurrence, like SQLite's executemany: a key given twice is bumped twice
        for key in keys:
            conn.execute(
                "INSERT INTO context_degrees (bank_id, key, degree) VALUES (%s, %s, 1) "
                "ON CONFLICT (bank_id, key) DO UPDATE SET degree = context_degrees.degree + 1", (bank_id, key),
            )

    def delete_orphan_entities(self, bank_id: int) -> int:
        cur = self._require_write().execute(
            "DELETE FROM entities WHERE bank_id = %s AND NOT EXISTS "
            "(SELECT 1 FROM mentions m WHERE m.entity_id = entities.id)", (bank_id,),
        )
        return int(cur.rowcount)

    def entities_of_facts(self, fact_ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        if not fact_ids:
            return out
        for fact_id, entity_id in self._conn().execute(
            "SELECT fact_id, entity_id FROM mentions WHERE fact_id = ANY(%s::bigint[]) ORDER BY fact_id, entity_id",
            (ints(fact_ids),),
        ):
            out.setdefault(int(fact_id), []).append(int(entity_id))
        return out

    def entity_degrees(self, entity_ids: Sequence[int]) -> dict[int, int]:
        if not entity_ids:
            return {}
        rows = self._conn().execute(
            "SELECT entity_id, COUNT(*) FROM mentions WHERE entity_id = ANY(%s::bigint[]) GROUP BY entity_id",
            (ints(entity_ids),),
        )
        return {int(e): int(n) for e, n in rows}

    def facts_of_entities(self, entity_ids: Sequence[int], limit_per_entity: int) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {int(e): [] for e in entity_ids}
        if not entity_ids:
            return out
        for entity_id, fact_id in self._conn().execute(
            "SELECT entity_id, fact_id FROM (SELECT entity_id, fact_id, "
            "row_number() OVER (PARTITION BY entity_id ORDER BY fact_id DESC) AS n "
            "FROM mentions WHERE entity_id = ANY(%s::bigint[])) AS ranked WHERE n <= %s ORDER BY entity_id, n",
            (ints(entity_ids), int(limit_per_entity)),
        ):
            out[int(entity_id)].append(int(fact_id))
        return out

    def entity_names(self, entity_ids: Sequence[int]) -> dict[int, str]:
        if not entity_ids:
            return {}
        rows = self._conn().execute(
            "SELECT id, canonical_name FROM entities WHERE id = ANY(%s::bigint[])", (ints(entity_ids),))
        return {int(i): str(name) for i, name in rows}

    # -- links -------------------------------------------------------------------------------
    def add_links(self, bank_id: int, links: Sequence[tuple[int, int, str, float]]) -> None:
        conn = self._require_write()
        # one statement per link so a pair given twice ends with the last weight, like INSERT OR REPLACE
        for a, b, t, w in links:
            conn.execute(
                "INSERT INTO links (bank_id, from_fact, to_fact, type, weight) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (from_fact, to_fact, type) DO UPDATE SET bank_id = EXCLUDED.bank_id, weight = EXCLUDED.weight",
                (bank_id, int(a), int(b), t, float(w)),
            )

    def links_of(self, fact_ids: Sequence[int], types: Sequence[str] | None = None) -> list[tuple[int, int, str, float]]:
        """Links touching ``fact_ids`` in either direction, as (seed, other, type, weight)."""
        if not fact_ids:
            return []
        type_filter = " AND type = ANY(%(types)s::text[])" if types else ""
        params = {"ids": ints(fact_ids), "types": list(types or ())}
        rows = self._conn().execute(
            f"SELECT * FROM (SELECT from_fact, to_fact, type, weight FROM links "
            f"WHERE from_fact = ANY(%(ids)s::bigint[]){type_filter} ORDER BY 1, 2, 3) AS outgoing "
            f"UNION ALL SELECT * FROM (SELECT to_fact, from_fact, type, weight FROM links "
            f"WHERE to_fact = ANY(%(ids)s::bigint[]){type_filter} ORDER BY 1, 2, 3) AS incoming", params,
        ).fetchall()
        return [(int(a), int(b), str(t), float(w)) for a, b, t, w in rows]

    def recent_facts_of_source(self, source_id: int, limit: int) -> list[tuple[int, float | None]]:
        rows = self._conn().execute(
            "SELECT id, mentioned_at FROM facts WHERE source_id = %s ORDER BY id DESC LIMIT %s", (source_id, limit)
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]

    # -- time --------------------------------------------------------------------------------
    def facts_in_range(self, bank_id: int, start: float, end: float, limit: int) -> list[tuple[int, float, float]]:
        """Facts whose occurred range (or, without one, the time they were said) overlaps [start, end);
        returns (fact id, range start, range end), earliest first."""
        rows = self._conn().execute(
            "SELECT id, COALESCE(occurred_start, mentioned_at) AS s, COALESCE(occurred_end, occurred_start, mentioned_at) "
            "FROM facts WHERE bank_id = %s AND COALESCE(occurred_start, mentioned_at) < %s "
            "AND COALESCE(occurred_end, occurred_start, mentioned_at) >= %s ORDER BY s, id LIMIT %s",
            (bank_id, float(end), float(start), int(limit)),
        ).fetchall()
        return [(int(r[0]), float(r[1]), float(r[2])) for r in rows]
