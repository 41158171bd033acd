"""Recall's scoring stage: each candidate's features, and its score from the learned ranker.

A fact candidate is seen here whole, as one :class:`Features` record: the channels' ranks and raw
scores, the fused score, the query's cosine with it, its age, closeness to the query's time range,
supporting links, whether another speaker said it, whether it only asks, whether a later statement
replaced it. The learned ranker (:mod:`gieok.engine.recall.rank_model`) turns the pool's features
into one score per candidate (a probability-like number in 0..1); observations join the pool as
candidates of their own. Two things stay rules, because they are a user's or the lifecycle's intent
rather than relevance: the ``scopes=`` weight and a decayed memory's strength multiply the score, and
a replacement ranks just above the version it replaced (``replaces``). ``fusion=rrf`` orders the pool
by plain Reciprocal Rank Fusion instead, to compare against.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from gieok.engine.context import BankContext
from gieok.engine.recall.channels import named_speakers
from gieok.engine.recall.fusion import RRF_K, Fused
from gieok.engine.recall.gather import Gathered
from gieok.engine.recall.observations import observation_memories
from gieok.engine.recall.rank_model import FEATURES, PoolItem, PoolQuery, RankModel, feature_matrix, ranker
from gieok.engine.scopes import RecallScope, memory_scope, scope_weight
from gieok.records import ChannelHit, FactRow, RecalledMemory
from gieok.text.sentences import asks_only
from gieok.text.terms import keyword_terms

__all__ = ["Candidate", "Features", "Scoring", "asks_for_history", "features_of", "is_current", "multipliers",
           "pool_item", "rank_pool", "replacements_first", "score_candidates", "scoring_for"]

_DAY = 86400.0

# "원래 언제로 잡혀 있었어?" / "what was it originally?" ask for a version that was since replaced
_ASKS_FOR_HISTORY = re.compile(
    r"원래|처음에|처음엔|처음 ?잡|예전에|예전엔|전에는|이전에|바뀌기 ?전|"
    r"\b(?:originally|at first|initially|used to|use to|previously|"
    r"before (?:it|that|the) (?:was )?(?:changed|moved))\b",
    re.IGNORECASE,
)


def asks_for_history(query: str) -> bool:
    """Does the question ask about an earlier version? Then superseded versions are recalled too."""
    return _ASKS_FOR_HISTORY.search(query) is not None


@dataclass(frozen=True)
class Scoring:
    """How one recall scores: the clock, what the question asks for, and the weights in the settings."""

    now_ts: float
    as_of_ts: float | None
    time_range: tuple[float, float] | None
    history: bool  # the question asks for replaced versions (or as_of is set): plain scores for them
    learned: bool  # the learned ranker orders the pool (else plain RRF, ``fusion=rrf``)
    named: str | None  # the one speaker the question names, when it tells candidates apart
    scope: RecallScope

    def replaced(self, fact: FactRow) -> bool:
        """Was ``fact`` replaced by a later statement, as of the recall's moment?"""
        at = self.now_ts if self.as_of_ts is None else self.as_of_ts
        return fact.valid_to is not None and fact.valid_to <= at


@dataclass(frozen=True)
class Features:
    """One fact candidate as the scoring stage sees it: everything its score is made of."""

    fact: FactRow
    channels: dict[str, ChannelHit]  # each channel's rank and raw score
    fused: float  # the fused score (RRF, or the weighted sum)
    cosine: float | None = None  # the query's cosine with it (semantic channel's, else the KNN's bound)
    age_days: float = 0.0  # since it was said (0 when unknown)
    time_closeness: float | None = None  # 1.0 inside the query's time range; None without one
    support: int = 0  # semantic links to it from the other candidates
    scope_weight: float | None = None  # the ``scopes=`` weight of its scope; None without weights
    other_speaker: bool = False  # said by someone other than the one speaker the question names
    named_speaker: bool = False  # said by the one speaker the question names
    question_only: bool = False  # a question and nothing else ("What do you think?")
    replaced: bool = False  # a later statement replaced it


