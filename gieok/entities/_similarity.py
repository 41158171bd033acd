"""Name similarity with hard gates: can this mention name refer to an entity with this name?

Returns a similarity in [0, 1], or None when the names cannot denote the same thing. The levels
are few and explicit rather than a fuzzy string distance, because for names a small edit is usually
a different referent (Jane/John, Room 101/102, 김민지/이민지):

* ``EXACT`` (1.0)       — same normalised name;
* ``SAME_WORDS`` (0.95) — same words in another order or punctuation ("Smith, John");
* ``PARTIAL`` (0.9)     — one name is a part of the other: given name ↔ full name (민지 ↔ 김민지),
  word subset (Caroline ↔ Caroline Smith, Q3 earnings ↔ Q3 2024 earnings), or surname + a title
  the entity has been called before (김 팀장 ↔ 김서준 called 팀장);
* ``SURNAME_ONLY`` (0.5) — surname + a title never seen on the entity: weak, must be supported by
  context to merge.

Gates (→ None): numbers that differ unless one set contains the other; a word of the shorter name
missing from the longer (John Smith ≠ Jane Smith, Mel ≠ Melanie); different surnames or given
names; Hangul vs Latin spellings (only an explicit alias links 카롤린 and Caroline).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from gieok.entities._korean_names import KoreanName, is_hangul_syllable, split_korean_name
from gieok.entities._normalize import name_numbers, name_words, normalize_name, normalize_title

EXACT = 1.0
SAME_WORDS = 0.95
PARTIAL = 0.9
SURNAME_ONLY = 0.5


def name_similarity(
    name: str,
    candidate_names: Sequence[str],
    *,
    title: str | None = None,
    candidate_titles: Collection[str] = (),
) -> float | None:
    """Best similarity of ``name`` to any of the candidate's names (canonical name first, then its
    aliases). A name the canonical name rules out in the same script (이민지 for 김민지, Jane Smith for
    Caroline Smith) matches an alias only exactly: a short alias (민지, Smith) is no bridge to a
    namesake; an alias in the other script (카롤린 for Caroline) is what links the two spellings."""
    normalized = normalize_name(name)
    if not normalized:
        return None
    titles = {normalize_title(t) for t in candidate_titles}
    title_seen = title is not None and normalize_title(title) in titles
    best: float | None = None
    ruled_out = False
    for i, other in enumerate(candidate_names):
        other_normalized = normalize_name(other)
        score = pair_similarity(normalized, other_normalized, title_seen=title_seen)
        if i == 0 and score is None and _script(normalized) == _script(other_normalized):
            ruled_out = True
        if ruled_out and score is not None and score < EXACT:
            continue
        if score is not None and (best is None or score > best):
            best = score
    return best


def _script(normalized: str) -> bool:
    """True for a name written in Hangul."""
    return any(is_hangul_syllable(ch) for ch in normalized)


def pair_similarity(a: str, b: str, *, title_seen: bool = False) -> float | None:
    """Similarity of two normalised names; ``title_seen`` = the mention's title is one the entity
    has been called (only matters for surname-only names)."""
    if not a or not b:
        return None
    korean_a, korean_b = split_korean_name(a), split_korean_name(b)
    if korean_a is not None and korean_b is not None:
        return _korean_similarity(korean_a, korean_b, title_seen=title_seen)
    if a == b:
        return EXACT
    if korean_a is not None or korean_b is not None:
        return None
    numbers_a, numbers_b = name_numbers(a), name_numbers(b)
    if numbers_a and numbers_b and not (numbers_a <= numbers_b or numbers_b <= numbers_a):
        return None
    words_a, words_b = name_words(a), name_words(b)
    if not words_a or not words_b:
        return None
    if words_a == words_b:
        return EXACT
    set_a, set_b = set(words_a), set(words_b)
    if set_a == set_b:
        return SAME_WORDS
    if set_a <= set_b or set_b <= set_a:
        return PARTIAL
    return None


def _korean_similarity(a: KoreanName, b: KoreanName, *, title_seen: bool) -> float | None:
    if a.surname_only or b.surname_only:
        return _surname_only_similarity(a, b, title_seen=title_seen)
    if a.given != b.given:
        return None
    if a.surname is not None and b.surname is not None:
        return EXACT if a.surname == b.surname else None
    if a.surname is None and b.surname is None:
        return EXACT
    return PARTIAL


def _surname_only_similarity(a: KoreanName, b: KoreanName, *, title_seen: bool) -> float | None:
    # Two bare surnames ("김 대리" and the entity first met as "김 팀장") are never an exact match:
    # the surname alone names a fifth of the country.
    other_surname = b.surname if a.surname_only else a.surname
    own_surname = a.surname if a.surname_only else b.surname
    if other_surname is None:
        # Only a given name is known on the other side (서준 called 팀장): the surname cannot be
        # checked, so a shared title is the only link, and a weak one.
        return SURNAME_ONLY if title_seen else None
    if other_surname != own_surname:
        return None
    return PARTIAL if title_seen else SURNAME_ONLY
