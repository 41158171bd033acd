"""Entity resolution for one retain call, planned before the write lock and written under it.

Resolving a mention reads the bank's entities that share one of its name keys and the degrees of
its context keys, scores them (gieok.entities.EntityResolver), and creates or updates one entity;
the next mention of the call already sees that entity. Done mention by mention inside the write
transaction it held the lock for most of a long message's retain (≈1.9 of 2.0 s at 0.16 MB).

So it is planned outside the lock against a **snapshot**: every entity key index row, entity row
and context degree the call's mentions can reach, read once. The resolution runs in memory on that
snapshot exactly as it would on the store (entities in id order, new ones after every stored one,
in the order the call creates them; degrees bumped fact by fact). Under the lock the same snapshot
is read again: if nothing in it changed (no other writer touched those keys meanwhile) the plan is
written as it is — one save per entity, the mentions, the degree bumps; if something did, the call
is resolved again right there on a fresh snapshot, so the result is always what resolving inside
the lock would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from gieok.engine._time import from_epoch
from gieok.entities import (
    CandidateEntity,
    EntityKind,
    EntityResolver,
    candidate_keys,
    cooccurrence_key,
    entity_keys,
    preferred_canonical,
)
from gieok.records import NewFact
from gieok.store.protocol import BankRow, Store

__all__ = ["EntityPlan", "plan_entities", "write_entities"]

_RESOLVER = EntityResolver()
_NEW = 1 << 62  # placeholder ids of entities the call creates: above every stored id, in creation order


@dataclass(frozen=True)
class _Snapshot:
    """What the call's resolution can read: name key → entity ids, those entities, context degrees."""

    index: dict[str, tuple[int, ...]]
    rows: dict[int, Any]
    degrees: dict[str, int]


@dataclass
class _Entity:
    """An entity as the call leaves it; ``stored`` is False for one it creates."""

    ref: int
    stored: bool
    canonical_name: str
    kind: EntityKind
    aliases: list[str]
    titles: list[str]
    cooccurring: dict[str, int]
    last_seen: float | None
    keys: list[str] = field(default_factory=list)  # index keys to add


@dataclass
class EntityPlan:
    """The call's resolution: entities to save, each fact's mentions (by ref) and the degree bumps."""

    name_keys: list[str]
    context_keys: list[str]
    snapshot: _Snapshot
    entities: dict[int, _Entity]  # ref -> entity, in the order first touched
    mentions: list[list[tuple[int, str]]]  # per fact: (entity ref, surface)
    bumps: list[str]  # one per occurrence


def _keys_of(found: Sequence[Any]) -> tuple[list[str], list[str]]:
    names = sorted({k for f in found for m in f.mentions for k in candidate_keys(m.name)})
    contexts = sorted({k for f in found for c in f.contexts for k in c})
    return names, contexts


def _snapshot(store: Store, bank: BankRow | None, name_keys: list[str], context_keys: list[str]) -> _Snapshot:
    if bank is None:
        return _Snapshot({}, {}, {})
    index = store.graph.entity_key_index(bank.id, name_keys) if name_keys else {}
    ids = sorted({i for ids in index.values() for i in ids})
    rows = {r.id: r for r in store.graph.entities_by_ids(bank.id, ids)} if ids else {}
    return _Snapshot(index, rows, store.graph.context_degrees(bank.id, context_keys) if context_keys else {})


class _Workspace:
    """The snapshot, changed in memory as the call resolves its mentions one by one."""

    def __init__(self, snap: _Snapshot) -> None:
        self.index: dict[str, set[int]] = {k: set(v) for k, v in snap.index.items()}
        self.rows = snap.rows
        self.degrees = dict(snap.degrees)
        self.touched: dict[int, _Entity] = {}
        self.created = 0

    def lookup(self, keys: Sequence[str]) -> list[_Entity]:
        refs = sorted({r for k in keys for r in self.index.get(k, ())})
        return [self.entity(r) for r in refs]

    def entity(self, ref: int) -> _Entity:
        if ref not in self.touched:
            r = self.rows[ref]
            return _Entity(r.id, True, r.canonical_name, cast(EntityKind, r.kind), list(r.aliases), list(r.titles),
                           dict(r.cooccurring), r.last_seen)
        return self.touched[ref]

    def save(self, entity: _Entity, keys: Sequence[str]) -> None:
        if entity.ref < 0:
            entity.ref = _NEW + self.created
            self.created += 1
        previous = self.touched.get(entity.ref)
        entity.keys = list(dict.fromkeys([*(previous.keys if previous else []), *keys]))
        self.touched[entity.ref] = entity
        for key in keys:
            self.index.setdefault(key, set()).add(entity.ref)