@dataclass(frozen=True)
class Candidate:
    """A recall candidate before it becomes a RecalledMemory: its final score and tokens, and either a
    fact's features with the multipliers applied to them, or an observation memory already built."""

    score: float
    tokens: int
    features: Features | None = None
    multipliers: dict[str, float] = field(default_factory=dict)
    memory: RecalledMemory | None = None
    explained: dict[str, object] | None = None  # with ``explain``: the ranker's features and contributions


def scoring_for(ctx: BankContext, query: str, gathered: Gathered, now: datetime, as_of: datetime | None,
                scope: RecallScope) -> Scoring:
    """How this recall scores; the speaker the question names is told from the rows in ``gathered``."""
    asked = gathered.asked
    # "나 전에 어디 살았지?" asks for a replaced version as much as "원래" does
    history = as_of is None and (asks_for_history(query) or (asked is not None and asked.previous))
    return Scoring(
        now_ts=now.timestamp(), as_of_ts=as_of.timestamp() if as_of is not None else None,
        time_range=gathered.time_range, history=history, learned=ctx.settings.fusion == "learned",
        named=_one_named_speaker(query, gathered.facts.values()), scope=scope)


def score_candidates(ctx: BankContext, query: str, gathered: Gathered, fused: Fused, *, now: datetime,
                     as_of: datetime | None, scope: RecallScope, explain: bool) -> list[Candidate]:
    """Every fused fact still visible (and each observation, unless ``as_of``), scored, best first."""
    store, bank, facts = ctx.store, ctx.bank, gathered.facts
    facts.update((f.id, f) for f in store.facts.get(bank.id, [i for i, _, _ in fused if i not in facts]))
    scoring = scoring_for(ctx, query, gathered, now, as_of, scope)  # with every candidate's row read
    links = store.graph.links_of(list(facts), ("semantic",), gathered.only)
    support = Counter(other for _seed, other, kind, _w in links if kind == "semantic")
    semantic = dict(gathered.rankings.get("semantic", []))
    pool: list[Candidate] = []
    for fact_id, fused_score, hits in fused:
        fact = facts.get(fact_id)
        # a version with a replacement stays findable below it; a document section a new version
        # left out (closed, no replacement) is the document's history, found by as_of or history
        keep = scoring.history or (fact is not None and fact.superseded_by is not None)
        if fact is None or not is_current(fact, scoring.now_ts, scoring.as_of_ts, keep):
            continue
        if gathered.only is not None and not gathered.only.admits(fact.scope):
            # the last guard: the channels' SQL already filtered; a fact out of scope here is a store bug
            continue
        features = features_of(fact, hits, fused_score, scoring, gathered, semantic, support.get(fact_id, 0))
        pool.append(Candidate(fused_score, fact.tokens, features))
    if scoring.as_of_ts is None:
        # an observation's RRF score (``fusion=rrf``) is that of one channel's rank
        pool.extend(Candidate(1.0 / (RRF_K + rank), m.tokens, memory=m) for rank, m in enumerate(
            observation_memories(ctx, gathered.query_vector, keyword_terms(query), gathered.only), start=1))
    scored = rank_pool(pool, query, scoring, explain)
    scored.sort(key=lambda c: -c.score)
    return scored if scoring.history else replacements_first(scored, scoring.replaced)


def rank_pool(pool: list[Candidate], query: str, scoring: Scoring, explain: bool) -> list[Candidate]:
    """Each candidate's score: the learned ranker's (or its RRF score under ``fusion=rrf``) times its
    multipliers (``scope``, ``strength``); ``explain`` keeps its features and their contributions."""
    if not pool:
        return []
    applied_to = [multipliers(c, scoring) for c in pool]
    items = [pool_item(c, scoring.now_ts, a.get("scope", 1.0)) for c, a in zip(pool, applied_to, strict=True)]
    x = feature_matrix(items, PoolQuery(query, scoring.time_range is not None, scoring.history))
    model = ranker() if scoring.learned else None
    raw = model.score(x) if model is not None else np.array([c.score for c in pool])
    out = []
    for row, (candidate, value, applied) in enumerate(zip(pool, raw.tolist(), applied_to, strict=True)):
        score = 1.0 / (1.0 + math.exp(-value)) if model is not None else value
        for factor in applied.values():
            score *= factor
        explained = _explained(x[row], value, model) if explain else None
        out.append(Candidate(score, candidate.tokens, candidate.features, applied, candidate.memory, explained))
    return out


