"""Browsing a bank: what the web UI (and any adapter) shows beside recall — a bank's overview, the
facts each message produced, a fact's entities and links, an entity with its neighbourhood — and
pinning a fact by hand.

Everything is read through the store protocol, in bulk (a 10k-fact bank's overview reads the
decay rows and lifecycle columns, never the fact texts), and returned as the library's records
(:mod:`gieok.records`).
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta

from gieok.engine._time import day_of, from_epoch
from gieok.engine.context import BankContext
from gieok.engine.recall.memories import add_versions, fact_to_memory
from gieok.entities import candidate_keys, entity_keys, name_similarity
from gieok.errors import EntityNotFoundError, MemoryNotFoundError, SourceNotFoundError
from gieok.ids import fact_memory_id, parse_memory_id
from gieok.records import (
    BankOverview,
    Connections,
    EntityEdge,
    EntityInfo,
    EntityView,
    JobCounts,
    Link,
    MergeSuggestion,
    Neighbour,
    RecalledMemory,
    WeekCounts,
)

__all__ = ["overview", "source_facts", "connections", "entity", "set_pinned", "merge_suggestions"]

_PAGE = 5000


def _week_start(epoch: float) -> str:
    day = day_of(epoch)
    if day is None:  # a stored time no date can hold (logged by day_of)
        return "undated"
    return (day - timedelta(days=day.weekday())).isoformat()


def overview(ctx: BankContext, now: float | None = None) -> BankOverview:
    """Counts of a bank (sources, facts, observations, entities; superseded, expired, archived,
    pinned), about how many bytes it holds, facts per week by decay class, the last activity and
    the jobs waiting."""
    store, bank = ctx.store, ctx.bank
    at = time.time() if now is None else float(now)
    weeks: dict[str, Counter[str]] = {}
    live: list[int] = []
    pinned = 0
    after = 0
    while True:
        rows = store.versions.decay_rows(bank.id, after, _PAGE)
        for fact_id, decay_class, is_pinned, mentioned_at, created_at, _recalls, _last in rows:
            live.append(fact_id)
            pinned += bool(is_pinned)
            weeks.setdefault(_week_start(mentioned_at if mentioned_at is not None else created_at),
                             Counter())[decay_class] += 1
        if len(rows) < _PAGE:
            break
        after = rows[-1][0]
    facts = store.facts.count(bank.id)
    superseded = sum(1 for info in store.versions.state_of(live).values() if info["superseded_by"] is not None)
    sources = store.sources.all(bank.id, bank.name)
    last = max((s.updated_at for s in sources), default=None)
    queued = store.jobs.all(bank.id, "queued", 1000)
    running = store.jobs.all(bank.id, "running", 1000)
    failed = store.jobs.all(bank.id, "failed", 1000)
    return BankOverview(
        bank=bank.name, embedder=bank.embedder, sources=len(sources), facts=facts,
        observations=len(store.observations.all(bank.id)),
        entities=len(store.graph.entities(bank.id, 1_000_000)),
        superseded=superseded, expired=len(store.versions.expired(bank.id, at)),
        archived=facts - len(live), pinned=pinned, bytes=store.banks.byte_size(bank.id, bank.dim),
        last_activity=last.isoformat() if last else None,
        jobs=JobCounts(queued=len(queued), running=len(running), failed=len(failed)),
        weeks=[WeekCounts(week, dict(counts)) for week, counts in sorted(weeks.items())],
    )


def _source_row(ctx: BankContext, source_id: str) -> int:
    found = ctx.store.sources.row(ctx.bank.id, source_id)
    if found is None:
        raise SourceNotFoundError(source_id)
    return found[0]


def source_facts(ctx: BankContext, source_id: str) -> dict[str, list[RecalledMemory]]:
    """The facts a source produced, by the message they came from (a document's under ``""``)."""
    ids = ctx.store.erasure.fact_ids(ctx.bank.id, source_row=_source_row(ctx, source_id))
    memories = [fact_to_memory(f, 0.0, {}) for f in ctx.store.facts.get(ctx.bank.id, ids)]
    add_versions(ctx.store, memories)
    out: dict[str, list[RecalledMemory]] = {}
    for memory in memories:
        for message_id in memory.source_ids or [""]:
            out.setdefault(message_id, []).append(memory)
    return out


def _fact_number(ctx: BankContext, memory_id: str) -> int:
    ref = parse_memory_id(memory_id)
    if ref is None or ref.kind != "fact" or not ctx.store.facts.get(ctx.bank.id, [ref.number]):
        raise MemoryNotFoundError(memory_id)
    return ref.number


def connections(ctx: BankContext, memory_id: str) -> Connections:
    """A fact's entities (names) and its links to other facts (type, weight, the other fact's text)."""
    number = _fact_number(ctx, memory_id)
    entity_ids = ctx.store.graph.entities_of_facts([number]).get(number, [])
    names = ctx.store.graph.entity_names(entity_ids)
    links = ctx.store.graph.links_of([number])
    others = {f.id: f for f in ctx.store.facts.get(ctx.bank.id, sorted({other for _, other, _, _ in links}))}
    return Connections(
        id=memory_id, entities=[names[e] for e in entity_ids if e in names],
        links=[Link(id=fact_memory_id(other), type=kind, weight=float(weight), text=others[other].text)
               for _seed, other, kind, weight in links if other in others],
    )


def entity(ctx: BankContext, name: str, *, limit: int = 200, neighbours: int = 12) -> EntityView:
    """One entity (by its name or an alias): its record, its latest ``limit`` facts, and the entities
    named in the same facts (``neighbours`` most co-mentioned, with how many facts they share, and
    the edges between them)."""
    wanted = name.strip().casefold()
    # the entities indexed under the name's keys (as forget(entity=...) finds them), not a scan of all
    keyed = ctx.store.graph.entities_by_keys(ctx.bank.id, candidate_keys(name))
    exact = [r for r in keyed if wanted in (n.casefold() for n in (r.canonical_name, *r.aliases))]
    if not exact:
        raise EntityNotFoundError(name)
    degrees = ctx.store.graph.entity_degrees([r.id for r in exact])
    row = min(exact, key=lambda r: (-degrees.get(r.id, 0), r.id))  # the most named, as the entity list orders them
    count = degrees.get(row.id, 0)
    info = EntityInfo(row.canonical_name, row.kind, [a for a in row.aliases if a != row.canonical_name], count,
                      from_epoch(row.last_seen) if row.last_seen else None)
    fact_ids = ctx.store.graph.facts_of_entities([row.id], int(limit)).get(row.id, [])
    memories = [fact_to_memory(f, 0.0, {}) for f in ctx.store.facts.get(ctx.bank.id, fact_ids)]
    memories.sort(key=lambda m: m.id, reverse=True)
    add_versions(ctx.store, memories)
    mentioned = ctx.store.graph.entities_of_facts(fact_ids)
    shared: Counter[int] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    for ids in mentioned.values():
        others = sorted(set(ids) - {row.id})
        shared.update(others)
        pairs.update((a, b) for i, a in enumerate(others) for b in others[i + 1:])
    top = [e for e, _ in shared.most_common(int(neighbours))]
    names = ctx.store.graph.entity_names(top)
    chosen = set(top)
    return EntityView(
        entity=info, facts=memories,
        neighbours=[Neighbour(names[e], shared[e]) for e in top if e in names],
        edges=[EntityEdge(names[a], names[b], w) for (a, b), w in sorted(pairs.items())
               if a in chosen and b in chosen and a in names and b in names],
    )


def set_pinned(ctx: BankContext, memory_id: str, pinned: bool) -> RecalledMemory:
    """Pin a fact (it never decays: class ``pinned``) or unpin it (class ``stable``, full strength)."""
    number = _fact_number(ctx, memory_id)
    fact = ctx.store.facts.get(ctx.bank.id, [number])[0]
    with ctx.store.write():
        ctx.store.versions.set_class([number], "pinned" if pinned else "stable", fact.importance, pinned)
    memory = fact_to_memory(ctx.store.facts.get(ctx.bank.id, [number])[0], 0.0, {})
    add_versions(ctx.store, [memory])
    return memory


MERGE_SCAN = 300  # the most-named entities compared pairwise for suggestions (45k name checks at most)
_WHY = {1.0: "the same name", 0.95: "the same words in another order", 0.9: "one name is a part of the other",
        0.5: "a surname and a title the other has not been called"}


def merge_suggestions(ctx: BankContext, limit: int = 20) -> list[MergeSuggestion]:
    """Pairs of entities that may be one (retain links a mention only when it is sure, so 민지 can stay
    apart from 김민지 while 이민지 is also known): same kind (or one unknown) and a name of one is the
    other's, a part of it ("민지" ↔ "김민지", "Caroline" ↔ "Caroline Smith") or its surname with a
    title ("김 팀장" ↔ "김민지"); names that cannot
    denote the same thing (김민지 / 이민지, John / Jane Smith, Room 101 / 102) never pair. Most similar,
    then most named, first."""
    rows = ctx.store.graph.entities(ctx.bank.id, MERGE_SCAN)
    # only entities that share a lookup key (a word, a given name, a surname) can pair — the keys the
    # resolver finds its candidates by: compare those, not all pairs
    by_key: dict[str, list[int]] = {}
    for i, (row, _facts) in enumerate(rows):
        for key in entity_keys(row.canonical_name, row.aliases):
            by_key.setdefault(key, []).append(i)
    pairs = sorted({(i, j) for group in by_key.values() for i in group for j in group if i < j})
    found: list[MergeSuggestion] = []
    for i, j in pairs:
        (a, a_facts), (b, b_facts) = rows[i], rows[j]
        if a.kind != b.kind and "unknown" not in (a.kind, b.kind):
            continue
        # the names they go by must be able to denote one thing (an alias of 김민지 is no bridge to 이민지)
        if name_similarity(a.canonical_name, [b.canonical_name], candidate_titles=b.titles) is None:
            continue
        scores = [s for s in (name_similarity(a.canonical_name, [b.canonical_name, *b.aliases],
                                              candidate_titles=b.titles),
                              name_similarity(b.canonical_name, [a.canonical_name, *a.aliases],
                                              candidate_titles=a.titles)) if s is not None]
        best = max(scores, default=0.0)
        if best < 0.5:
            continue
        found.append(MergeSuggestion(entities=[a.canonical_name, b.canonical_name], kinds=[a.kind, b.kind],
                                     facts=[a_facts, b_facts], similarity=best,
                                     reason=_WHY.get(best, "similar names")))
    found.sort(key=lambda f: (-f.similarity, -sum(f.facts)))
    return found[: int(limit)]
