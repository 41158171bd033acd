"""Recall: the memories a question needs, best first, inside a token budget. Never calls an LLM.

Four channels each rank fact ids: ``semantic`` (cosine KNN over each fact's own vector and a
reply's vector with its context, averaged), ``keyword`` (Okapi BM25 over Korean lemmas and English
stems), ``graph`` (what the people the query names said, facts naming its entities, and facts
sharing specific entities or links with the best hits of the first two) and ``temporal`` (facts in
the time range the query names). Reciprocal Rank Fusion merges them at k = 20 (at the customary 60,
a fact ranked 6th by one channel lost to facts ranked 40th by two); then small multipliers —
recency (±5 %), closeness to the query's time range (±10 %) and supporting links (0 to +5 %) — so
relevance dominates. Facts no longer valid are dropped; the token budget is filled greedily; an
optional reranker reorders the fused top-N. Every memory says which channel found it and at what rank.

A recall's scope (:mod:`gieok.engine.scopes`) is a filter every channel applies in SQL — semantic,
keyword, graph, temporal and observations — plus, with ``scopes=`` weights, a ``scope`` multiplier.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any, NamedTuple

from gieok.engine._time import TimeLike, from_epoch, to_datetime
from gieok.engine._validate import check_encodable
from gieok.engine.context import BankContext
from gieok.engine.recall.budget import fill_budget
from gieok.engine.recall.channels import (
    RELEVANCE_POOL,
    Similarity,
    graph_channel,
    named_speakers,
    own_similarity,
    query_entities,
    semantic_channel,
    temporal_channel,
)
from gieok.engine.recall.fusion import rrf_fuse, weighted_fuse
from gieok.engine.recall.observations import observation_memory, observation_ranking
from gieok.engine.retain.doubt import trust_of
from gieok.engine.scopes import UNFILTERED, RecallScope, memory_scope, scope_weight
from gieok.engine.slots import profile_ranking
from gieok.errors import ConfigError, InputError, RerankerUnavailableError
from gieok.extract.slot_question import mentions_slot, slot_question
from gieok.ids import fact_memory_id, fact_number
from gieok.lifecycle import classify_memory, says_a_change
from gieok.providers.rerankers import Reranker
from gieok.records import ChannelHit, FactRow, Recall, RecalledMemory, ScopeFilter
from gieok.settings import Settings
from gieok.store.protocol import BankRow, Store
from gieok.temporal import find_time_expressions, parse_time_range
from gieok.text.korean import has_hangul
from gieok.text.sentences import asks_only
from gieok.text.terms import keyword_terms

__all__ = ["recall", "fact_to_memory", "add_locations", "CHANNELS"]

CHANNELS = ("semantic", "keyword", "graph", "temporal", "profile")
_STALE_CHECK_DEPTH = 5  # how far down the other channels a newer change statement is looked for
# "요즘 무슨 운동 해?" / "what does she do these days?" ask for the current state, which may have been
# stated months ago: these words set no time range (the current version is recall's default anyway).
_VAGUE_PRESENT = frozenset({"요즘", "요새", "최근", "최근에", "근래", "these days", "nowadays", "lately", "recently",
                            "currently", "at the moment", "right now", "now"})


_RECENCY_REACH = 0.05  # the recency multiplier spans 1 ± this (a fact said now: 1.05; long ago: 0.95)
# "지금 어디 살아?" / "where does she live now?" ask for the present state: the latest statement
# of it counts more than recency's usual ±5 % (``present_recency``)
_ASKS_FOR_NOW = re.compile(r"지금|현재|요즘|요새|\b(?:now|currently|these days|nowadays)\b", re.IGNORECASE)

# "원래 언제로 잡혀 있었어?" / "what was it originally?" ask for a version that was since replaced
_ASKS_FOR_HISTORY = re.compile(
    r"원래|처음에|처음엔|처음 ?잡|예전에|예전엔|전에는|이전에|바뀌기 ?전|"
    r"\b(?:originally|at first|initially|used to|use to|previously|"
    r"before (?:it|that|the) (?:was )?(?:changed|moved))\b",
    re.IGNORECASE,
)


def query_terms(store: Store, bank: BankRow, query: str) -> tuple[str, ...]:
    """The query's keyword terms, plus the full names of the people and things it names: "민지" is
    written 김민지 in the facts, "Mel" Melanie, and BM25 matches whole terms only."""
    terms = keyword_terms(query)
    named = [entity for entity, weight in query_entities(store, bank, query).items() if weight >= 0.5]
    extra = [t for name in store.graph.entity_names(named).values() for t in keyword_terms(name)] if named else []
    return tuple(dict.fromkeys([*terms, *extra]))


def asks_for_history(query: str) -> bool:
    """Does the question ask about an earlier version? Then superseded versions are recalled too."""
    return _ASKS_FOR_HISTORY.search(query) is not None


def query_time_range(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    mentions = find_time_expressions(query, now)
    if mentions and all(m.text.strip().lower() in _VAGUE_PRESENT for m in mentions):
        return None
    return parse_time_range(query, now)
_DAY = 86400.0


def _one_named_speaker(query: str, facts: Iterable[FactRow]) -> str | None:
    """The one speaker of the candidates whom ``query`` names ("What would Caroline pursue?",
    "지현이 다니는 회사는?"), when there are others to tell apart; None when it names none or several
    ("What did Caroline tell Melanie?"). Names are matched as the graph channel matches them."""
    speakers = sorted({f.speaker for f in facts if f.speaker})
    if len(speakers) < 2:
        return None
    named = named_speakers(query, speakers)
    return next(iter(named)) if len(named) == 1 else None


def fact_to_memory(fact: FactRow, score: float, channels: dict[str, ChannelHit]) -> RecalledMemory:
    return RecalledMemory(
        id=fact_memory_id(fact.id),
        text=fact.text,
        score=score,
        kind=fact.kind,
        type="fact",
        source_id=fact.source_external_id,
        source_ids=list(fact.message_ids) or [fact.source_external_id],
        speaker=fact.speaker,
        occurred_start=from_epoch(fact.occurred_start, fact.utc_offset),
        occurred_end=from_epoch(fact.occurred_end, fact.utc_offset),
        mentioned_at=from_epoch(fact.mentioned_at, fact.utc_offset),
        channels=channels,
        tokens=fact.tokens,
        valid_from=from_epoch(fact.valid_from, fact.utc_offset),
        valid_to=from_epoch(fact.valid_to, fact.utc_offset),
        decay_class=fact.decay_class,
        pinned=fact.pinned,
        strength=fact.strength,
        user_id=fact.scope.user_id,
        agent_id=fact.scope.agent_id,
        session_id=fact.scope.session_id,
        tags=list(fact.scope.tags),
        metadata=dict(fact.metadata),
        trust=trust_of(fact),
    )


def add_locations(store: Store, pairs: list[tuple[RecalledMemory, int]]) -> None:
    """Give each memory of an ingested document its chunk's location (page / heading path / span)."""
    found = store.sources.chunk_locations(sorted({chunk for _, chunk in pairs})) if pairs else {}
    for memory, chunk in pairs:
        memory.location = found.get(chunk)


