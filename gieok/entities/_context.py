"""Context keys: what a fact says around a mention, in a form the engine can count per entity.

A mention's context is the set of keys of everything else in the same fact:

* the other mentions' names (normalised, see ``cooccurrence_key``);
* domain cues ("#work", "#family", "#school", "#friend") from cue words anywhere in the fact
  (회사, 회의, 사촌, meeting, cousin…) and from the titles attached to any mention (대리 → #work).

The engine stores, per entity, how often each key appeared in its facts (``CandidateEntity.
cooccurring``). Resolution compares a new mention's context with those counts: it is what keeps
민수 the cousin (부산, #family) and 이민수 the coworker (카카오, #work) apart. Domain cues are
coarse on purpose: two facts about the same person rarely share named entities, but they often
share a domain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gieok.entities._korean_names import split_korean_name
from gieok.entities._lexicon import CUE_WORDS, ENGLISH_PREFIX_ROLES, ENGLISH_TITLES, KOREAN_TITLES
from gieok.entities._normalize import is_hub_name, normalize_name, normalize_title
from gieok.entities._types import Mention
from gieok.text.korean import analyze, has_hangul

DOMAIN_PREFIX = "#"
ALL_DOMAINS: frozenset[str] = frozenset(
    d
    for table in (CUE_WORDS, KOREAN_TITLES, ENGLISH_TITLES, ENGLISH_PREFIX_ROLES)
    for d in table.values()
    if d is not None
)

_LATIN_WORD = re.compile(r"[A-Za-z]+")


def title_domain(title: str | None) -> str | None:
    """The domain a title implies (대리 → "#work", 사촌 → "#family"), or None."""
    if not title:
        return None
    normalized = normalize_title(title)
    return (
        KOREAN_TITLES.get(normalized)
        or ENGLISH_TITLES.get(normalized)
        or ENGLISH_PREFIX_ROLES.get(normalized)
    )


def context_cues(text: str) -> frozenset[str]:
    """Domain cue keys found in ``text`` (Korean nouns through Kiwi, English words by spelling)."""
    cues: set[str] = set()
    if has_hangul(text):
        for form, tag, _lemma, _start, _end in analyze(text):
            if tag.startswith("NN"):
                # Title and kinship nouns are cues too: "이모댁", "팀장이 말하길".
                cue = CUE_WORDS.get(form) or KOREAN_TITLES.get(form)
                if cue is not None:
                    cues.add(cue)
    for word in _LATIN_WORD.findall(text):
        cue = CUE_WORDS.get(word.lower())
        if cue is not None:
            cues.add(cue)
    return frozenset(cues)


def cooccurrence_key(mention: Mention) -> str | None:
    """The key a mention contributes to the context of the others; None for hub names.

    A bare surname is only meaningful with its title ("김 팀장"), so the title is part of its key.
    """
    if is_hub_name(mention.name):
        return None
    normalized = normalize_name(mention.name)
    if not normalized:
        return None
    korean = split_korean_name(normalized)
    if korean is not None and korean.surname_only and mention.title:
        return f"{normalized} {normalize_title(mention.title)}"
    return normalized


def fact_contexts(mentions: Sequence[Mention], text: str = "") -> list[frozenset[str]]:
    """The context keys of each mention of one fact (aligned with ``mentions``).

    Each mention's context holds the other mentions' keys (not its own, nor those of other
    mentions of the same name) plus the domain cues of the whole fact. The engine passes it to the
    resolver as ``cooccurring`` and, after resolution, adds it to the entity's co-occurrence counts.
    """
    shared: set[str] = set(context_cues(text)) if text else set()
    keys: list[str | None] = []
    for mention in mentions:
        domain = title_domain(mention.title)
        if domain is not None:
            shared.add(domain)
        keys.append(cooccurrence_key(mention))
    contexts: list[frozenset[str]] = []
    for own_key in keys:
        others = {key for key in keys if key is not None and key != own_key}
        contexts.append(frozenset(others | shared))
    return contexts


def domains_of(keys: set[str] | frozenset[str]) -> frozenset[str]:
    return frozenset(key for key in keys if key.startswith(DOMAIN_PREFIX))
