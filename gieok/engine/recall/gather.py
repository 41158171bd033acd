"""Recall's first stage: run the enabled channels and keep what they read.

Each channel ranks fact ids (``semantic``, ``keyword``, ``graph``, ``temporal``, ``profile``; see
:mod:`gieok.engine.recall.channels`). On the way they read the query's vector, its cosine with the
facts' own vectors (one KNN serves the semantic channel and the graph's relevance), fact rows, the
time range the query names and the profile slot it asks about; :class:`Gathered` carries all of it
to fusion and scoring, so nothing is read twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gieok.engine.context import BankContext
from gieok.engine.recall.channels import (
    RELEVANCE_POOL,
    Similarity,
    graph_channel,
    own_similarity,
    query_entities,
    semantic_channel,
    temporal_channel,
)
from gieok.engine.scopes import RecallScope
from gieok.engine.slots import profile_ranking
from gieok.errors import ConfigError
from gieok.extract.slot_question import SlotQuestion, mentions_slot, slot_question
from gieok.lifecycle import says_a_change
from gieok.records import FactRow, ScopeFilter
from gieok.settings import Settings
from gieok.store.protocol import BankRow, Store
from gieok.temporal import find_time_expressions, parse_time_range
from gieok.text.terms import keyword_terms

__all__ = ["CHANNELS", "Gathered", "Ranking", "enabled_channels", "gather", "query_terms", "query_time_range"]

CHANNELS = ("semantic", "keyword", "graph", "temporal", "profile")
Ranking = list[tuple[int, float]]  # (fact id, the channel's raw score), best first
_STALE_CHECK_DEPTH = 5  # how far down the other channels a newer change statement is looked for
# "요즘 무슨 운동 해?" / "what does she do these days?" ask for the current state, which may have been
# stated months ago: these words set no time range (the current version is recall's default anyway).
_VAGUE_PRESENT = frozenset({"요즘", "요새", "최근", "최근에", "근래", "these days", "nowadays", "lately", "recently",
                            "currently", "at the moment", "right now", "now"})


@dataclass
class Gathered:
    """What the channels found and read for one query."""

    rankings: dict[str, Ranking]
    facts: dict[int, FactRow]  # rows read so far, by id: fusion and scoring add to it, never re-read
    query_vector: object | None  # the embedded query (None when no channel needed it)
    similarity: Similarity | None  # the query's cosine with the facts' own vectors, as the KNN saw them
    time_range: tuple[float, float] | None  # the range the query names, epoch seconds
    time_range_dt: tuple[datetime, datetime] | None  # the same, as the Recall reports it
    asked: SlotQuestion | None  # the profile slot the query asks about
    only: ScopeFilter | None  # what every channel's SQL filtered by


def enabled_channels(settings: Settings) -> tuple[str, ...]:
    names = tuple(c.strip() for c in str(settings.channels).split(",") if c.strip())
    unknown = [c for c in names if c not in CHANNELS]
    if unknown or not names:
        raise ConfigError(f"setting 'channels' names {unknown or 'nothing'}: use a comma list of {', '.join(CHANNELS)}")
    return names


def query_terms(store: Store, bank: BankRow, query: str) -> tuple[str, ...]:
    """The query's keyword terms, plus the full names of the people and things it names: "민지" is
    written 김민지 in the facts, "Mel" Melanie, and BM25 matches whole terms only."""
    terms = keyword_terms(query)
    named = [entity for entity, weight in query_entities(store, bank, query).items() if weight >= 0.5]
    extra = [t for name in store.graph.entity_names(named).values() for t in keyword_terms(name)] if named else []
    return tuple(dict.fromkeys([*terms, *extra]))


def query_time_range(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    mentions = find_time_expressions(query, now)
    if mentions and all(m.text.strip().lower() in _VAGUE_PRESENT for m in mentions):
        return None
    return parse_time_range(query, now)


def gather(ctx: BankContext, query: str, now: datetime, scope: RecallScope) -> Gathered:
    """Run the enabled channels over ``query`` (as of ``now``, in ``scope``)."""
    store, bank, settings = ctx.store, ctx.bank, ctx.settings
    only = scope.filter if not scope.filter.empty else None
    pool = settings.candidates
    channels = enabled_channels(settings)
    rankings: dict[str, Ranking] = {}
    query_vector = ctx.embedder.embed_query(query) if ("semantic" in channels or "graph" in channels) else None
    facts: dict[int, FactRow] = {}  # read once, by the graph channel and for the multipliers
    similarity = own_similarity(store, bank, query_vector, max(pool, RELEVANCE_POOL) if "graph" in channels else pool,
                                only) if query_vector is not None else None
    if "semantic" in channels:
        rankings["semantic"] = semantic_channel(store, bank, query_vector, pool, similarity,  # type: ignore[arg-type]
                                                only)
    if "keyword" in channels:
        rankings["keyword"] = store.search.keyword(bank.id, query_terms(store, bank, query), pool,
                                                   settings.keyword_context_weight, only)
    time_range_dt = query_time_range(query, now)
    time_range = (time_range_dt[0].timestamp(), time_range_dt[1].timestamp()) if time_range_dt else None
    if "graph" in channels:
        rankings["graph"] = _graph(store, bank, query, rankings, facts, similarity, settings, only)
    if "temporal" in channels and time_range is not None:
        rankings["temporal"] = temporal_channel(store, bank, time_range[0], time_range[1], pool, only)
    # a question about a profile slot, read by the learned head whatever the bank's decision model:
    # recall never calls an LLM
    asked = slot_question(query) if "profile" in channels else None
    if asked is not None:
        slot_facts = profile_ranking(ctx, query, asked, only)
        if slot_facts and not asked.previous and _slot_may_be_stale(store, bank, asked.slot, slot_facts, rankings):
            slot_facts = []
        if slot_facts:
            rankings["profile"] = slot_facts
    return Gathered(rankings, facts, query_vector, similarity, time_range, time_range_dt, asked, only)


def _graph(store: Store, bank: BankRow, query: str, rankings: dict[str, Ranking], facts: dict[int, FactRow],
           similarity: Similarity | None, settings: Settings, only: ScopeFilter | None) -> Ranking:
    """The graph channel, seeded by the best hits of the channels before it (whose rows it reads
    into ``facts``)."""
    seeds: dict[int, float] = {}
    for ranked in rankings.values():
        for rank, (fact_id, _score) in enumerate(ranked[: settings.graph_seeds], start=1):
            seeds[fact_id] = max(seeds.get(fact_id, 0.0), 1.0 / rank)
    candidates = list(dict.fromkeys(i for ranked in rankings.values() for i, _ in ranked))
    facts.update((f.id, f) for f in store.facts.get(bank.id, candidates))
    return graph_channel(store, bank, query, list(seeds.items()), settings.candidates, similarity,
                         [facts[i] for i in candidates if i in facts], scope=only)


def _slot_may_be_stale(store: Store, bank: BankRow, slot: str, slot_facts: Ranking,
                       rankings: dict[str, Ranking]) -> bool:
    """Whether a profile slot's current value may be out of date: a fact another channel ranks above
    the slot's own, near the top, by the same person and said after it, speaks of the slot and
    announces a change ("We moved! We're in Jersey City now" after "I live in Park Slope", said in
    words the slot rules do not read), or retain found the slot's statement replaced. The channel
    then stays out of it."""
    slot_rows = store.facts.get(bank.id, [i for i, _ in slot_facts])
    if not slot_rows or any(f.superseded_by for f in slot_rows):
        return True
    latest = max(f.mentioned_at or 0.0 for f in slot_rows)
    speakers, slot_ids = {f.speaker for f in slot_rows}, {f.id for f in slot_rows}
    above: set[int] = set()  # what a channel ranks above the slot's own facts, near the top
    for ranked in rankings.values():
        for fact_id, _ in ranked[:_STALE_CHECK_DEPTH]:
            if fact_id in slot_ids:
                break
            above.add(fact_id)
    return any(f.speaker in speakers and (f.mentioned_at or 0.0) > latest and says_a_change(f.text)
               and mentions_slot(f.text, slot) for f in store.facts.get(bank.id, list(above)))
