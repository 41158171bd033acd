"""Key values of a statement: the slots that change when a fact is updated.

``find_values`` reads, in this order and without overlaps, dates, clock times, weekdays, months,
numbers and proper nouns, each as a ``Value`` with a kind, a normalised form and its surface text:

==========  ==================================================  ===================
kind        examples                                            normalised
==========  ==================================================  ===================
date        5월 3일, 2024-05-03, May 3rd, 3 May, 5/3              ``05-03``
time        3시, 오후 3시 반, 네 시, 3pm, 15:00, at 4              ``15:00``
weekday     금요일, 금욜, Friday                                  ``friday``
month       5월, in May                                         ``may``
number      32살, 10 mg, 3명, 2                                 ``32살``, ``10mg``
name        카카오, 부산 (Kiwi NNP), Seattle (gieok.entities)      ``카카오``, ``seattle``
==========  ==================================================  ===================

Korean and English normalise to the same forms (금요일 and Friday are both ``friday``), so a
correction may switch language. A clock hour without 오전/오후/am/pm follows ``gieok.temporal``:
1-6 o'clock is afternoon, 7-11 morning. Values compare within a group (weekday and date are both
"day"), which is how ``detect_update`` knows that 금요일 → 월요일 is one slot changing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gieok.entities import extract_mentions, normalize_name
from gieok.text.korean import analyze, has_hangul

__all__ = ["Value", "extract_values", "find_values", "value_group"]


@dataclass(frozen=True, slots=True)
class Value:
    kind: str  # "date" | "time" | "weekday" | "month" | "number" | "name"
    norm: str
    surface: str
    start: int
    end: int


_GROUPS = {"date": "day", "weekday": "day", "time": "time", "month": "month", "number": "number", "name": "name"}


def value_group(value: Value) -> str:
    return _GROUPS[value.kind]


_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
_MONTH_WORD = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_KOREAN_WEEKDAYS = {"월": "monday", "화": "tuesday", "수": "wednesday", "목": "thursday",
                    "금": "friday", "토": "saturday", "일": "sunday"}
_ENGLISH_WEEKDAYS = {"mon": "monday", "tues": "tuesday", "wednes": "wednesday", "thurs": "thursday",
                     "fri": "friday", "satur": "saturday", "sun": "sunday"}
_KOREAN_HOURS = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8,
                 "아홉": 9, "열": 10, "열한": 11, "열두": 12}
_PM_WORDS = frozenset({"오후", "저녁", "밤", "낮", "pm", "p.m.", "p.m"})
_AM_WORDS = frozenset({"오전", "새벽", "아침", "am", "a.m.", "a.m"})

_DATE_PATTERNS = (
    re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"),
    re.compile(r"(?:(\d{4})\s*년\s*)?(?<!\d)(\d{1,2})\s*월\s*(\d{1,2})\s*일(?!\s*(?:간|동안|째))"),
)
_ENGLISH_DATES = (
    (re.compile(rf"\b{_MONTH_WORD}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s*(\d{{4}}))?\b", re.IGNORECASE), "md"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}(?:,?\s*(\d{{4}}))?\b", re.IGNORECASE), "dm"),
    (re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?(?![\d/])"), "slash"),
)
_KOREAN_TIME = re.compile(
    r"(?:(오전|오후|아침|저녁|밤|새벽|낮)\s*)?"
    r"(?:(?<!\d)(\d{1,2})|(?<![가-힣])(열한|열두|다섯|여섯|일곱|여덟|아홉|한|두|세|네|열))"
    r"\s*시(?![간작장계청험즌절대기도스])(?:\s*(\d{1,2})\s*분|\s*(반))?"
)
_ENGLISH_TIMES = (
    re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])", re.IGNORECASE),
    re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])()"),
    re.compile(r"\b(\d{1,2})()\s*o'?clock\b()", re.IGNORECASE),
    re.compile(
        r"\b(?:at|until|till)\s+(\d{1,2})()(?![\d:.,%])(?!\s*(?:%|percent|kg|mg|km|miles?|minutes?|hours?"
        r"|days?|weeks?|months?|years?|people|times|dollars?)\b)()",
        re.IGNORECASE,
    ),
)
_WEEKDAY_PATTERNS = (
    re.compile(r"([월화수목금토일])(?:요일|욜)"),
    re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.IGNORECASE),
)
_MONTH_PATTERNS = (
    re.compile(r"(?<!\d)(\d{1,2})\s*월(?!\s*\d)(?![요욜])"),
    re.compile(rf"\b(?:in|since|until|by|from|of|next|last|this|early|late|mid)[\s-]+{_MONTH_WORD}\b", re.IGNORECASE),
)
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)*)\s?"
    r"(%|퍼센트|만\s?원|천\s?원|원|살|세|명|개|층|번|호|시간|분|일|주|년|개월|달러|킬로|잔|병|kg|mg|km|cm|ml|lbs?|g|k)?"
    r"(?![a-zA-Z])"
)


def find_values(text: str) -> list[Value]:
    """The values of ``text`` in order of appearance (see the module docstring)."""
    found: list[Value] = []

    def add(kind: str, norm: str, start: int, end: int) -> None:
        if all(end <= v.start or start >= v.end for v in found):
            found.append(Value(kind, norm, text[start:end], start, end))

    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            year, month, day = m.group(1), int(m.group(2)), int(m.group(3))
            if 1 <= month <= 12 and 1 <= day <= 31:
                add("date", (f"{year}-" if year else "") + f"{month:02d}-{day:02d}", m.start(), m.end())
    for pattern, order in _ENGLISH_DATES:
        for m in pattern.finditer(text):
            date = _english_date(m, order)
            if date is not None:
                add("date", date, m.start(), m.end())
    for m in _KOREAN_TIME.finditer(text):
        hour = int(m.group(2)) if m.group(2) else _KOREAN_HOURS[m.group(3)]
        minute = 30 if m.group(5) else int(m.group(4) or 0)
        if hour <= 24 and minute < 60:
            add("time", _clock(hour, minute, m.group(1)), m.start(), m.end())
    for pattern in _ENGLISH_TIMES:
        for m in pattern.finditer(text):
            hour, minute = int(m.group(1)), int(m.group(2) or 0)
            if hour <= 24 and minute < 60:
                add("time", _clock(hour, minute, (m.group(3) or "").lower() or None), m.start(), m.end())
    for m in _WEEKDAY_PATTERNS[0].finditer(text):
        add("weekday", _KOREAN_WEEKDAYS[m.group(1)], m.start(), m.end())
    for m in _WEEKDAY_PATTERNS[1].finditer(text):
        add("weekday", _ENGLISH_WEEKDAYS[m.group(1).lower()], m.start(), m.end())
    for m in _MONTH_PATTERNS[0].finditer(text):
        if 1 <= int(m.group(1)) <= 12:
            add("month", _MONTHS[int(m.group(1)) - 1], m.start(), m.end())
    for m in _MONTH_PATTERNS[1].finditer(text):
        add("month", _month_name(m.group(1)), m.start(1), m.end(1))
    for m in _NUMBER.finditer(text):
        unit = re.sub(r"\s", "", (m.group(2) or "").lower())
        add("number", m.group(1).replace(",", "") + unit, m.start(), m.end())
    for start, end, norm in _names(text):
        add("name", norm, start, end)
    found.sort(key=lambda v: v.start)
    return found


def extract_values(text: str) -> set[str]:
    """Normalised key values of ``text``: weekdays, dates, months, times, numbers, proper nouns."""
    return {value.norm for value in find_values(text)}


def _clock(hour: int, minute: int, meridiem: str | None) -> str:
    if meridiem in _PM_WORDS:
        hour = hour + 12 if hour < 12 else hour
    elif meridiem in _AM_WORDS:
        hour = 0 if hour == 12 else hour
    elif 1 <= hour <= 6:
        hour += 12  # "3시", "at 3": people mean the afternoon (same rule as gieok.temporal)
    return f"{hour % 24:02d}:{minute:02d}"


def _month_name(word: str) -> str:
    prefix = word.lower()[:3]
    return next(name for name in _MONTHS if name.startswith(prefix))


def _english_date(m: re.Match[str], order: str) -> str | None:
    if order == "slash":
        month, day, year = int(m.group(1)), int(m.group(2)), m.group(3)
    elif order == "md":
        month, day, year = _MONTHS.index(_month_name(m.group(1))) + 1, int(m.group(2)), m.group(3)
    else:
        month, day, year = _MONTHS.index(_month_name(m.group(2))) + 1, int(m.group(1)), m.group(3)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year and len(year) == 2:
        year = "20" + year
    return (f"{year}-" if year else "") + f"{month:02d}-{day:02d}"


def _names(text: str) -> list[tuple[int, int, str]]:
    """Proper nouns: Kiwi NNP tokens in Korean text, capitalised spans via gieok.entities in Latin."""
    names: list[tuple[int, int, str]] = []
    if has_hangul(text):
        for form, tag, _lemma, start, end in analyze(text):
            # Kiwi's NNP is reliable on its own; gieok.entities adds title and particle handling we
            # do not need here, and sometimes keeps a particle ("서울로").
            if tag == "NNP" and len(form) >= 2:
                names.append((start, end, form))
    for mention in extract_mentions(text):
        if mention.start >= 0 and not has_hangul(mention.name):
            names.append((mention.start, mention.end, normalize_name(mention.name)))
    return names