def _replaced(fact: FactRow, now_ts: float, as_of: float | None) -> bool:
    at = now_ts if as_of is None else as_of
    return fact.valid_to is not None and fact.valid_to <= at


def _is_current(fact: FactRow, now_ts: float, as_of: float | None = None, keep_replaced: bool = False) -> bool:
    """Visible to a recall at ``now`` (as the bank stands) or ``as_of`` (as it stood then);
    ``keep_replaced`` keeps versions a later statement replaced (recall then ranks them lower)."""
    if fact.expires_at is not None and fact.expires_at <= now_ts:
        return False  # a TTL is real time: an expired fact is gone, whatever as_of says
    if _replaced(fact, now_ts, as_of) and not keep_replaced:
        return False
    if as_of is None:
        return fact.archived_at is None
    said = fact.mentioned_at if fact.mentioned_at is not None else fact.created_at
    return said <= as_of and (fact.archived_at is None or fact.archived_at > as_of)


def enabled_channels(settings: Settings) -> tuple[str, ...]:
    names = tuple(c.strip() for c in str(settings.channels).split(",") if c.strip())
    unknown = [c for c in names if c not in CHANNELS]
    if unknown or not names:
        raise ConfigError(f"setting 'channels' names {unknown or 'nothing'}: use a comma list of {', '.join(CHANNELS)}")
    return names


