"""Entity resolution: pick one of the candidates the engine fetched, or say "new" / "ambiguous".

Score of a candidate (weights in ``ResolverWeights``, defaults shown)::

    name         0.6 × name similarity (1.0 exact, 0.95 same words, 0.9 partial, 0.5 surname only)
    cooccurrence 0.3 × min(1, Σ over shared context keys of 1/√degree(key))
    recency      0.2 × (1 − days/7) when the candidate was last seen less than 7 days away
    title        0.1 when the mention's title (팀장, 사촌, dr) has been used for the candidate
    conflict    −0.2 when the mention's domain (title, else fact cues) and the candidate's domains
                 (its titles and cue keys) are both known and disjoint: 사촌 vs 대리

The total is rounded to 6 decimals, then compared with the threshold 0.6 (≥ merges). So an exact
name merges on its own; a partial name (민지 for 김민지, Caroline for Caroline Smith) needs one
more piece of evidence — a recent sighting, a shared neighbour, or a matching title.

Namesakes: when several candidates are plausible by name alone (similarity ≥ 0.9; for a fully
specified name such as 김민지 or John Smith only its exact matches), the name cannot choose, so
only the context part (cooccurrence + title + conflict) may: the best one must lead the runner-up
by ``ambiguity_margin`` and reach the threshold, otherwise the answer is ``ambiguous`` (or ``new``
when none reaches the threshold).

Cost: linear in the candidates passed and their co-occurrence maps; nothing else is scanned.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from gieok.entities._context import ALL_DOMAINS, DOMAIN_PREFIX, domains_of, title_domain
from gieok.entities._korean_names import split_korean_name
from gieok.entities._lexicon import KOREAN_SURNAMES
from gieok.entities._normalize import name_words, normalize_name, normalize_title
from gieok.entities._similarity import EXACT, PARTIAL, name_similarity
from gieok.entities._types import (
    CandidateEntity,
    CandidateScore,
    Mention,
    Resolution,
    ScoreBreakdown,
)

_SCORE_DECIMALS = 6


@dataclass(frozen=True, slots=True)
class ResolverWeights:
    """Weights and thresholds of resolution; see the module docstring for the formula."""

    name: float = 0.6
    cooccurrence: float = 0.3
    recency: float = 0.2
    title: float = 0.1
    conflict: float = 0.2
    threshold: float = 0.6
    recency_window_days: float = 7.0
    ambiguity_margin: float = 0.05
    # Degree assumed for a domain cue (#work…) the engine gave no degree for: cues are shared by
    # many facts, so a shared cue is weaker evidence than a shared named entity (degree 1).
    default_cue_degree: int = 4


DEFAULT_WEIGHTS = ResolverWeights()


def is_merge(score: float, threshold: float = DEFAULT_WEIGHTS.threshold) -> bool:
    """The merge rule: rounded score ≥ threshold (so float noise never flips a decision)."""
    return round(score, _SCORE_DECIMALS) >= round(threshold, _SCORE_DECIMALS)


class EntityResolver:
    """Scores candidates for a mention and decides; stateless apart from its weights."""

    def __init__(self, weights: ResolverWeights = DEFAULT_WEIGHTS) -> None:
        self.weights = weights

    def score(
        self,
        mention: Mention | str,
        candidate: CandidateEntity,
        *,
        cooccurring: Collection[str] = frozenset(),
        seen_at: datetime | None = None,
        degrees: Mapping[str, int] | None = None,
    ) -> CandidateScore | None:
        """The score of one candidate, or None when the names are incompatible."""
        mention = _as_mention(mention)
        names = (candidate.canonical_name, *candidate.aliases)
        similarity = name_similarity(
            mention.name, names, title=mention.title, candidate_titles=candidate.titles
        )
        if similarity is None:
            return None
        if similarity < EXACT and _kinds_conflict(mention.kind, candidate.kind):
            # A partial match across kinds (Jordan the country vs Michael Jordan) is a different
            # referent; an exact one is kept because inferred kinds are only best effort.
            return None
        weights = self.weights
        shared = _shared_keys(cooccurring, candidate.cooccurring)
        evidence = sum(
            1.0 / math.sqrt(max(1, _degree(key, degrees, weights.default_cue_degree)))
            for key in shared
        )
        breakdown = ScoreBreakdown(
            name=weights.name * similarity,
            cooccurrence=weights.cooccurrence * min(1.0, evidence),
            recency=weights.recency * _recency(seen_at, candidate.last_seen, weights),
            title=weights.title if _title_matches(mention.title, candidate.titles) else 0.0,
            conflict=-weights.conflict if _domains_conflict(mention, cooccurring, candidate) else 0.0,
        )
        return CandidateScore(
            entity_id=candidate.id,
            name_similarity=similarity,
            breakdown=breakdown,
            shared_context=tuple(sorted(shared)),
        )

    def resolve(
        self,
        mention: Mention | str,
        candidates: Iterable[CandidateEntity],
        *,
        cooccurring: Collection[str] = frozenset(),
        seen_at: datetime | None = None,
        degrees: Mapping[str, int] | None = None,
    ) -> Resolution:
        """Choose a candidate for ``mention``, or answer "new" / "ambiguous"."""
        mention = _as_mention(mention)
        seen: set[str] = set()
        scores: list[CandidateScore] = []
        for candidate in candidates:
            if candidate.id in seen:
                continue
            seen.add(candidate.id)
            scored = self.score(
                mention, candidate, cooccurring=cooccurring, seen_at=seen_at, degrees=degrees
            )
            if scored is not None:
                scores.append(scored)
        scores.sort(key=lambda s: (-s.total, -s.name_similarity, s.entity_id))
        ranked = tuple(scores)
        if not ranked:
            return Resolution("new", None, 0.0, ranked, reason="no name-compatible candidate")

        threshold = self.weights.threshold
        plausible = _namesakes(mention, ranked)
        if len(plausible) >= 2:
            by_context = sorted(plausible, key=lambda s: (-s.breakdown.context, -s.total))
            best, runner_up = by_context[0], by_context[1]
            margin = round(best.breakdown.context - runner_up.breakdown.context, _SCORE_DECIMALS)
            if margin >= self.weights.ambiguity_margin and is_merge(best.total, threshold):
                return Resolution(
                    "match", best.entity_id, best.total, ranked,
                    reason=f"namesakes told apart by context (margin {margin})",
                )
            if not any(is_merge(s.total, threshold) for s in plausible):
                return Resolution("new", None, ranked[0].total, ranked, reason="below threshold")
            return Resolution(
                "ambiguous", None, by_context[0].total, ranked,
                ambiguous_ids=tuple(s.entity_id for s in by_context),
                reason="several candidates fit the name and the context does not choose",
            )

        best = ranked[0]
        if is_merge(best.total, threshold):
            return Resolution("match", best.entity_id, best.total, ranked, reason="best score")
        return Resolution("new", None, best.total, ranked, reason="below threshold")


def resolve(
    mention: Mention | str,
    candidates: Iterable[CandidateEntity],
    *,
    cooccurring: Collection[str] = frozenset(),
    seen_at: datetime | None = None,
    degrees: Mapping[str, int] | None = None,
    weights: ResolverWeights = DEFAULT_WEIGHTS,
) -> Resolution:
    """Shortcut for ``EntityResolver(weights).resolve(...)``."""
    return EntityResolver(weights).resolve(
        mention, candidates, cooccurring=cooccurring, seen_at=seen_at, degrees=degrees
    )


def _as_mention(mention: Mention | str) -> Mention:
    if isinstance(mention, Mention):
        return mention
    return Mention(surface=mention, name=mention, kind="unknown", start=-1, end=-1)


def _is_fully_specified(name: str) -> bool:
    """김민지 or John Smith (not 민지, Caroline, 김): an exact match on it is not a namesake."""
    normalized = normalize_name(name)
    korean = split_korean_name(normalized)
    if korean is not None:
        return korean.surname is not None and korean.given is not None
    return len(name_words(normalized)) >= 2


def _namesakes(mention: Mention, ranked: tuple[CandidateScore, ...]) -> list[CandidateScore]:
    exact = [s for s in ranked if s.name_similarity >= EXACT]
    if exact and _is_fully_specified(mention.name):
        return exact
    return [s for s in ranked if s.name_similarity >= PARTIAL]


def _kinds_conflict(a: str, b: str) -> bool:
    return a != "unknown" and b != "unknown" and a != b


def _degree(key: str, degrees: Mapping[str, int] | None, default_cue_degree: int) -> int:
    if degrees is not None and key in degrees:
        return degrees[key]
    return default_cue_degree if key.startswith(DOMAIN_PREFIX) else 1


def _shared_keys(context: Collection[str], cooccurring: Mapping[str, int]) -> set[str]:
    """Context keys also found among the candidate's co-occurrences.

    Only the (few) context keys are looked up, never the candidate's whole map. A Korean full name
    and its given name count as the same key (김민지 in one fact, 민지 in the next), since facts
    mention the same neighbour in both forms. Keys are expected normalised, as ``fact_contexts``
    makes them.
    """
    if not context or not cooccurring:
        return set()
    shared: set[str] = set()
    for key in context:
        if cooccurring.get(key, 0) > 0:
            shared.add(key)
            continue
        parts = split_korean_name(key)
        if parts is None or parts.surname_only or parts.given is None:
            continue
        if parts.surname is not None:
            variants: Iterable[str] = (parts.given,)
        else:
            variants = (surname + key for surname in KOREAN_SURNAMES)
        if any(cooccurring.get(variant, 0) > 0 for variant in variants):
            shared.add(key)
    return shared


def _recency(seen_at: datetime | None, last_seen: datetime | None, weights: ResolverWeights) -> float:
    if seen_at is None or last_seen is None or weights.recency_window_days <= 0:
        return 0.0
    days = abs((_aware(seen_at) - _aware(last_seen)).total_seconds()) / 86400.0
    if days >= weights.recency_window_days:
        return 0.0
    return 1.0 - days / weights.recency_window_days


def _aware(moment: datetime) -> datetime:
    # Naive timestamps are read as UTC so that mixing naive and aware values never raises.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _title_matches(title: str | None, candidate_titles: Collection[str]) -> bool:
    if not title:
        return False
    normalized = normalize_title(title)
    return any(normalize_title(t) == normalized for t in candidate_titles)


def _domains_conflict(
    mention: Mention, context: Collection[str], candidate: CandidateEntity
) -> bool:
    # The mention's own title is the most direct statement of who it is; only without one do the
    # fact's cue words speak for it.
    own = title_domain(mention.title)
    mention_domains = frozenset({own}) if own else domains_of(frozenset(context))
    if not mention_domains:
        return False
    candidate_domains = {d for d in ALL_DOMAINS if candidate.cooccurring.get(d, 0) > 0}
    for title in candidate.titles:
        domain = title_domain(title)
        if domain is not None:
            candidate_domains.add(domain)
    return bool(candidate_domains) and not (mention_domains & candidate_domains)
