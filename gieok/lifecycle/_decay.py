"""Decay classes and the forgetting curve.

``classify_memory`` sorts a statement into one of three decay classes from the cues it contains
(the table lives in ``_decay_cues``):

* **pinned** (importance 0.9-1.0): who the user is and what must not be lost — names, birthdays,
  allergies, health conditions and medication, explicit "기억해 줘" / "remember this". Never decays.
* **stable** (0.5-0.8): preferences, work, relationships, where one lives, diet. Half-life a year.
* **transient** (0.1-0.4): plans and schedules (0.4), one-off events (0.3), moods (0.2), small
  talk and acknowledgements (0.1). Half-life two weeks.
* **document**: every fact of a retained document (``retain(text=...)``) — a refund policy is not a
  passing remark. Never decays; the classifier's importance is kept for ranking. A caller who wants a
  document to fade passes ``decay_class`` (or ``ttl``) on retain.

When several cues fire the strongest class wins: pinned over stable over transient, so "내일 당뇨
때문에 병원 가" stays pinned health information. Weak stable cues (a relative or a workplace merely
mentioned) lose to transient ones, and a bare time word (오늘, yesterday) to a mood or plan. Inside
a class the highest importance wins. Nothing fired:
stable, 0.5. Small talk is decided first, on the whole message (``gieok.extract.is_small_talk``).

``decay_strength`` is an exponential forgetting curve ``0.5 ** (elapsed / half_life)``. ``elapsed``
counts from the most recent of "said" and "last recalled"; every recall stretches the half-life by
``RECALL_STRETCH`` (up to ``MAX_STRETCH`` times), so a memory that keeps being used fades ever more
slowly — spaced repetition without a model. Below ``ARCHIVE_BELOW`` a memory may be archived.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gieok.errors import InputError
from gieok.extract import is_small_talk
from gieok.lifecycle._decay_cues import DecayClass, matched_cues

__all__ = [
    "ARCHIVE_BELOW",
    "DECAY_CLASSES",
    "DEFAULT_IMPORTANCE",
    "HALF_LIFE_DAYS",
    "MAX_STRETCH",
    "RECALL_STRETCH",
    "STABLE_HALF_LIFE_DAYS",
    "TRANSIENT_HALF_LIFE_DAYS",
    "MemoryClass",
    "classify_memory",
    "decay_strength",
    "should_archive",
]

DECAY_CLASSES: tuple[str, ...] = ("pinned", "stable", "transient", "document")
STABLE_HALF_LIFE_DAYS = 365.0
TRANSIENT_HALF_LIFE_DAYS = 14.0
HALF_LIFE_DAYS: dict[str, float] = {
    "pinned": math.inf,
    "document": math.inf,  # reference text (a retained document) does not fade unless the caller says so
    "stable": STABLE_HALF_LIFE_DAYS,
    "transient": TRANSIENT_HALF_LIFE_DAYS,
}
RECALL_STRETCH = 1.5  # each recall multiplies the half-life by this ...
MAX_STRETCH = 8.0  # ... up to this many times the base half-life
ARCHIVE_BELOW = 0.05
DEFAULT_IMPORTANCE = 0.5
SMALL_TALK_IMPORTANCE = 0.1

# Speakers whose "I'll remember that" is a promise, not a request to remember.
_ASSISTANT_SPEAKERS = frozenset({"assistant", "ai", "bot", "system", "model", "agent", "어시스턴트"})
_CLASS_RANK = {"pinned": 0, "stable": 1, "transient": 2}


@dataclass(frozen=True, slots=True)
class MemoryClass:
    """How long a memory should last: its decay class, importance in [0, 1] and the cue that fired."""

    decay_class: DecayClass
    importance: float
    reason: str


def classify_memory(text: str, speaker: str | None = None) -> MemoryClass:
    """The decay class and importance of one statement (see the module docstring for the rules).

    ``speaker`` matters only for explicit requests: when an assistant says "기억해 둘게요" or
    "remember that…", the statement is not pinned for that reason.
    """
    stripped = text.strip()
    if not stripped or is_small_talk(stripped):
        return MemoryClass("transient", SMALL_TALK_IMPORTANCE, "small talk")
    from_assistant = speaker is not None and speaker.strip().casefold() in _ASSISTANT_SPEAKERS
    hits = [
        (cue, words) for cue, words in matched_cues(stripped)
        if not (cue.requester_only and from_assistant)
    ]
    # A weak cue counts only when no other cue says more: 엄마 or 회사 lose to any transient cue
    # ("내일 엄마랑 점심"), a time word like 오늘 loses to a mood or a plan ("오늘 너무 피곤해").
    hits = [
        (cue, words) for cue, words in hits
        if not cue.weak or not any(
            _CLASS_RANK[other.decay_class] > _CLASS_RANK[cue.decay_class]
            or (other.decay_class == cue.decay_class and not other.weak)
            for other, _ in hits if other is not cue
        )
    ]
    if not hits:
        return MemoryClass("stable", DEFAULT_IMPORTANCE, "no cue: default")
    cue, words = min(hits, key=lambda hit: (_CLASS_RANK[hit[0].decay_class], -hit[0].importance))
    return MemoryClass(cue.decay_class, cue.importance, f"{cue.category}: {words}")


def decay_strength(
    decay_class: str,
    age_days: float,
    recalls: int = 0,
    days_since_recall: float | None = None,
) -> float:
    """Memory strength in [0, 1] after ``age_days`` since it was said.

    ``recalls`` is how often it was recalled since, ``days_since_recall`` how long ago the last
    recall was (None: never recalled). Pinned memories are always 1.0.
    """
    half_life = _half_life(decay_class, recalls)
    if math.isinf(half_life):
        return 1.0
    if age_days < 0 or (days_since_recall is not None and days_since_recall < 0):
        raise InputError("decay_strength: ages must be >= 0 days; pass the time since the memory was said")
    elapsed = age_days if days_since_recall is None else min(age_days, days_since_recall)
    return max(0.0, min(1.0, float(0.5 ** (elapsed / half_life))))


def should_archive(
    decay_class: str,
    age_days: float,
    recalls: int = 0,
    days_since_recall: float | None = None,
) -> bool:
    """True when the memory's strength fell below ``ARCHIVE_BELOW``."""
    return decay_strength(decay_class, age_days, recalls, days_since_recall) < ARCHIVE_BELOW


def _half_life(decay_class: str, recalls: int) -> float:
    if decay_class not in HALF_LIFE_DAYS:
        raise InputError(
            f"unknown decay class {decay_class!r}: use one of {', '.join(DECAY_CLASSES)}"
        )
    if recalls < 0:
        raise InputError(f"recalls must be >= 0, got {recalls}")
    return HALF_LIFE_DAYS[decay_class] * min(RECALL_STRETCH**recalls, MAX_STRETCH)