class _Scored(NamedTuple):
    """A recall candidate before it becomes a RecalledMemory: its final score, its tokens, and either
    (fact, channel hits, fused score, multipliers) or an observation memory already built."""

    score: float
    tokens: int
    item: Any


def _multipliers(fact: FactRow, now_ts: float, time_range: tuple[float, float] | None,
                 support: int, half_life_days: float, present: float = _RECENCY_REACH) -> dict[str, float]:
    said = fact.mentioned_at if fact.mentioned_at is not None else now_ts
    age_days = max(0.0, now_ts - said) / _DAY
    out = {"recency": 1.0 - present + 2 * present * math.exp(-age_days * math.log(2) / half_life_days)}
    if time_range is not None:
        start, end = time_range
        f_start = fact.occurred_start if fact.occurred_start is not None else said
        f_end = fact.occurred_end if fact.occurred_end is not None else f_start
        middle, half = (start + end) / 2, max((end - start) / 2, 3600.0)
        overlaps = f_start < end and f_end >= start
        closeness = 1.0 if overlaps else 1.0 / (1.0 + abs((f_start + f_end) / 2 - middle) / half)
        out["time"] = 0.90 + 0.20 * closeness
    out["support"] = 1.0 + 0.05 * min(1.0, math.log1p(support) / math.log1p(10))
    if fact.strength < 1.0:  # decayed memories sink a little; archiving, not this, removes them
        out["strength"] = 0.9 + 0.1 * fact.strength
    return out


def _slot_may_be_stale(store: Store, bank: BankRow, slot: str, slot_facts: list[tuple[int, float]],
                       rankings: dict[str, list[tuple[int, float]]]) -> bool:
    """Whether a profile slot's current value may be out of date: a fact another channel ranks above
    the slot's own, near the top, by the same person and said after it, speaks of the slot and
    announces a change ("We
    moved! We're in Jersey City now" after "I live in Park Slope", said in words the slot rules do not
    read), or retain found the slot's statement replaced. The channel then stays out of it."""
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


def _weighted_features(facts: dict[int, FactRow], semantic: dict[int, float], similarity: Similarity | None,
                       now_ts: float) -> dict[int, tuple[float, float, float]]:
    """(cosine, importance, age in days) of each candidate for ``fusion=weighted``. The cosine is the
    semantic channel's (a reply's two views averaged); a candidate only another channel found gets
    its own-vector cosine from the deeper KNN, or that KNN's bound (at most the last cosine it saw)."""
    out = {}
    for fact_id, fact in facts.items():
        cosine = semantic.get(fact_id)
        if cosine is None and similarity is not None:
            cosine = similarity.known.get(fact_id, similarity.bound or 0.0)
        said = fact.mentioned_at if fact.mentioned_at is not None else now_ts
        out[fact_id] = (max(0.0, cosine or 0.0), fact.importance, (now_ts - said) / _DAY)
    return out


def decay_verdict(fact: FactRow) -> dict[str, Any]:
    """Why a fact fades as it does: its class, importance and strength now, and the classifier's reason
    (or that the class was given on retain, or that it is part of a document)."""
    verdict = classify_memory(fact.text, fact.speaker)
    if fact.decay_class == "document":
        reason = "part of a document: reference text does not fade"
    elif fact.decay_class == verdict.decay_class:
        reason = verdict.reason
    else:
        reason = f"set on retain (the classifier says {verdict.decay_class}: {verdict.reason})"
    return {"class": fact.decay_class, "importance": fact.importance, "strength": fact.strength,
            "pinned": fact.pinned, "reason": reason}


