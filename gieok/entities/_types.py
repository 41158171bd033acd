"""Data records of the entities component: what extraction returns and what resolution consumes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from gieok.entities._korean_names import split_korean_name
from gieok.entities._normalize import normalize_name

EntityKind = Literal["person", "place", "org", "thing", "unknown"]
ResolutionStatus = Literal["match", "new", "ambiguous"]

ENTITY_KINDS: tuple[EntityKind, ...] = ("person", "place", "org", "thing", "unknown")


@dataclass(frozen=True, slots=True)
class Mention:
    """One occurrence of an entity in a text.

    ``surface`` is the text as written without particles ("김 팀장님", "민지 씨", "Dr. Kim");
    ``name`` the normalised name without honorifics, titles or particles ("김", "민지", "Kim");
    ``title`` the title or role attached to it, if any ("팀장", "사촌", "dr"). Plain honorifics
    (씨, 님) are dropped: they say "person" but nothing about which one.
    ``start``/``end`` are character offsets of ``surface`` in the text; a mention that does not come
    from the text (the speaker) has ``start == end == -1``.
    """

    surface: str
    name: str
    kind: EntityKind
    start: int
    end: int
    title: str | None = None

    @property
    def in_text(self) -> bool:
        return self.start >= 0

    @property
    def alias(self) -> str | None:
        """The name to add to the entity's aliases once resolved; None for a bare surname (김 of
        "김 팀장님" names no one by itself — its title is what the entity should remember)."""
        parts = split_korean_name(normalize_name(self.name))
        if parts is not None and parts.surname_only:
            return None
        return self.name


@dataclass(frozen=True)
class CandidateEntity:
    """An existing entity of the bank, as the engine fetched it for one resolution.

    ``cooccurring`` counts the context keys (see ``fact_contexts``) seen in facts that mention this
    entity; ``titles`` are the titles/roles it has been called by (팀장, 사촌); ``last_seen`` the
    time of its latest mention.
    """

    id: str
    canonical_name: str
    aliases: Sequence[str] = ()
    titles: Sequence[str] = ()
    kind: EntityKind = "unknown"
    cooccurring: Mapping[str, int] = field(default_factory=dict)
    last_seen: datetime | None = None


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """The weighted parts of one candidate's score (each already multiplied by its weight)."""

    name: float
    cooccurrence: float
    recency: float
    title: float
    conflict: float = 0.0  # <= 0: the mention's domain (work/family/...) contradicts the candidate's

    @property
    def context(self) -> float:
        """The part of the score that does not come from the name: what disambiguates namesakes."""
        return round(self.cooccurrence + self.title + self.conflict, 6)

    @property
    def total(self) -> float:
        # Rounded so that float noise never decides a merge: 0.4 + 0.2 (= 0.6000000000000001) and
        # 0.3 + 0.3 (= 0.6) must land on the same side of the threshold.
        return round(self.name + self.cooccurrence + self.recency + self.title + self.conflict, 6)


@dataclass(frozen=True, slots=True)
class CandidateScore:
    entity_id: str
    name_similarity: float  # 0..1 before weighting
    breakdown: ScoreBreakdown
    shared_context: tuple[str, ...] = ()  # context keys the mention and the candidate share

    @property
    def total(self) -> float:
        return self.breakdown.total


@dataclass(frozen=True, slots=True)
class Resolution:
    """The decision for one mention.

    * ``match``: ``entity_id`` is the chosen candidate;
    * ``new``: no candidate is good enough — create an entity;
    * ``ambiguous``: several candidates fit the name equally and the context does not pick one
      (``ambiguous_ids``); the engine should not guess (see the package docstring).

    ``scores`` holds every name-compatible candidate, best first, for explanations and debugging.
    """

    status: ResolutionStatus
    entity_id: str | None
    score: float
    scores: tuple[CandidateScore, ...] = ()
    ambiguous_ids: tuple[str, ...] = ()
    reason: str = ""

    @property
    def is_new(self) -> bool:
        return self.status == "new"
