"""Recall's scoring stage: each fused candidate's features, its multipliers and its final score.

A fact candidate is seen here whole, as one :class:`Features` record: the channels' ranks and raw
scores, the fused score, the query's cosine with it, and every input of the multipliers (its age,
closeness to the query's time range, supporting links, strength, scope weight, whether another
speaker said it, whether it only asks, whether a later statement replaced it). The multipliers —
recency (±5 %, more for "지금 어디 살아?"), time closeness (±10 %), support (0 to +5 %), and the
penalties set in the settings — are small, so relevance dominates. Then a replacement ranks just
above the version it replaced, and facts from one long message step aside for others
(``same_message``). Observations join the candidates with their own score.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from gieok.engine.context import BankContext
from gieok.engine.recall.channels import named_speakers
from gieok.engine.recall.fusion import Fused
from gieok.engine.recall.gather import Gathered
from gieok.engine.recall.observations import observation_memories
from gieok.engine.scopes import RecallScope, memory_scope, scope_weight
from gieok.records import ChannelHit, FactRow, RecalledMemory
from gieok.text.sentences import asks_only
from gieok.text.terms import keyword_terms

__all__ = ["Candidate", "Features", "Scoring", "asks_for_history", "features_of", "is_current", "multipliers",
           "replacements_first", "score_candidates", "scoring_for", "spread_messages"]

_DAY = 86400.0
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
    present: float  # the recency multiplier's reach: ±5 %, or ``present_recency`` for "지금 …?"
    half_life_days: float
    weighted: bool  # ``fusion=weighted`` has its own recency term: no recency multiplier
    superseded_weight: float
    question_weight: float
    other_speaker_weight: float
    same_message_weight: float
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


def scoring_for(ctx: BankContext, query: str, gathered: Gathered, now: datetime, as_of: datetime | None,
                scope: RecallScope) -> Scoring:
    """How this recall scores; the speaker the question names is told from the rows in ``gathered``."""
    settings = ctx.settings
    asked = gathered.asked
    # "나 전에 어디 살았지?" asks for a replaced version as much as "원래" does
    history = as_of is None and (asks_for_history(query) or (asked is not None and asked.previous))
    other_weight = float(settings.other_speaker_weight)
    return Scoring(
        now_ts=now.timestamp(), as_of_ts=as_of.timestamp() if as_of is not None else None,
        time_range=gathered.time_range, history=history,
        # "지금 어디 살아?": the latest statement of the present state counts more (recency ± present_recency)
        present=float(settings.present_recency) if not history and _ASKS_FOR_NOW.search(query) else _RECENCY_REACH,
        half_life_days=settings.recency_half_life_days, weighted=settings.fusion == "weighted",
        superseded_weight=float(settings.superseded_weight), question_weight=float(settings.question_weight),
        other_speaker_weight=other_weight, same_message_weight=float(settings.same_message_weight),
        named=_one_named_speaker(query, gathered.facts.values()) if other_weight < 1.0 else None, scope=scope)


def score_candidates(ctx: BankContext, query: str, gathered: Gathered, fused: Fused, *, now: datetime,
                     as_of: datetime | None, scope: RecallScope, explain: bool) -> list[Candidate]:
    """Every fused fact still visible (and each observation, unless ``as_of``), scored, best first."""
    store, bank, facts = ctx.store, ctx.bank, gathered.facts
    facts.update((f.id, f) for f in store.facts.get(bank.id, [i for i, _, _ in fused if i not in facts]))
    scoring = scoring_for(ctx, query, gathered, now, as_of, scope)  # with every candidate's row read
    links = store.graph.links_of(list(facts), ("semantic",), gathered.only)
    support = Counter(other for _seed, other, kind, _w in links if kind == "semantic")
    semantic = dict(gathered.rankings.get("semantic", []))
    scored: list[Candidate] = []
    for fact_id, fused_score, hits in fused:
        fact = facts.get(fact_id)
        # a version with a replacement stays findable below it; a document section a new version
        # left out (closed, no replacement) is the document's history, found by as_of or history
        keep = scoring.history or (scoring.superseded_weight > 0 and fact is not None
                                   and fact.superseded_by is not None)
        if fact is None or not is_current(fact, scoring.now_ts, scoring.as_of_ts, keep):
            continue
        if gathered.only is not None and not gathered.only.admits(fact.scope):
            # the last guard: the channels' SQL already filtered; a fact out of scope here is a store bug
            continue
        features = features_of(fact, hits, fused_score, scoring, gathered, semantic, support.get(fact_id, 0))
        applied = multipliers(features, scoring)
        scored.append(Candidate(fused_score * math.prod(applied.values()), fact.tokens, features, applied))
    if scoring.as_of_ts is None and ctx.settings.observation_weight > 0:
        for m in observation_memories(ctx, gathered.query_vector, keyword_terms(query), explain, gathered.only):
            if scoring.scope.weights:
                m.score *= scope_weight(memory_scope(m), scoring.scope)
            scored.append(Candidate(m.score, m.tokens, memory=m))
    scored.sort(key=lambda c: -c.score)
    if not scoring.history:
        scored = replacements_first(scored, scoring.replaced)
    return spread_messages(scored, scoring.same_message_weight)


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
        question_only=asks_only(fact.text), replaced=scoring.replaced(fact))


def multipliers(features: Features, scoring: Scoring) -> dict[str, float]:
    """The multipliers of a fact candidate's fused score, by name (``explain=True`` shows them)."""
    fact, present = features.fact, scoring.present
    out = {}
    if not scoring.weighted:  # the weighted sum has its own recency term
        out["recency"] = 1.0 - present + 2 * present * math.exp(-features.age_days * math.log(2)
                                                                / scoring.half_life_days)
    if features.time_closeness is not None:
        out["time"] = 0.90 + 0.20 * features.time_closeness
    out["support"] = 1.0 + 0.05 * min(1.0, math.log1p(features.support) / math.log1p(10))
    if fact.strength < 1.0:  # decayed memories sink a little; archiving, not this, removes them
        out["strength"] = 0.9 + 0.1 * fact.strength
    if features.scope_weight is not None:
        out["scope"] = features.scope_weight
    if features.other_speaker:
        out["other_speaker"] = scoring.other_speaker_weight
    if scoring.question_weight < 1.0 and features.question_only:
        out["question"] = scoring.question_weight
    if not scoring.history and features.replaced:
        # a message says more than the one thing that changed ("두부 is four; we live in 망원동"),
        # so the old version stays findable, below what replaced it
        out["superseded"] = scoring.superseded_weight
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
    """Where a replaced version and what replaced it are both candidates, the replacement ranks just
    above it: "I work at Samsung" keeps its strong match on "Where do I work?", yet the answer is the
    later "I left Samsung and joined Kakao". Its score is lifted, with the lift as the ``replaces``
    multiplier. (A question about the past keeps plain scores: recall does not call this then.)"""
    at = {c.features.fact.id: i for i, c in enumerate(scored) if c.features is not None}
    for _ in range(4):  # a chain A → B → C settles in as many passes as it has links
        moved = False
        for candidate in list(scored):
            if candidate.features is None:
                continue
            fact = candidate.features.fact
            j = at.get(fact.superseded_by) if fact.superseded_by is not None and replaced(fact) else None
            if j is None or scored[j].score > candidate.score:
                continue
            newer = scored[j]
            lift = candidate.score * 1.0001 / newer.score if newer.score > 0 else 1.0
            newer.multipliers["replaces"] = newer.multipliers.get("replaces", 1.0) * lift
            scored[j] = replace(newer, score=newer.score * lift if newer.score > 0 else candidate.score * 1.0001)
            moved = True
        if not moved:
            break
    return sorted(scored, key=lambda c: -c.score)


def spread_messages(scored: list[Candidate], weight: float) -> list[Candidate]:
    """A long message makes many facts, and they match a question alike: ten memories from one message
    say less than ten from ten. Each memory is scored ``weight`` times lower for every better-ranked one
    from the same message (``same_message``), so the others step up; one pass, then sorted again."""
    if weight >= 1.0:
        return scored
    seen: Counter[tuple[object, ...]] = Counter()
    out = []
    for candidate in scored:
        if candidate.features is None:
            out.append(candidate)
            continue
        fact = candidate.features.fact
        key = tuple(sorted(fact.message_ids)) if fact.message_ids else ("chunk", fact.chunk_id)
        repeats = seen[key]
        seen[key] += 1
        if repeats:
            candidate.multipliers["same_message"] = weight ** repeats
            candidate = replace(candidate, score=candidate.score * weight ** repeats)
        out.append(candidate)
    return sorted(out, key=lambda c: -c.score)
