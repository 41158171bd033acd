"""What an erasure takes back from the entity graph.

Retain leaves three traces of a fact in the graph (:mod:`gieok.engine.retain.link`): the entities its
mentions resolved to (their canonical name, aliases, titles, index keys, ``last_seen``), the
co-occurrence counts of those entities (the other names and the domain cues of the fact), and the
bank's context degrees (how many facts hold each context key). Deleting the fact deletes its
mentions, and an entity left without any goes with them (the store's ``store.graph.delete_orphans``).
The rest is taken back here, in two steps:

* :func:`plan_undo`, before the write lock (it runs Kiwi): the erased facts' mentions and contexts
  are extracted again the way retain extracted them, with the names of the entities they were
  linked to as known names. That gives the counts each erased fact added, and every name, title
  and co-occurrence key it gave (which the proof then looks for).
* :func:`apply_undo`, inside the erasure's transaction: the counts are subtracted (a key left at 0
  goes); each surviving entity keeps only the names and titles its remaining facts still spell, its
  canonical name re-chosen among them (``preferred_canonical``: "김민지" said only in the erased
  message gives way to "민지"), its keys rebuilt from those names and ``last_seen`` from its
  remaining facts. Last, any co-occurrence or degree key that is one of the erased forms no
  remaining evidence of the bank spells is dropped, wherever it is: the safety net for counts the
  second extraction could not reproduce exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from gieok.engine.forget.forms import squash
from gieok.entities import (
    Mention,
    candidate_keys,
    cooccurrence_key,
    entity_keys,
    extract_mentions,
    fact_contexts,
    preferred_canonical,
)
from gieok.records import FactRow
from gieok.store.protocol import BankRow, Store

__all__ = ["GraphUndo", "plan_undo", "apply_undo"]

_ALL = 1 << 30  # "every fact of the entity" for facts_of_entities


@dataclass
class GraphUndo:
    """What the erased facts added to the graph."""

    entities: list[int] = field(default_factory=list)  # the entities they were linked to
    cooccurring: dict[int, Counter[str]] = field(default_factory=dict)  # per entity, the counts they added
    degrees: Counter[str] = field(default_factory=Counter)  # the context-degree bumps they made
    names: list[str] = field(default_factory=list)  # names, titles and keys they gave, for the proof


def _linked_entity(mention: Mention, links: Sequence[tuple[int, str]], known: dict[int, list[str]]) -> int | None:
    for entity_id, surface in links:
        if surface == mention.surface:
            return entity_id
    keys = set(candidate_keys(mention.name))
    matches = [e for e, _ in links if e in known and keys & set(entity_keys(known[e][0], known[e][1:]))]
    return matches[0] if len(matches) == 1 else None


def plan_undo(store: Store, bank: BankRow, facts: Sequence[FactRow]) -> GraphUndo:
    rows = store.graph.mentions([f.id for f in facts])
    links: dict[int, list[tuple[int, str]]] = {}
    for fact_id, entity_id, surface in rows:
        links.setdefault(fact_id, []).append((entity_id, surface))
    entities = store.graph.entities_by_ids(bank.id, sorted({r[1] for r in rows}))
    known = {e.id: [e.canonical_name, *e.aliases] for e in entities}
    undo = GraphUndo(entities=[e.id for e in entities])
    for e in entities:
        undo.names += [e.canonical_name, *e.aliases, *e.titles]
    for fact in facts:
        linked = links.get(fact.id, [])
        names = [s for _, s in linked] + [n for e, _ in linked for n in known.get(e, [])]
        mentions = extract_mentions(fact.text, fact.speaker, known=names)
        if not mentions:
            continue  # retain bumped nothing for a fact without mentions
        contexts = fact_contexts(mentions, fact.text)
        undo.degrees.update({key for context in contexts for key in context})
        for mention, context in zip(mentions, contexts):
            key = cooccurrence_key(mention)
            undo.names += [mention.name, mention.surface, *filter(None, [mention.title, key])]
            owner = _linked_entity(mention, linked, known)
            if owner is not None:
                undo.cooccurring.setdefault(owner, Counter()).update(context)
    undo.names += list(undo.degrees)
    return undo


def _names_spelled(store: Store, facts: Sequence[FactRow], entity_id: int, names: Sequence[str]) -> list[str]:
    said = [squash(f.text) for f in facts]
    kept = [n for n in dict.fromkeys(names) if squash(n) and any(squash(n) in s for s in said)]
    if kept or not facts:
        return kept
    # none of its names is spelled out any more (a name Kiwi found joined to other text): the
    # names its remaining mentions give now
    surfaces = {s for _f, e, s in store.graph.mentions([f.id for f in facts]) if e == entity_id}
    for fact in facts:
        kept += [m.name for m in extract_mentions(fact.text, fact.speaker, known=sorted(surfaces))
                 if m.surface in surfaces]
    return list(dict.fromkeys(kept or sorted(surfaces)))


def apply_undo(store: Store, bank: BankRow, undo: GraphUndo, unsupported: set[str]) -> int:
    """Take the erased facts back from the graph (after ``store.erasure.erase``, in its transaction);
    ``unsupported`` are the erased forms no remaining evidence of the bank spells. Returns how many
    surviving entities were rewritten."""
    store.graph.adjust_context_degrees(bank.id, {key: -n for key, n in undo.degrees.items()})
    survivors = store.graph.entities_by_ids(bank.id, undo.entities)
    facts_of = store.graph.facts_of_entities([e.id for e in survivors], _ALL)
    for entity in survivors:
        facts = store.facts.get(bank.id, facts_of.get(entity.id, []))
        names = _names_spelled(store, facts, entity.id, [entity.canonical_name, *entity.aliases])
        canonical = entity.canonical_name
        if canonical not in names and names:
            canonical = names[0]
            for name in names[1:]:
                canonical = preferred_canonical(canonical, name)
        aliases = [n for n in names if n != canonical]
        said = [squash(f.text) for f in facts]
        titles = [t for t in entity.titles if any(squash(t) in s for s in said)]
        taken = undo.cooccurring.get(entity.id, Counter())
        cooccurring = {k: v - taken[k] for k, v in entity.cooccurring.items()
                       if v - taken[k] > 0 and k not in unsupported}
        last_seen = max((f.mentioned_at for f in facts if f.mentioned_at is not None), default=None)
        keys = entity_keys(canonical, aliases)
        store.graph.save_entity(bank.id, entity.id, canonical, entity.kind, aliases, titles, cooccurring, last_seen,
                                keys)
        store.graph.set_entity_keys(bank.id, entity.id, keys)
    if unsupported:
        rewritten = {e.id for e in survivors}
        for entity, _count in store.graph.entities(bank.id, _ALL):
            if entity.id in rewritten or not set(entity.cooccurring) & unsupported:
                continue
            cooccurring = {k: v for k, v in entity.cooccurring.items() if k not in unsupported}
            store.graph.save_entity(bank.id, entity.id, entity.canonical_name, entity.kind, entity.aliases,
                                    entity.titles, cooccurring, entity.last_seen, [])
        store.graph.delete_context_degrees(
            bank.id, [k for k in store.graph.context_degree_keys(bank.id) if k in unsupported])
    return len(survivors)
