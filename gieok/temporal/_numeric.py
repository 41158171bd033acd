"""Dates written with digits only, shared by both languages.

``2024-03-05``, ``2024.3.5``, ``2024/3/5`` (year first), ``05/08/2023`` (US month/day/year), ``3/5``
(month/day: Korean and US usage agree), ``2024-03``, ``2020-2022``, ``15:30``.  Day-first numeric
dates (``05/08/2023`` meaning 5 August) are not supported: the US reading wins.
"""

from __future__ import annotations

import re
from datetime import timedelta

from ._atoms import Atom, Pick, Rule, clock_in, date_in, fixed, narrowing, rule, standalone
from ._ranges import Grain, day_span, month_span, safe_date, year_span


def _where(m: re.Match[str]) -> tuple[int, int]:
    return m.start(), m.end()


def _year_first(m: re.Match[str], text: str) -> Atom | None:
    found = safe_date(int(m.group(1)), int(m.group(3)), int(m.group(4)))
    if found is None:
        return None
    if m.group(5) is None:
        return standalone(_where(m), Grain.DAY, fixed(day_span(found)))
    hour, minute = int(m.group(5)), int(m.group(6))
    if hour > 23:
        return None
    start = day_span(found)[0] + timedelta(hours=hour, minutes=minute)
    return standalone(_where(m), Grain.CLOCK, fixed((start, start + timedelta(hours=1))))


def _us_date(m: re.Match[str], text: str) -> Atom | None:
    found = safe_date(int(m.group(3)), int(m.group(1)), int(m.group(2)))
    return None if found is None else standalone(_where(m), Grain.DAY, fixed(day_span(found)))


def _month_slash_day(m: re.Match[str], text: str) -> Atom | None:
    month, day = int(m.group(1)), int(m.group(2))
    if safe_date(2000, month, day) is None:
        return None
    return narrowing(_where(m), Grain.DAY, date_in(month, day), Grain.YEAR)


def _year_month(m: re.Match[str], text: str) -> Atom | None:
    month = int(m.group(2))
    if not 1 <= month <= 12:
        return None
    return standalone(_where(m), Grain.MONTH, fixed(month_span(int(m.group(1)), month)))


def _years(m: re.Match[str], text: str) -> Atom | None:
    first, last = int(m.group(1)), int(m.group(2))
    if last < first:
        return None
    return standalone(_where(m), Grain.YEAR, fixed(year_span(first, last - first + 1)))


def _clock(m: re.Match[str], text: str) -> Atom:
    hours = (int(m.group(1)),)
    return narrowing(_where(m), Grain.CLOCK, clock_in(hours, int(m.group(2))), Grain.DAY, Pick.THIS)


_YEAR = r"(1[89]\d{2}|2[01]\d{2})"

# After "M/D", words that make it a fraction or a ratio ("1/2 cup", "3/4 of").
_NOT_A_DATE = (r"(?![\d/%]|\.\d|\s*(?:cups?|tsp|tbsp|tea|table|inch|in\b|of\b|miles?|lbs?|oz|kg|g\b|개|명|컵|큰술|"
               r"작은술|인분|쪽|페이지|점))")
_TIME_OF_DAY = r"(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"

RULES: list[Rule] = [
    rule(r"(?<![\d./\-])(\d{4})\s*([-./])\s*(\d{1,2})\s*\2\s*(\d{1,2})(?!\d)\.?" + _TIME_OF_DAY,
         _year_first, "-", ".", "/"),
    rule(r"(?<![\d/.\-])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])", _us_date, "/"),
    rule(r"(?<![\d/.\-])(\d{1,2})/(\d{1,2})" + _NOT_A_DATE, _month_slash_day, "/"),
    rule(r"(?<![\d./\-])(\d{4})-(\d{2})(?![\d\-])", _year_month, "-"),
    rule(rf"(?<![\d./\-]){_YEAR}\s*(?:년\s*)?[-–~]\s*{_YEAR}(?:\s*년(?!대))?(?![\d\-])", _years, "-", "–", "~"),
    rule(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?![\d:])", _clock, ":"),
]