def replacements_first(scored: list[_Scored], replaced: Callable[[FactRow], bool]) -> list[_Scored]:
    """Where a replaced version and what replaced it are both candidates, the replacement ranks just
    above it: "I work at Samsung" keeps its strong match on "Where do I work?", yet the answer is the
    later "I left Samsung and joined Kakao". Its score is lifted, with the lift as the ``replaces``
    multiplier. (A question about the past keeps plain scores: recall does not call this then.)"""
    at = {c.item[0].id: i for i, c in enumerate(scored) if isinstance(c.item, tuple)}
    for _ in range(4):  # a chain A → B → C settles in as many passes as it has links
        moved = False
        for candidate in list(scored):
            if not isinstance(candidate.item, tuple):
                continue
            fact = candidate.item[0]
            j = at.get(fact.superseded_by) if fact.superseded_by is not None and replaced(fact) else None
            if j is None or scored[j].score > candidate.score:
                continue
            newer = scored[j]
            lift = candidate.score * 1.0001 / newer.score if newer.score > 0 else 1.0
            multipliers = newer.item[3]
            multipliers["replaces"] = multipliers.get("replaces", 1.0) * lift
            scored[j] = newer._replace(score=newer.score * lift if newer.score > 0 else candidate.score * 1.0001)
            moved = True
        if not moved:
            break
    return sorted(scored, key=lambda c: -c.score)


def spread_messages(scored: list[_Scored], weight: float) -> list[_Scored]:
    """A long message makes many facts, and they match a question alike: ten memories from one message
    say less than ten from ten. Each memory is scored ``weight`` times lower for every better-ranked one
    from the same message (``same_message``), so the others step up; one pass, then sorted again."""
    if weight >= 1.0:
        return scored
    seen: Counter[tuple[object, ...]] = Counter()
    out = []
    for candidate in scored:
        if not isinstance(candidate.item, tuple):
            out.append(candidate)
            continue
        fact, _hits, _fused, multipliers = candidate.item
        key = tuple(sorted(fact.message_ids)) if fact.message_ids else ("chunk", fact.chunk_id)
        repeats = seen[key]
        seen[key] += 1
        if repeats:
            multipliers["same_message"] = weight ** repeats
            candidate = candidate._replace(score=candidate.score * weight ** repeats)
        out.append(candidate)
    return sorted(out, key=lambda c: -c.score)


def _rerank(reranker: Reranker, query: str, memories: list[RecalledMemory], top: int,
            explain: bool) -> list[RecalledMemory]:
    """Reorder the fused top-N by the reranker; if it cannot be reached, keep the fused order."""
    head, tail = memories[:top], memories[top:]
    try:
        order = reranker.rerank(query, [m.text for m in head])
    except RerankerUnavailableError:
        return memories
    reordered = []
    for rank, (index, score) in enumerate(order, start=1):
        memory = head[index]
        memory.channels = {**memory.channels, "rerank": ChannelHit(rank=rank, score=float(score))}
        if explain and memory.explanation is not None:
            memory.explanation["rerank"] = {"rank": rank, "score": float(score)}
        reordered.append(memory)
    return reordered + tail


def _observations(store: Store, bank: BankRow, query_vector: object, terms: tuple[str, ...], settings: Settings,
                  explain: bool, scope: ScopeFilter | None = None) -> list[RecalledMemory]:
    """Observations (in ``scope``) ranked exactly and scored on the RRF scale (weight ``observation_weight``)."""
    out = []
    ranked = observation_ranking(store, bank, query_vector, terms, settings.observation_candidates,  # type: ignore[arg-type]
                                 scope)
    for rank, (obs_id, score) in enumerate(ranked, start=1):
        fused = settings.observation_weight / (settings.rrf_k + rank)
        memory = observation_memory(store, bank, obs_id, fused, {"observation": ChannelHit(rank=rank, score=score)})
        if memory is None:
            continue
        if explain:
            memory.explanation = {"channels": {"observation": {"rank": rank, "score": score}}, "fused": fused,
                                  "multipliers": {}, "time_range": None}
        out.append(memory)
    return out


def add_versions(store: Store, memories: list[RecalledMemory]) -> None:
    """Say when a memory replaced an earlier statement (and, under as_of, when it was later replaced)."""
    ids = [fact_number(m.id) for m in memories]
    lifecycle = store.versions.state_of([i for i in ids if i is not None])
    for memory, fact_id in zip(memories, ids):
        info = lifecycle.get(fact_id) if fact_id is not None else None
        if info:
            memory.supersedes = [fact_memory_id(i) for i in sorted(info["supersedes"])]
            memory.superseded_by = fact_memory_id(info["superseded_by"]) if info["superseded_by"] else None


