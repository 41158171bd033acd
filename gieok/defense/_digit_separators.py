"""Projection step 1b: separators people do not expect a detector to know, read as ``-``.

``010~1234~5678``, ``900101_1234567``, ``4111一1111一1111一1111`` (the CJK numeral one) and
``010ー1234ー5678`` (the katakana long mark) are the same numbers as with a hyphen. The same
characters also write ranges, and a range must not glue two numbers into one: ``10~12시``,
``2024-05-01~2024-05-31``, ``02-123-4567~8`` (two consecutive lines, the second one's last digit).
So a separator between digit groups becomes ``-`` when both neighbouring groups are plain digits
(``010~1234``: the separator is the only one in sight, so it is the number's own), and, next to a
group that already has ``-`` or ``.`` in it, only when the two sides together are no longer than one
identifier (13 digits) and the group after it is not a short tail (three digits or more).

Runs after the character fold (so ``～`` has become ``~`` and ``＿`` ``_``) and before the Hangul
digits, which count as digits here too (``공일공~일이삼사~오육칠팔``).
"""

from __future__ import annotations

import re
import string

__all__ = ["digit_separators", "SEPARATORS"]

# ~ and _ (the fold has turned ～ and ＿ into them), the CJK numeral one and its Kangxi radical, the
# katakana long mark (full and half width), wave dashes and tildes, the Hangul vowel ㅡ as a jamo,
# dashed low lines.
_WIDE = "\u4e00\u2f00\u30fc\uff70\u301c\u3030\u223c\u2053\u02dc\u1173\ufe4d\ufe4e\ufe4f"
SEPARATORS = "~_" + _WIDE
_WIDE_SEPARATORS = re.compile(f"[{_WIDE}]")
_HANGUL_DIGITS = "공영일이삼사오육륙칠팔구"
_DIGITS = frozenset("0123456789" + _HANGUL_DIGITS)
_GROUP_CHARS = _DIGITS | frozenset("-.")
# A separator with up to two spaces after it and a digit next.
_CANDIDATE = re.compile("[" + re.escape(SEPARATORS) + "] {0,2}(?=[0-9" + _HANGUL_DIGITS + "])")
_ONE_IDENTIFIER = 13  # digits: a 주민등록번호; a card written with mixed separators is not covered
_SHORT_TAIL = 3
_WORD = frozenset(string.ascii_letters + "_")


def _group_before(text: str, end: int) -> tuple[int, str]:
    """Where the digits, '-' and '.' right before ``end`` start (after skipping up to two spaces), and
    what they are."""
    stop = end
    while stop > 0 and end - stop < 2 and text[stop - 1] == " ":
        stop -= 1
    start = stop
    while start > 0 and text[start - 1] in _GROUP_CHARS:
        start -= 1
    return start, text[start:stop]


def _group_after(text: str, start: int) -> tuple[int, str]:
    end = start
    while end < len(text) and text[end] in _GROUP_CHARS:
        end += 1
    return end, text[start:end].rstrip(".-")


def _digit_count(group: str) -> int:
    return sum(char in _DIGITS for char in group)


def _joins_one_number(before: str, after: str) -> bool:
    if not before or before[-1] not in _DIGITS:
        return False
    if not any(char in "-." for char in before + after):
        return True
    first_after = re.split("[-.]", after, maxsplit=1)[0]
    return (_digit_count(before) + _digit_count(after) <= _ONE_IDENTIFIER
            and len(first_after) >= _SHORT_TAIL)


def digit_separators(text: str) -> list[tuple[int, int, str]]:
    """Edits turning each separator that sits inside one number into ``-`` (see the docstring).

    Digits glued to an ASCII letter or '_' belong to a longer token ("github_pat_0000_1111",
    "IMG_20260517_103045"), whose '_' stays; a separator this pass turned into '-' does not glue."""
    if "~" not in text and "_" not in text and (text.isascii() or _WIDE_SEPARATORS.search(text) is None):
        return []
    edits = []
    mapped: set[int] = set()
    for match in _CANDIDATE.finditer(text):
        at = match.start()
        start, before = _group_before(text, at)
        end, after = _group_after(text, match.end())
        glued = (start > 0 and text[start - 1] in _WORD and start - 1 not in mapped) or (
            end < len(text) and text[end] in _WORD and _CANDIDATE.match(text, end) is None)
        if not glued and _joins_one_number(before, after):
            edits.append((at, at + 1, "-"))
            mapped.add(at)
    return edits