def _explained(row: np.ndarray, value: float, model: RankModel | None) -> dict[str, object]:
    features = {name: round(float(v), 4) for name, v in zip(FEATURES, row, strict=True)}
    if model is None:
        return {"features": features}
    return {"features": features, "ranker": float(value),
            "contributions": {k: round(v, 4) for k, v in model.contributions(row).items()}}


def features_of(fact: FactRow, hits: dict[str, ChannelHit], fused: float, scoring: Scoring, gathered: Gathered,
                semantic: Mapping[int, float], support: int) -> Features:
    """The features of one fact candidate (see :class:`Features`)."""
    now_ts = scoring.now_ts
    said = fact.mentioned_at if fact.mentioned_at is not None else now_ts
    closeness = None
    if scoring.time_range is not None:
        start, end = scoring.time_range
        f_start = fact.occurred_start if fact.occurred_start is not None else said
        f_end = fact.occurred_end if fact.occurred_end is not None else f_start
        middle, half = (start + end) / 2, max((end - start) / 2, 3600.0)
        overlaps = f_start < end and f_end >= start
        closeness = 1.0 if overlaps else 1.0 / (1.0 + abs((f_start + f_end) / 2 - middle) / half)
    cosine = semantic.get(fact.id)
    if cosine is None and gathered.similarity is not None:
        cosine = gathered.similarity.of(fact.id)
    return Features(
        fact=fact, channels=hits, fused=fused, cosine=cosine, age_days=max(0.0, now_ts - said) / _DAY,
        time_closeness=closeness, support=support,
        scope_weight=scope_weight(fact.scope, scoring.scope) if scoring.scope.weights else None,
        other_speaker=scoring.named is not None and fact.speaker is not None and fact.speaker != scoring.named,
        named_speaker=scoring.named is not None and fact.speaker == scoring.named,
        question_only=asks_only(fact.text), replaced=scoring.replaced(fact))


def pool_item(candidate: Candidate, now_ts: float, scope: float = 1.0) -> PoolItem:
    """A candidate as the learned ranker reads it (see :mod:`gieok.engine.recall.rank_model`);
    ``scope`` is its ``scopes=`` weight (its ``scope`` multiplier)."""
    features, memory = candidate.features, candidate.memory
    if features is None:
        assert memory is not None  # a candidate is a fact or a memory already built
        return PoolItem(
            hits=memory.channels, cosine=None, now_ts=now_ts,
            said_at=memory.mentioned_at.timestamp() if memory.mentioned_at else None,
            time_closeness=None, support=0, strength=1.0, importance=0.5, speaker_named=False, other_speaker=False,
            question_only=False, replaced=False, fact_id=None, superseded_by=None, message_key=None,
            tokens=memory.tokens, text=memory.text, chunk=False, observation=True, scope_weight=scope)
    fact = features.fact
    return PoolItem(
        hits=features.channels, cosine=features.cosine, said_at=fact.mentioned_at, now_ts=now_ts,
        time_closeness=features.time_closeness,
        support=features.support, strength=fact.strength, importance=fact.importance,
        speaker_named=features.named_speaker, other_speaker=features.other_speaker,
        question_only=features.question_only, replaced=features.replaced, fact_id=fact.id,
        superseded_by=fact.superseded_by,
        message_key=tuple(sorted(fact.message_ids)) if fact.message_ids else ("chunk", fact.chunk_id),
        tokens=fact.tokens, text=fact.text, chunk=not fact.message_ids, observation=False, scope_weight=scope)


