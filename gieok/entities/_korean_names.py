"""Korean personal names: surname / given-name split and the shape tests built on it.

Korean people are referred to by full name (김민지), by given name (민지, 민지 씨, 민지야), or by
surname + title (김 팀장님). Resolution therefore needs to know which part of a written name is
the surname. The rule used here:

* a bare common surname (김, 남궁) is "surname only" — it only ever reaches us with a title attached;
* three syllables whose first syllable is a common surname → surname + two-syllable given name
  (김민지 → 김 + 민지), unless the first two syllables form a compound surname (남궁민 → 남궁 + 민);
* four syllables starting with a compound surname → compound surname + given name (남궁민수);
* two syllables are read as a given name (민지, 서준). Surname + one-syllable given names (김구)
  exist but are rare today, while two-syllable given names starting with a surname syllable
  (서준, 정민, 윤서) are everywhere; misreading 서준 as 서 + 준 would make it clash with 김서준.
"""

from __future__ import annotations

from dataclasses import dataclass

from gieok.entities._lexicon import KOREAN_COMPOUND_SURNAMES, KOREAN_SURNAMES

_HANGUL_FIRST = 0xAC00
_HANGUL_LAST = 0xD7A3


def is_hangul_syllable(char: str) -> bool:
    return len(char) == 1 and _HANGUL_FIRST <= ord(char) <= _HANGUL_LAST


def is_hangul_word(text: str) -> bool:
    """True when ``text`` is non-empty and made only of Hangul syllables."""
    return bool(text) and all(is_hangul_syllable(c) for c in text)


def has_final_consonant(char: str) -> bool:
    """True when the syllable ends in a consonant (받침): 훈 yes, 지 no."""
    return is_hangul_syllable(char) and (ord(char) - _HANGUL_FIRST) % 28 != 0


@dataclass(frozen=True, slots=True)
class KoreanName:
    """A Hangul name split into its parts; either part may be unknown (None)."""

    surname: str | None
    given: str | None

    @property
    def surname_only(self) -> bool:
        return self.surname is not None and self.given is None


def is_surname(text: str) -> bool:
    return text in KOREAN_SURNAMES or text in KOREAN_COMPOUND_SURNAMES


def split_korean_name(name: str) -> KoreanName | None:
    """Split a Hangul name into surname and given name; None when ``name`` is not Hangul-only.

    Names that do not look like personal names (삼성전자, 한라산) still come back as a
    ``KoreanName`` — with ``given`` set to the whole word — because the caller, not this function,
    decides whether the thing is a person; the split only matters when it is.
    """
    if not is_hangul_word(name):
        return None
    length = len(name)
    if is_surname(name):
        return KoreanName(surname=name, given=None)
    if length == 3:
        if name[:2] in KOREAN_COMPOUND_SURNAMES:
            return KoreanName(surname=name[:2], given=name[2:])
        if name[0] in KOREAN_SURNAMES:
            return KoreanName(surname=name[0], given=name[1:])
    if length == 4 and name[:2] in KOREAN_COMPOUND_SURNAMES:
        return KoreanName(surname=name[:2], given=name[2:])
    return KoreanName(surname=None, given=name)


def looks_like_full_name(name: str) -> bool:
    """Surname + given name in the usual shapes (김민지, 남궁민수)."""
    parts = split_korean_name(name)
    return parts is not None and parts.surname is not None and parts.given is not None


def strip_hypocoristic(name: str) -> str:
    """Drop the affectionate -이 that follows consonant-final given names (지훈이 → 지훈).

    Kiwi usually splits it off as a suffix, but sometimes keeps it inside the proper noun. Only
    stripped when the syllable before it ends in a consonant (the only place Korean adds it) and
    what remains is still name-sized, so two-syllable names (민이, 하이) are left alone. A rare
    full name such as 김은이 would be misread as 김은; given names + 이 are far more common.
    """
    if len(name) in (3, 4) and name.endswith("이") and has_final_consonant(name[-2]):
        stem = name[:-1]
        if len(stem) == 2 or looks_like_full_name(stem):
            return stem
    return name
