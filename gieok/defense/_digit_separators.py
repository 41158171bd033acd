"""Projection step 1b: separators people do not expect a detector to know, read as ``-``.

``010~1234~5678``, ``900101_1234567``, ``4111一1111一1111一1111`` (the CJK numeral one) and
``010ー1234ー5678`` (the katakana long mark) are the same numbers as with a hyphen. The same
characters also write ranges, and a range must not glue two numbers into one: ``10~12시``,
``2024-05-01~2024-05-31``, ``02-123-4567~8`` (two consecutive lines, the second one's last digit).
So a separator between digit groups becomes ``-`` when both neighbouring groups are plain digits
(``010~1234``: the separator is the only one in sight, so it is the number's own). Next to a group
that already has ``-`` or ``.`` in it, it does not past 19 digits (two numbers), when both sides
have the same shape (``2024-05-01~2024-05-31``), or when the number would end in a short tail (fewer
than three digits after the last separator: ``4567~8`` is two lines). Digits glued to ASCII letters
or '_' are a longer token and keep their '_'.

Runs after the character fold (so ``～`` has become ``~`` and ``＿`` ``_``) and before the Hangul
digits, which count as digits here too (``공일공~일이삼사~오육칠팔``). Step 4 asks the same question
(:func:`one_number`) before it closes up the spaces around a ``-``.
"""

from __future__ import annotations

import re
import string

__all__ = ["digit_separators", "one_number", "SEPARATORS"]

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
_TWO_NUMBERS = 19  # digits: more than the longest card is two numbers side by side
_SHORT_TAIL = 3
_WORD = frozenset(string.ascii_letters + "_")
_ASCII_GROUP_CHARS = frozenset("0123456789-.")
_GROUP_SPLIT = re.compile("[-.]")


def _group_before(text: str, end: int, chars: frozenset[str] = _GROUP_CHARS) -> tuple[int, str]:
    """Where the digits, '-' and '.' right before ``end`` start (after skipping up to two spaces), and
    what they are."""
    stop = end
    while stop > 0 and end - stop < 2 and text[stop - 1] == " ":
        stop -= 1
    start = stop
    while start > 0 and text[start - 1] in chars:
        start -= 1
    return start, text[start:stop]


def _group_after(text: str, start: int, chars: frozenset[str] = _GROUP_CHARS) -> tuple[int, str]:
    end = start
    while end < len(text) and text[end] in chars:
        end += 1
    return end, text[start:end].rstrip(".-")


def _digit_count(group: str) -> int:
    return sum(char in _DIGITS for char in group)


def _joins_one_number(before: str, after: str, ranges: bool) -> bool:
    """``before`` and ``after`` are the digit groups (with '-' and '.') on either side; ``ranges`` when
    the separator is one that writes ranges ('~'), not a hyphen."""
    if not before or before[-1] not in _DIGITS:
        return False
    if not any(char in "-." for char in before + after):
        return True  # "010~1234", "900101_1234567": the only separator in sight is the number's own
    if _digit_count(before) + _digit_count(after) > _TWO_NUMBERS:
        return False  # "010-1234-5678 - 010-9876-5432"
    if not ranges:
        return True  # "4111-1111-1111 - 1111", "123 - 45-67890"
    groups_before, groups_after = _GROUP_SPLIT.split(before), _GROUP_SPLIT.split(after)
    # the same shape twice ("2024-05-01~2024-05-31", "37.56~37.57"), or a short tail ("4567~8": two lines)
    return len(groups_before) != len(groups_after) and len(groups_after[-1]) >= _SHORT_TAIL


def _glued(text: str, at: int, resume: int, mapped: set[int]) -> bool:
    """Are the ASCII digits around the separator at ``at`` part of a longer token ("github_pat_0000_
    1111", "IMG_20260517_103045")? A separator this pass turned into '-' does not glue."""
    start = _group_before(text, at, _ASCII_GROUP_CHARS)[0]
    end = _group_after(text, resume, _ASCII_GROUP_CHARS)[0]
    return (start > 0 and text[start - 1] in _WORD and start - 1 not in mapped) or (
        end < len(text) and text[end] in _WORD and _CANDIDATE.match(text, end) is None)


def one_number(text: str, separator: int, resume: int, ranges: bool = False) -> bool:
    """Does the separator at ``text[separator]`` (the next group starting at ``resume``, after any
    spaces) sit inside one number rather than between two? Step 4 asks this before it closes up
    "010 - 1234" but keeps "010-1234-5678 - 010-9876-5432" two numbers."""
    return _joins_one_number(_group_before(text, separator)[1], _group_after(text, resume)[1], ranges)


def digit_separators(text: str) -> list[tuple[int, int, str]]:
    """Edits turning each separator that sits inside one number into ``-`` (see the docstring)."""
    if "~" not in text and "_" not in text and (text.isascii() or _WIDE_SEPARATORS.search(text) is None):
        return []
    edits = []
    mapped: set[int] = set()
    for match in _CANDIDATE.finditer(text):
        at = match.start()
        if not _glued(text, at, match.end(), mapped) and one_number(text, at, match.end(), ranges=True):
            edits.append((at, at + 1, "-"))
            mapped.add(at)
    return edits