def multipliers(candidate: Candidate, scoring: Scoring) -> dict[str, float]:
    """What multiplies a candidate's ranked score, by name: its ``scopes=`` weight, and a decayed
    memory's strength (it sinks a little; archiving, not this, removes it)."""
    out = {}
    features, memory = candidate.features, candidate.memory
    if features is not None and features.fact.strength < 1.0:
        out["strength"] = 0.9 + 0.1 * features.fact.strength
    if scoring.scope.weights:
        if features is not None and features.scope_weight is not None:
            out["scope"] = features.scope_weight
        elif memory is not None:
            out["scope"] = scope_weight(memory_scope(memory), scoring.scope)
    return out


def is_current(fact: FactRow, now_ts: float, as_of: float | None = None, keep_replaced: bool = False) -> bool:
    """Visible to a recall at ``now`` (as the bank stands) or ``as_of`` (as it stood then);
    ``keep_replaced`` keeps versions a later statement replaced (recall then ranks them lower)."""
    if fact.expires_at is not None and fact.expires_at <= now_ts:
        return False  # a TTL is real time: an expired fact is gone, whatever as_of says
    at = now_ts if as_of is None else as_of
    if fact.valid_to is not None and fact.valid_to <= at and not keep_replaced:
        return False
    if as_of is None:
        return fact.archived_at is None
    said = fact.mentioned_at if fact.mentioned_at is not None else fact.created_at
    return said <= as_of and (fact.archived_at is None or fact.archived_at > as_of)


def _one_named_speaker(query: str, facts: Iterable[FactRow]) -> str | None:
    """The one speaker of the candidates whom ``query`` names ("What would Caroline pursue?",
    "지현이 다니는 회사는?"), when there are others to tell apart; None when it names none or several
    ("What did Caroline tell Melanie?"). Names are matched as the graph channel matches them."""
    speakers = sorted({f.speaker for f in facts if f.speaker})
    if len(speakers) < 2:
        return None
    named = named_speakers(query, speakers)
    return next(iter(named)) if len(named) == 1 else None


def replacements_first(scored: list[Candidate], replaced: Callable[[FactRow], bool]) -> list[Candidate]:
    """Where a replaced version and what replaced it are both candidates, the current version ranks
    just above it and the replaced one never above its replacement: "I work at Samsung" keeps its
    strong match on "Where do I work?", yet the answer is the later "I left Samsung and joined
    Kakao", which takes its place (the ``replaces`` multiplier); a replaced version that still
    outranks its replacement steps down to just below it (``replaced``). Only a current version is
    lifted, so a chain of versions each replacing the last cannot lift old ones over everything.
    A question about the past keeps the ranker's order: recall does not call this then."""
    at = {c.features.fact.id: i for i, c in enumerate(scored) if c.features is not None}
    for candidate in list(scored):  # the current version takes the place of what it replaced
        j = _replacement_of(candidate, at, replaced)
        newer_features = scored[j].features if j is not None else None
        if j is not None and newer_features is not None and not replaced(newer_features.fact) \
                and scored[j].score < candidate.score:
            newer = scored[j]
            lift = candidate.score * 1.0001 / newer.score if newer.score > 0 else 1.0
            newer.multipliers["replaces"] = newer.multipliers.get("replaces", 1.0) * lift
            scored[j] = replace(newer, score=candidate.score * 1.0001)
    for _ in range(4):  # a chain A → B → C settles in as many passes as it has links
        moved = False
        for i, candidate in enumerate(scored):
            j = _replacement_of(candidate, at, replaced)
            if j is None or scored[j].score > candidate.score:
                continue
            drop = scored[j].score * 0.9999 / candidate.score if candidate.score > 0 else 0.0
            candidate.multipliers["replaced"] = candidate.multipliers.get("replaced", 1.0) * drop
            scored[i] = replace(candidate, score=candidate.score * drop)
            moved = True
        if not moved:
            break
    return sorted(scored, key=lambda c: -c.score)


def _replacement_of(candidate: Candidate, at: Mapping[int, int], replaced: Callable[[FactRow], bool]) -> int | None:
    """Where the candidate that replaced this one stands in the list (None: not replaced, or not there)."""
    if candidate.features is None:
        return None
    fact = candidate.features.fact
    return at.get(fact.superseded_by) if fact.superseded_by is not None and replaced(fact) else None
