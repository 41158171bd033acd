"""``store.graph``: entities, mentions, links and context degrees, written once for both stores.

Entity links are not stored: the ``mentions`` table answers them. Links between facts (temporal,
semantic, causal) are rows of ``links``. The channel queries take recall's scope filter and apply it
in SQL (see :mod:`gieok.store._scopes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gieok.records import ScopeFilter
from gieok.store._area import Area, dumps
from gieok.store._scopes import source_in_scope

__all__ = ["SQLGraph", "EntityRow"]


@dataclass(frozen=True)
class EntityRow:
    id: int
    canonical_name: str
    kind: str
    aliases: list[str]
    titles: list[str]
    cooccurring: dict[str, int]
    last_seen: float | None



class SQLGraph(Area):
    """Entities, mentions, fact links and context degrees."""

    def entities_by_keys(self, bank_id: int, keys: Sequence[str]) -> list[EntityRow]:
        found: dict[int, EntityRow] = {}
        load = self._dialect.from_json
        for keys_in, part in self._dialect.in_parts(keys, text=True):
            for r in self._conn().execute(
                "SELECT id, canonical_name, kind, aliases, titles, cooccurring, last_seen FROM entities WHERE id IN "
                f"(SELECT entity_id FROM entity_keys WHERE bank_id = ? AND key {keys_in}) ORDER BY id",
                (bank_id, *part),
            ):
                found[int(r[0])] = EntityRow(int(r[0]), r[1], r[2], load(r[3]), load(r[4]), load(r[5]), r[6])
        return [found[i] for i in sorted(found)]

    def entity_key_index(self, bank_id: int, keys: Sequence[str]) -> dict[str, tuple[int, ...]]:
        """Each of ``keys`` that names an entity, with the ids it names (ascending)."""
        found: dict[str, list[int]] = {}
        for keys_in, part in self._dialect.in_parts(keys, text=True):
            for key, entity_id in self._conn().execute(
                f"SELECT key, entity_id FROM entity_keys WHERE bank_id = ? AND key {keys_in}", (bank_id, *part)
            ):
                found.setdefault(key, []).append(int(entity_id))
        return {k: tuple(sorted(v)) for k, v in sorted(found.items())}

    def entities(self, bank_id: int, limit: int = 1000) -> list[tuple[EntityRow, int]]:
        """A bank's entities with the number of facts naming each, most named first."""
        load = self._dialect.from_json
        rows = self._conn().execute(
            "SELECT e.id, e.canonical_name, e.kind, e.aliases, e.titles, e.cooccurring, e.last_seen, "
            "(SELECT COUNT(*) FROM mentions m WHERE m.entity_id = e.id) AS n FROM entities e WHERE e.bank_id = ? "
            "ORDER BY n DESC, e.id LIMIT ?", (bank_id, limit)).fetchall()
        return [(EntityRow(int(r[0]), r[1], r[2], load(r[3]), load(r[4]), load(r[5]), r[6]), int(r[7])) for r in rows]

    def save_entity(self, bank_id: int, entity_id: int | None, canonical_name: str, kind: str, aliases: list[str],
                    titles: list[str], cooccurring: dict[str, int], last_seen: float | None,
                    keys: Sequence[str]) -> int:
        conn = self._require_write()
        values = (canonical_name, kind, dumps(aliases), dumps(titles), dumps(cooccurring), last_seen)
        if entity_id is None:
            entity_id = self._dialect.insert_id(
                conn, "INSERT INTO entities (bank_id, canonical_name, kind, aliases, titles, cooccurring, last_seen) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (bank_id, *values))
        else:
            conn.execute(
                "UPDATE entities SET canonical_name = ?, kind = ?, aliases = ?, titles = ?, cooccurring = ?, "
                "last_seen = ? WHERE id = ?", (*values, entity_id),
            )
        conn.executemany(
            "INSERT INTO entity_keys (bank_id, key, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(bank_id, key, entity_id) for key in keys],
        )
        return entity_id

    def recent_entity_names(self, bank_id: int, limit: int) -> list[str]:
        rows = self._conn().execute(
            "SELECT canonical_name, aliases FROM entities WHERE bank_id = ? "
            "ORDER BY last_seen IS NULL, last_seen DESC, id DESC LIMIT ?", (bank_id, limit),
        ).fetchall()
        names: list[str] = []
        for canonical, aliases in rows:
            names.append(canonical)
            names.extend(self._dialect.from_json(aliases))
        return names

    def add_mentions(self, fact_id: int, mentions: Sequence[tuple[int, str]]) -> None:
        self._require_write().executemany(
            "INSERT INTO mentions (fact_id, entity_id, surface) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(fact_id, int(entity_id), surface) for entity_id, surface in mentions],
        )

    def context_degrees(self, bank_id: int, keys: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for keys_in, part in self._dialect.in_parts(keys, text=True):
            for key, degree in self._conn().execute(
                f"SELECT key, degree FROM context_degrees WHERE bank_id = ? AND key {keys_in}", (bank_id, *part)
            ):
                out[key] = int(degree)
        return out

    def bump_context_degrees(self, bank_id: int, keys: Iterable[str]) -> None:
        # one row per occurrence: a key given twice is bumped twice
        self._require_write().executemany(
            "INSERT INTO context_degrees (bank_id, key, degree) VALUES (?, ?, 1) "
            "ON CONFLICT (bank_id, key) DO UPDATE SET degree = context_degrees.degree + 1",
            [(bank_id, key) for key in keys],
        )

    def delete_orphans(self, bank_id: int) -> int:
        cur = self._require_write().execute(
            "DELETE FROM entities WHERE bank_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = entities.id)",
            (bank_id,),
        )
        return int(cur.rowcount)

    def entities_by_ids(self, bank_id: int, entity_ids: Sequence[int]) -> list[EntityRow]:
        found: dict[int, EntityRow] = {}
        load = self._dialect.from_json
        for ids_in, part in self._dialect.in_parts(entity_ids):
            for r in self._conn().execute(
                "SELECT id, canonical_name, kind, aliases, titles, cooccurring, last_seen FROM entities "
                f"WHERE bank_id = ? AND id {ids_in}", (bank_id, *part),
            ):
                found[int(r[0])] = EntityRow(int(r[0]), r[1], r[2], load(r[3]), load(r[4]), load(r[5]), r[6])
        return [found[i] for i in sorted(found)]

    def set_entity_keys(self, bank_id: int, entity_id: int, keys: Sequence[str]) -> None:
        """Replace the entity's index keys with ``keys`` (``store.graph.save_entity`` only ever adds keys)."""
        conn = self._require_write()
        conn.execute("DELETE FROM entity_keys WHERE entity_id = ?", (entity_id,))
        conn.executemany(
            "INSERT INTO entity_keys (bank_id, key, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(bank_id, key, entity_id) for key in dict.fromkeys(keys)],
        )

    def mentions(self, fact_ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(fact id, entity id, surface) of the facts' resolved mentions, by fact then entity."""
        out: list[tuple[int, int, str]] = []
        for ids_in, part in self._dialect.in_parts(fact_ids):
            out += [(int(f), int(e), str(s)) for f, e, s in self._conn().execute(
                f"SELECT fact_id, entity_id, surface FROM mentions WHERE fact_id {ids_in} "
                "ORDER BY fact_id, entity_id", part)]
        return sorted(out)

    def adjust_context_degrees(self, bank_id: int, deltas: dict[str, int]) -> None:
        """Add ``deltas`` (negative to take facts back) to the keys' degrees; a degree left at 0 or
        below is deleted with its key."""
        conn = self._require_write()
        conn.executemany("UPDATE context_degrees SET degree = degree + ? WHERE bank_id = ? AND key = ?",
                         [(int(d), bank_id, key) for key, d in deltas.items() if d])
        conn.execute("DELETE FROM context_degrees WHERE bank_id = ? AND degree <= 0", (bank_id,))

    def delete_context_degrees(self, bank_id: int, keys: Sequence[str]) -> None:
        for keys_in, part in self._dialect.in_parts(keys, text=True):
            self._require_write().execute(
                f"DELETE FROM context_degrees WHERE bank_id = ? AND key {keys_in}", (bank_id, *part))

    def context_degree_keys(self, bank_id: int) -> list[str]:
        return [str(r[0]) for r in self._conn().execute(
            f"SELECT key FROM context_degrees WHERE bank_id = ? ORDER BY key{self._dialect.bytewise}", (bank_id,))]

    def entities_of_facts(self, fact_ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for ids_in, part in self._dialect.in_parts(fact_ids):
            for fact_id, entity_id in self._conn().execute(
                f"SELECT fact_id, entity_id FROM mentions WHERE fact_id {ids_in} ORDER BY fact_id, entity_id", part
            ):
                out.setdefault(int(fact_id), []).append(int(entity_id))
        return out

    def entity_degrees(self, entity_ids: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        for ids_in, part in self._dialect.in_parts(entity_ids):
            for entity_id, n in self._conn().execute(
                f"SELECT entity_id, COUNT(*) FROM mentions WHERE entity_id {ids_in} GROUP BY entity_id", part
            ):
                out[int(entity_id)] = int(n)
        return out

    def facts_of_entities(self, entity_ids: Sequence[int], limit_per_entity: int,
                          scope: ScopeFilter | None = None) -> dict[int, list[int]]:
        """Each entity's latest ``limit_per_entity`` facts (in ``scope``), newest first (one ranked query
        per list part)."""
        out: dict[int, list[int]] = {int(e): [] for e in entity_ids}
        in_scope, scope_params = source_in_scope(scope, "f.source_id")
        facts_join = " JOIN facts f ON f.id = m.fact_id" if in_scope else ""
        for ids_in, part in self._dialect.in_parts(entity_ids):
            for entity_id, fact_id in self._conn().execute(
                "SELECT entity_id, fact_id FROM (SELECT m.entity_id, m.fact_id, "
                "row_number() OVER (PARTITION BY m.entity_id ORDER BY m.fact_id DESC) AS n "
                f"FROM mentions m{facts_join} WHERE m.entity_id {ids_in}{in_scope}) AS ranked WHERE n <= ? "
                "ORDER BY entity_id, n",
                (*part, *scope_params, int(limit_per_entity)),
            ):
                out[int(entity_id)].append(int(fact_id))
        return out

    def entity_names(self, entity_ids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for ids_in, part in self._dialect.in_parts(entity_ids):
            for entity_id, name in self._conn().execute(
                f"SELECT id, canonical_name FROM entities WHERE id {ids_in}", part
            ):
                out[int(entity_id)] = str(name)
        return out

    def add_links(self, bank_id: int, links: Sequence[tuple[int, int, str, float]]) -> None:
        # a pair given again (or twice here) ends with the last weight
        self._require_write().executemany(
            "INSERT INTO links (bank_id, from_fact, to_fact, type, weight) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (from_fact, to_fact, type) DO UPDATE SET bank_id = excluded.bank_id, weight = excluded.weight",
            [(bank_id, int(a), int(b), t, float(w)) for a, b, t, w in links],
        )

    def links_of(self, fact_ids: Sequence[int], types: Sequence[str] | None = None,
                 scope: ScopeFilter | None = None) -> list[tuple[int, int, str, float]]:
        """Links touching ``fact_ids`` in either direction, as (seed, other, type, weight):
        the outgoing ones, then the incoming ones, each ordered by (seed, other, type); under
        ``scope``, only links whose other end is in scope."""
        type_filter = ""
        type_params: list[Any] = []
        if types:
            types_in, type_params = self._dialect.in_all(types, text=True)
            type_filter = f" AND type {types_in}"
        out: list[tuple[int, int, str, float]] = []
        for ids_in, part in self._dialect.in_parts(fact_ids, size=250):
            for seed, other in (("from_fact", "to_fact"), ("to_fact", "from_fact")):
                in_scope, scope_params = source_in_scope(
                    scope, f"(SELECT f.source_id FROM facts f WHERE f.id = links.{other})")
                for a, b, t, w in self._conn().execute(
                    f"SELECT {seed}, {other}, type, weight FROM links WHERE {seed} {ids_in}{type_filter}{in_scope} "
                    "ORDER BY 1, 2, 3", (*part, *type_params, *scope_params),
                ):
                    out.append((int(a), int(b), str(t), float(w)))
        return out
