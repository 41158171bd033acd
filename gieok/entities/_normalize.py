"""Name normalisation and the lookup keys the store indexes.

Resolution never scans all entities of a bank: the engine indexes every entity under a few short
keys (``entity_keys``) and, for a mention, fetches only the entities sharing one of the mention's
keys (``candidate_keys``). Keys are chosen so that every pair the resolver could merge shares one:

* the normalised full name ("김민지", "caroline smith");
* for Korean full names, the given name ("민지") — so 김민지 and 민지 meet — and a surname key
  ("surname:김") — so 김 팀장님 meets 김서준;
* for multiword names, each word that has a letter ("caroline", "smith") — so Caroline meets
  Caroline Smith and Smith meets John Smith (the resolver then rejects Jane Smith).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from gieok.entities._korean_names import is_hangul_word, split_korean_name
from gieok.entities._lexicon import (
    ENGLISH_CONNECTORS,
    HUB_NAMES,
    KOREAN_ORG_SUFFIXES,
    KOREAN_PLACE_SUFFIXES,
)

SURNAME_KEY_PREFIX = "surname:"

_POSSESSIVE = re.compile(r"(?<=[^\W\d_])['’]s?$")
_ABBREVIATION_DOT = re.compile(r"\.(?=\s|$)")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d+")
_EDGE_PUNCTUATION = " \t\r\n\"'“”‘’()[]{}<>.,!?;:·…-"


@lru_cache(maxsize=16384)  # a pure function, asked for every known name of a bank on each message
def normalize_name(name: str) -> str:
    """Casefolded, punctuation-trimmed form of a name; the unit of exact comparison.

    "Caroline's" → "caroline"; "St. Louis" → "st louis"; "김 민지" → "김민지" (Korean names are
    written with or without the space between surname and given name, and multi-part Hangul names
    such as "서울 대학교" are spaced inconsistently, so spaces inside all-Hangul names are dropped).
    """
    text = unicodedata.normalize("NFKC", name).strip(_EDGE_PUNCTUATION)
    text = _POSSESSIVE.sub("", text)
    text = _ABBREVIATION_DOT.sub("", text)
    text = _SPACES.sub(" ", text).strip(_EDGE_PUNCTUATION).casefold()
    parts = text.split(" ")
    if len(parts) > 1 and all(is_hangul_word(p) for p in parts):
        text = "".join(parts)
    return text


def name_words(normalized: str) -> list[str]:
    return _WORD.findall(normalized)


def name_numbers(normalized: str) -> frozenset[str]:
    """Digit runs of a name; "Q3 2024 earnings" → {"3", "2024"}. Leading zeros do not matter."""
    return frozenset(n.lstrip("0") or "0" for n in _NUMBER.findall(normalized))


def normalize_title(title: str) -> str:
    """팀장님 → 팀장, "Dr." → "dr": titles are compared without honorifics or dots."""
    text = normalize_name(title)
    if len(text) > 1 and text.endswith("님"):
        text = text[:-1]
    return text


def is_hub_name(name: str) -> bool:
    """True for names the engine must never turn into entities: first/second-person pronouns and
    conversation roles (나, 저, 우리, I, me, we, user, assistant…).

    They would be mentioned in nearly every fact and make the graph channel useless. Damping other
    frequent entities (1/√degree) is the engine's job, with the degrees it stores.
    """
    return normalize_name(name) in HUB_NAMES


def candidate_keys(name: str) -> list[str]:
    """Keys under which to look up candidates for ``name`` (and to index an entity named ``name``).

    Returns [] for hub names and empty names. The first key is always the normalised name itself,
    except for a bare surname (a "김 팀장님" mention), whose only key is the surname key.
    """
    normalized = normalize_name(name)
    if not normalized or normalized in HUB_NAMES:
        return []
    korean = split_korean_name(normalized)
    if korean is not None:
        if korean.surname_only:
            return [SURNAME_KEY_PREFIX + normalized]
        keys = [normalized]
        if korean.surname is not None and korean.given is not None and not _place_or_org(normalized):
            keys += [korean.given, SURNAME_KEY_PREFIX + korean.surname]
        return keys
    keys = [normalized]
    words = name_words(normalized)
    if len(words) > 1:
        for word in words:
            if word in ENGLISH_CONNECTORS or word.isdigit() or word in keys:
                continue
            keys.append(word)
    return keys


def _place_or_org(name: str) -> bool:
    # 한라산 and 서울역 have the surname + given-name shape; indexing them under "라산" or the
    # surname 한 would only put noise into the buckets that people are looked up in.
    return name.endswith(KOREAN_PLACE_SUFFIXES) or name.endswith(KOREAN_ORG_SUFFIXES)


def entity_keys(canonical_name: str, aliases: Iterable[str] = ()) -> list[str]:
    """Every key an entity should be indexed under: the union of its names' keys, in order."""
    keys: list[str] = []
    for name in (canonical_name, *aliases):
        for key in candidate_keys(name):
            if key not in keys:
                keys.append(key)
    return keys


def name_specificity(name: str) -> tuple[int, int]:
    """How much a name pins down its bearer: (parts, length). 김민지 > 민지 > 김; John Smith > John."""
    normalized = normalize_name(name)
    korean = split_korean_name(normalized)
    if korean is not None:
        parts = (korean.surname is not None) + (korean.given is not None)
        if korean.surname_only:
            parts = 0
        return (parts, len(normalized))
    return (len(name_words(normalized)), len(normalized))


def preferred_canonical(current: str, new: str) -> str:
    """The better canonical name once ``new`` was resolved to an entity named ``current``.

    Keeps ``current`` unless ``new`` is strictly more specific (민지 → 김민지, Caroline →
    Caroline Smith); the replaced name should then be kept as an alias.
    """
    return new if name_specificity(new) > name_specificity(current) else current