def _resolve_fact(ws: _Workspace, fact: NewFact, found: Any) -> tuple[list[tuple[int, str]], list[str]]:
    """One fact's mentions resolved in the workspace: its (entity ref, surface) pairs and degree bumps."""
    mentions, contexts = found.mentions, found.contexts
    if not mentions:
        return [], []
    seen_at = from_epoch(fact.mentioned_at) if fact.mentioned_at else None
    all_keys = sorted({k for c in contexts for k in c})
    degrees = {k: ws.degrees[k] for k in all_keys if k in ws.degrees}
    linked: list[tuple[int, str]] = []
    for mention, context in zip(mentions, contexts):
        rows = ws.lookup(candidate_keys(mention.name))
        candidates = [
            CandidateEntity(str(r.ref), r.canonical_name, r.aliases, r.titles, r.kind, r.cooccurring,
                            from_epoch(r.last_seen) if r.last_seen else None)
            for r in rows
        ]
        resolution = _RESOLVER.resolve(mention, candidates, cooccurring=context, seen_at=seen_at, degrees=degrees)
        if resolution.status == "ambiguous":
            continue
        alias = mention.alias
        if resolution.status == "match" and resolution.entity_id is not None:
            row = next(r for r in rows if str(r.ref) == resolution.entity_id)
            canonical = preferred_canonical(row.canonical_name, mention.name) if alias else row.canonical_name
            aliases = list(dict.fromkeys([*row.aliases,
                                          *([row.canonical_name] if canonical != row.canonical_name else []),
                                          *([alias] if alias and alias != canonical else [])]))
            entity = _Entity(row.ref, row.stored, canonical, row.kind if row.kind != "unknown" else mention.kind,
                             aliases, list(dict.fromkeys([*row.titles, *([mention.title] if mention.title else [])])),
                             dict(row.cooccurring), max(filter(None, [row.last_seen, fact.mentioned_at]), default=None))
        else:
            entity = _Entity(-1, False, mention.name, mention.kind, [alias] if alias and alias != mention.name else [],
                             [mention.title] if mention.title else [], {}, fact.mentioned_at)
        for key in context:
            entity.cooccurring[key] = entity.cooccurring.get(key, 0) + 1
        keys = entity_keys(entity.canonical_name, entity.aliases)
        if mention.title and cooccurrence_key(mention):
            keys = list(dict.fromkeys([*keys, *candidate_keys(mention.name)]))
        ws.save(entity, keys)
        linked.append((entity.ref, mention.surface))
    for key in all_keys:
        ws.degrees[key] = ws.degrees.get(key, 0) + 1
    return linked, all_keys


def plan_entities(store: Store, bank: BankRow | None, facts: Sequence[NewFact], found: Sequence[Any]) -> EntityPlan:
    """Resolve the call's mentions (``found``, aligned with ``facts``) against a snapshot of the bank."""
    name_keys, context_keys = _keys_of(found)
    snap = _snapshot(store, bank, name_keys, context_keys)
    ws = _Workspace(snap)
    mentions, bumps = [], []
    for fact, f in zip(facts, found):
        linked, keys = _resolve_fact(ws, fact, f)
        mentions.append(linked)
        bumps += keys
    return EntityPlan(name_keys, context_keys, snap, ws.touched, mentions, bumps)


def write_entities(store: Store, bank: BankRow, fact_ids: Sequence[int], facts: Sequence[NewFact],
                   found: Sequence[Any], planned: EntityPlan | None = None) -> EntityPlan:
    """Inside the write transaction: write ``planned`` if its snapshot still holds, otherwise resolve
    again on a fresh one first. Returns the plan that was written."""
    if planned is None or _snapshot(store, bank, planned.name_keys, planned.context_keys) != planned.snapshot:
        planned = plan_entities(store, bank, facts, found)
    ids: dict[int, int] = {}
    for ref, e in planned.entities.items():
        ids[ref] = store.graph.save_entity(bank.id, e.ref if e.stored else None, e.canonical_name, e.kind, e.aliases,
                                           e.titles, e.cooccurring, e.last_seen, e.keys)
    for fact_id, linked in zip(fact_ids, planned.mentions):
        if linked:
            store.graph.add_mentions(fact_id, [(ids[ref], surface) for ref, surface in linked])
    if planned.bumps:
        store.graph.bump_context_degrees(bank.id, planned.bumps)
    return planned
