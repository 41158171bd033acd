"""Counts written in digits, Korean (native and Sino-Korean) and English words.

A count is a ``(low, high)`` pair so that vague amounts ("며칠", "a few", "두세") travel through the
same code as exact ones: an exact count has ``low == high``.  "A few" and its kin mean 2 to 6.
"""

from __future__ import annotations

from collections.abc import Iterable

Count = tuple[int, int]

FEW: Count = (2, 6)

# Native Korean counters as they appear before a unit noun (한 달, 두 주, 석 달, 스무 해).
KO_NATIVE: dict[str, int] = {
    "하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "석": 3, "서": 3, "넷": 4, "네": 4, "넉": 4,
    "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "열한": 11, "열두": 12,
    "열세": 13, "열네": 14, "열다섯": 15, "스무": 20,
}
KO_VAGUE: dict[str, Count] = {
    "몇": FEW, "수": FEW, "여러": FEW, "두어": (2, 2), "두세": (2, 3), "서너": (3, 4),
    "너덧": (4, 5), "네댓": (4, 5), "대여섯": (5, 6),
}
# Words that already contain their unit: days, and the handful of longer spans.
KO_DAY_WORDS: dict[str, int] = {
    "하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "여드레": 8,
    "아흐레": 9, "열흘": 10, "보름": 15,
}
KO_SPAN_WORDS: dict[str, tuple[str, int]] = {
    "일주일": ("week", 1), "반년": ("month", 6), "반달": ("day", 15), "한 해": ("year", 1),
}
_SINO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}

EN_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
}
EN_VAGUE: dict[str, Count] = {
    "a few": FEW, "few": FEW, "several": FEW, "a couple of": (2, 2), "a couple": (2, 2),
    "couple of": (2, 2), "couple": (2, 2),
}


def _alternation(words: Iterable[str]) -> str:
    # Longest first so that "열한" wins over "열" and "a couple of" over "a".
    return "|".join(sorted(words, key=len, reverse=True))


#: Regex fragments (no groups) for a count before a unit.
KO_NATIVE_RE = _alternation(list(KO_NATIVE) + list(KO_VAGUE))
KO_SINO_RE = "(?:[이삼사오육칠팔구]?십[일이삼사오육칠팔구]?|[일이삼사오육칠팔구])"
KO_DAY_WORDS_RE = _alternation(KO_DAY_WORDS)
EN_COUNT_RE = r"(?:\d{1,3}|" + _alternation(
    [w.replace(" ", r"\s+") for w in EN_VAGUE] + list(EN_NUMBERS)
) + ")"


def sino_korean(text: str) -> int | None:
    """Sino-Korean numerals up to 99: 일, 삼, 십, 이십오."""
    if not text:
        return None
    if "십" in text:
        tens_text, _, ones_text = text.partition("십")
        tens = _SINO_DIGITS.get(tens_text, 0) if tens_text else 1
        ones = _SINO_DIGITS.get(ones_text, 0) if ones_text else 0
        if (tens_text and not tens) or (ones_text and not ones):
            return None
        return tens * 10 + ones
    return _SINO_DIGITS.get(text)


def korean_count(text: str) -> Count | None:
    text = "".join(text.split())
    if text.isdigit():
        return int(text), int(text)
    if text in KO_VAGUE:
        return KO_VAGUE[text]
    if text in KO_NATIVE:
        value = KO_NATIVE[text]
        return value, value
    sino = sino_korean(text)
    return None if sino is None else (sino, sino)


def english_count(text: str) -> Count | None:
    text = " ".join(text.lower().split())
    if text.isdigit():
        return int(text), int(text)
    if text in EN_VAGUE:
        return EN_VAGUE[text]
    value = EN_NUMBERS.get(text)
    return None if value is None else (value, value)