def recall(ctx: BankContext, query: str, *, max_tokens: int | None = None, limit: int | None = None,
           now: TimeLike | None = None, explain: bool = False, as_of: TimeLike | None = None,
           scope: RecallScope = UNFILTERED) -> Recall:
    """The memories ``query`` needs, best first (see the module docstring); validates its input and
    restarts the decay clock of what it returns (``refresh_on_recall``). ``scope`` (from
    :func:`gieok.engine.scopes.recall_scope`) filters and re-weighs."""
    if not isinstance(query, str):
        raise InputError(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise InputError("query is empty: ask something")
    check_encodable(query, "query")
    for name, value in (("max_tokens", max_tokens), ("limit", limit)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            raise InputError(f"{name} must be a positive whole number, e.g. {name}=10")
    when = to_datetime(now, "now") if now is not None else datetime.now(timezone.utc)
    then = to_datetime(as_of, "as_of") if as_of is not None else None
    result = _rank(ctx, query, now=when, max_tokens=max_tokens, limit=limit, explain=explain, as_of=then,
                   scope=scope)
    if ctx.settings.refresh_on_recall and then is None and result.memories:
        ctx.engine.marks.add([i for i in (fact_number(m.id) for m in result.memories) if i is not None],
                             when.timestamp())
        ctx.engine.marks.flush(wait=False)
    return result


def _rank(ctx: BankContext, query: str, *, now: datetime, max_tokens: int | None, limit: int | None,
          explain: bool, as_of: datetime | None, scope: RecallScope) -> Recall:
    store, bank, embedder, settings, reranker = ctx.store, ctx.bank, ctx.embedder, ctx.settings, ctx.reranker
    only = scope.filter if not scope.filter.empty else None  # what every channel's SQL filters by
    pool = settings.candidates
    channels = enabled_channels(settings)
    rankings: dict[str, list[tuple[int, float]]] = {}
    query_vector = embedder.embed_query(query) if ("semantic" in channels or "graph" in channels) else None
    facts: dict[int, FactRow] = {}  # read once, by the graph channel and for the multipliers
    # one KNN over the facts' own vectors serves the semantic channel and the graph's relevance
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
        seeds: dict[int, float] = {}
        for ranked in rankings.values():
            for rank, (fact_id, _score) in enumerate(ranked[: settings.graph_seeds], start=1):
                seeds[fact_id] = max(seeds.get(fact_id, 0.0), 1.0 / rank)
        candidates = list(dict.fromkeys(i for ranked in rankings.values() for i, _ in ranked))
        facts.update((f.id, f) for f in store.facts.get(bank.id, candidates))
        rankings["graph"] = graph_channel(store, bank, query, list(seeds.items()), pool, similarity,
                                          [facts[i] for i in candidates if i in facts], scope=only)
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
    weights = {name: float(getattr(settings, f"{name}_weight")) for name in CHANNELS}
    if has_hangul(query):
        weights["keyword"] = float(settings.korean_keyword_weight)
    now_ts = now.timestamp()
    weighted = settings.fusion == "weighted"
    if weighted:
        nominated = list(dict.fromkeys(i for ranked in rankings.values() for i, _ in ranked))
        facts.update((f.id, f) for f in store.facts.get(bank.id, [i for i in nominated if i not in facts]))
        features = _weighted_features(facts, dict(rankings.get("semantic", [])), similarity, now_ts)
        fused = weighted_fuse(rankings, features, (settings.weighted_relevance, settings.weighted_importance,
                                                   settings.weighted_recency), settings.weighted_recency_days)
    else:
        fused = rrf_fuse(rankings, k=settings.rrf_k, weights=weights)
    facts.update((f.id, f) for f in store.facts.get(bank.id, [i for i, _, _ in fused if i not in facts]))
    as_of_ts = as_of.timestamp() if as_of is not None else None
    # "나 전에 어디 살았지?" asks for a replaced version as much as "원래" does
    history = as_of is None and (asks_for_history(query) or (asked is not None and asked.previous))
    replaced_weight = float(settings.superseded_weight)
    question_weight = float(settings.question_weight)
    # "지금 어디 살아?": the latest statement of the present state counts more (recency ± present_recency)
    present = float(settings.present_recency) if not history and _ASKS_FOR_NOW.search(query) else _RECENCY_REACH
    other_weight = float(settings.other_speaker_weight)
    named = _one_named_speaker(query, facts.values()) if other_weight < 1.0 else None
    support = Counter(other for _seed, other, kind, _w in store.graph.links_of(list(facts), ("semantic",), only)
                      if kind == "semantic")
    # memory objects are built only for what is returned (a recall fuses a few hundred candidates)
    scored: list[_Scored] = []
    for fact_id, fused_score, hits in fused:
        fact = facts.get(fact_id)
        # a version with a replacement stays findable below it; a document section a new version
        # left out (closed, no replacement) is the document's history, found by as_of or history
        keep = history or (replaced_weight > 0 and fact is not None and fact.superseded_by is not None)
        if fact is None or not _is_current(fact, now_ts, as_of_ts, keep):
            continue
        if only is not None and not only.admits(fact.scope):
            # the last guard: the channels' SQL already filtered; a fact out of scope here is a store bug
            continue
        multipliers = _multipliers(fact, now_ts, time_range, support.get(fact_id, 0), settings.recency_half_life_days,
                                   present)
        if weighted:
            del multipliers["recency"]  # the weighted sum has its own recency term
        if scope.weights:
            multipliers["scope"] = scope_weight(fact.scope, scope)
        if named is not None and fact.speaker is not None and fact.speaker != named:
            multipliers["other_speaker"] = other_weight
        if question_weight < 1.0 and asks_only(fact.text):
            multipliers["question"] = question_weight
        if not history and _replaced(fact, now_ts, as_of_ts):
            # a message says more than the one thing that changed ("두부 is four; we live in 망원동"),
            # so the old version stays findable, below what replaced it
            multipliers["superseded"] = replaced_weight
        final = fused_score * math.prod(multipliers.values())
        scored.append(_Scored(final, fact.tokens, (fact, hits, fused_score, multipliers)))
    if as_of is None and settings.observation_weight > 0:
        for m in _observations(store, bank, query_vector, keyword_terms(query), settings, explain, only):
            if scope.weights:
                m.score *= scope_weight(memory_scope(m), scope)
            scored.append(_Scored(m.score, m.tokens, m))
    scored.sort(key=lambda c: -c.score)
    if not history:
        scored = replacements_first(scored, lambda fact: _replaced(fact, now_ts, as_of_ts))
    scored = spread_messages(scored, float(settings.same_message_weight))

    chunk_of: dict[str, int] = {}

    def build(candidate: _Scored) -> RecalledMemory:
        if isinstance(candidate.item, RecalledMemory):
            return candidate.item
        fact, hits, fused_score, multipliers = candidate.item
        memory = fact_to_memory(fact, candidate.score, hits)
        chunk_of[memory.id] = fact.chunk_id
        if explain:
            memory.explanation = {
                "channels": {name: {"rank": h.rank, "score": h.score} for name, h in hits.items()},
                "fused": fused_score,
                "multipliers": multipliers,
                "time_range": [from_epoch(t).isoformat() for t in time_range] if time_range else None,  # type: ignore[union-attr]
             "decay": decay_verdict(fact),
            }
        return memory

    if reranker is not None and scored:
        head = _rerank(reranker, query, [build(c) for c in scored[: settings.rerank_top]], settings.rerank_top, explain)
        scored = [_Scored(m.score, m.tokens, m) for m in head] + scored[settings.rerank_top:]
    if limit is None and max_tokens is None:
        limit = settings.default_limit
    picked, used = fill_budget(scored, lambda c: c.tokens, max_tokens, limit)
    chosen = [build(c) for c in picked]
    add_versions(store, chosen)
    add_locations(store, [(m, chunk_of[m.id]) for m in chosen if m.id in chunk_of])
    return Recall(query=query, bank=bank.name, memories=chosen, total_tokens=used, max_tokens=max_tokens, now=now,
                  time_range=time_range_dt)
