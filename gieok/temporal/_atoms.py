"""Atoms: the smallest time words ("작년", "3월", "금요일", "저녁", "early") and what they mean.

An atom either stands on its own (``resolve``: "어제", "2024년", "3 days ago"), or narrows a coarser
period (``refine``: "3월" inside a year, "5일" inside a month, "저녁" inside a day), or both.  An
atom that can narrow but has no anchor of its own ("3월", "금요일") names the kind of period to
search (``bare``) and a ``pick`` rule that chooses one occurrence around now.  Parts ("초", "late")
modify whatever they are attached to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import Enum

from ._ranges import (
    DAY,
    Context,
    Grain,
    Part,
    Span,
    apply_part,
    between_units,
    day_span,
    midnight,
    monday,
    month_span,
    months_span,
    offset_unit,
    rolling,
    safe_date,
    season_span,
    shift_month,
    week_span,
)

Resolve = Callable[[Context], Span | None]
Refine = Callable[[Span, Grain, Context], Span | None]
Builder = Callable[[re.Match[str], str], "Atom | None"]
#: A language rule: its regex, what a match means, and words of which one must occur in the
#: lowercased text before the regex is worth running (a cheap filter: most texts hold no dates).
Rule = tuple[re.Pattern[str], Builder, tuple[str, ...]]
DIGITS = tuple("0123456789")
#: What calendar arithmetic raises past year 9999 or before year 1: such words are not a mention.
OUT_OF_CALENDAR = (ValueError, OverflowError)

#: A year-less date or month may lie this far in the future and still be "this one": people talk
#: about the coming week's dates ("15일 회의") as often as about the past.
CALENDAR_GRACE = timedelta(days=7)
NO_GRACE = timedelta(0)
#: "작년 이맘때" / "around this time last year": the same calendar day, two weeks either side.
AROUND = timedelta(days=14)
#: "최근", "요즘", "recently": the last two weeks including today.
RECENT_DAYS = 14


class Pick(Enum):
    """Which occurrence of a year-less period ("3월", "금요일", "summer") is meant."""

    PAST = "past"  # the latest one starting no later than now + grace (the default)
    LAST = "last"  # the latest one over before today ("지난 금요일", "last June")
    NEXT = "next"  # the first one starting after today ("오는 금요일", "next Friday")
    THIS = "this"  # the one holding now, else the one in the current year/week ("this June")


@dataclass(frozen=True, slots=True)
class Atom:
    start: int
    end: int
    grain: Grain
    resolve: Resolve | None = None
    refine: Refine | None = None
    bare: Grain | None = None
    pick: Pick = Pick.PAST
    grace: timedelta = CALENDAR_GRACE
    part: Part | None = None
    part_before: bool = False  # English parts precede their period, Korean ones follow it
    anchors: bool = True  # False for parts of day: "저녁" alone is not a time expression


def rule(pattern: str, build: Builder, *triggers: str, flags: int = 0) -> Rule:
    return re.compile(pattern, flags), build, triggers


# ---- standalone meanings ---------------------------------------------------------------------


def fixed(span: Span) -> Resolve:
    return lambda ctx: span


def days_from_today(first: int, last: int | None = None) -> Resolve:
    """Day ``first`` (to day ``last``) relative to today: 0 today, -1 yesterday."""
    stop = first if last is None else last
    return lambda ctx: (midnight(ctx.today) + DAY * first, midnight(ctx.today) + DAY * (stop + 1))


def unit_from_now(unit: str, amount: int) -> Resolve:
    return lambda ctx: offset_unit(ctx, unit, amount)


def weekend_from_now(weeks: int) -> Resolve:
    def resolve(ctx: Context) -> Span:
        start = week_span(ctx.today)[0] + timedelta(days=7 * weeks + 5)
        return start, start + 2 * DAY

    return resolve


def weekday_of_week(weeks: int, weekday: int) -> Resolve:
    """"지난주 금요일": weekday 4 of the week ``weeks`` from this one."""

    def resolve(ctx: Context) -> Span:
        start = week_span(ctx.today)[0] + DAY * (7 * weeks + weekday)
        return start, start + DAY

    return resolve


def units_ago(unit: str, low: int, high: int, future: bool = False) -> Resolve:
    return lambda ctx: between_units(ctx, unit, low, high, future)


def last_units(unit: str, amount: int) -> Resolve:
    return lambda ctx: rolling(ctx, unit, amount)


def recent(days: int = RECENT_DAYS, include_today: bool = True) -> Resolve:
    end = 1 if include_today else 0
    return lambda ctx: (ctx.midnight - DAY * days, ctx.midnight + DAY * end)


def daypart_of(day_offset: int, first_hour: int, last_hour: int) -> Resolve:
    def resolve(ctx: Context) -> Span:
        day = ctx.midnight + DAY * day_offset
        return day + timedelta(hours=first_hour), day + timedelta(hours=last_hour)

    return resolve


def within_current(unit: str, before_now: bool) -> Resolve:
    """"Earlier this week" (unit start to now) and "later this month" (now to unit end)."""

    def resolve(ctx: Context) -> Span:
        start, end = offset_unit(ctx, unit, 0)
        return (start, ctx.now) if before_now else (ctx.now, end)

    return resolve


def century(two_digits: int, ctx: Context) -> int:
    """'24 → 2024, '90 → 1990: the latest year ending in these digits, up to ten years ahead."""
    year = ctx.today.year // 100 * 100 + two_digits
    return year - 100 if year > ctx.today.year + 10 else year


def short_year_month(two_digits: int, month: int) -> Resolve:
    return lambda ctx: month_span(century(two_digits, ctx), month)


def short_year_date(two_digits: int, month: int, day: int) -> Resolve:
    def resolve(ctx: Context) -> Span | None:
        found = safe_date(century(two_digits, ctx), month, day)
        return None if found is None else day_span(found)

    return resolve


def short_decade(two_digits: int) -> Resolve:
    def resolve(ctx: Context) -> Span:
        start = century(two_digits, ctx)
        if start > ctx.today.year:
            start -= 100
        return datetime(start, 1, 1), datetime(start + 10, 1, 1)

    return resolve


# ---- narrowing meanings ----------------------------------------------------------------------


def month_in(month: int) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain == Grain.YEAR:
            return month_span(parent[0].year, month)
        if grain == Grain.SEASON:
            year, current = parent[0].year, parent[0].month
            while datetime(year, current, 1) < parent[1]:
                if current == month:
                    return month_span(year, month)
                year, current = shift_month(year, current, 1)
        return None

    return refine


def date_in(month: int, day: int) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        found = safe_date(parent[0].year, month, day) if grain == Grain.YEAR else None
        return None if found is None else day_span(found)

    return refine


def day_in(day: int) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        found = safe_date(parent[0].year, parent[0].month, day) if grain == Grain.MONTH else None
        return None if found is None else day_span(found)

    return refine


def weekday_in(weekday: int) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain == Grain.DAY:
            return parent  # "Monday, June 5": the date is explicit, the weekday only restates it
        if grain not in (Grain.WEEK, Grain.WEEKEND):
            return None
        start = midnight(monday(parent[0].date())) + DAY * weekday
        return (start, start + DAY) if parent[0] <= start < parent[1] else None

    return refine


def weekend_in(parent: Span, grain: Grain, ctx: Context) -> Span | None:
    if grain != Grain.WEEK:
        return None
    start = parent[0] + DAY * 5
    return start, start + 2 * DAY


def season_in(season: str, part: Part | None = None) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain != Grain.YEAR:
            return None
        span = season_span(parent[0].year, season)
        return span if part is None else apply_part(span, Grain.SEASON, part)

    return refine


def months_in(first_month: int, count: int) -> Refine:
    """Halves (상반기) and quarters (1분기, Q3) of a year."""

    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        return months_span(parent[0].year, first_month, count) if grain == Grain.YEAR else None

    return refine


def part_in(own: Grain, part: Part) -> Refine:
    """Compounds that carry their own part: 연말 (late in a year), 월초 (early in a month)."""

    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        return apply_part(parent, grain, part) if grain == own else None

    return refine


def week_of_month_in(index: int) -> Refine:
    """첫째 주 / "the first week of": days 1-7, 8-14, ...; -1 is the last seven days."""

    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain != Grain.MONTH:
            return None
        if index < 0:
            return parent[1] - 7 * DAY, parent[1]
        start = parent[0] + DAY * 7 * (index - 1)
        return (start, min(start + 7 * DAY, parent[1])) if start < parent[1] else None

    return refine


def around_in(parent: Span, grain: Grain, ctx: Context) -> Span | None:
    if grain != Grain.YEAR:
        return None
    year = parent[0].year
    found = safe_date(year, ctx.today.month, ctx.today.day) or date(year, 2, 28)  # 29 Feb → 28 Feb
    start = midnight(found)
    return start - AROUND, start + AROUND + DAY


def daypart_in(first_hour: int, last_hour: int) -> Refine:
    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain != Grain.DAY:
            return None
        return parent[0] + timedelta(hours=first_hour), parent[0] + timedelta(hours=last_hour)

    return refine


def clock_hours(hour: int, meridiem: str | None) -> tuple[int, ...]:
    """Readings of an hour, preferred first.  Without 오전/오후, 1-6 o'clock is read as afternoon
    first and 7-11 as morning first; a part of day in the same group settles it."""
    if hour > 24:
        return ()
    if hour > 12 or hour == 0:
        return (hour % 24,)
    if meridiem in ("오후", "저녁", "pm"):
        return (hour % 12 + 12,)
    if meridiem == "밤":
        return (hour + 12,) if 6 <= hour <= 11 else ((24,) if hour == 12 else (hour,))
    if meridiem in ("오전", "아침", "새벽", "am"):
        return (hour % 12,)
    if meridiem == "낮":
        return (hour,) if hour >= 11 else (hour + 12,)
    if hour == 12:
        return (12, 0)
    return (hour + 12, hour) if hour <= 6 else (hour, hour + 12)


def clock_in(hours: tuple[int, ...], minute: int) -> Refine:
    """A clock time means the hour starting then.  ``hours`` lists the readings in order of
    preference (3시 → 15:00 before 03:00); inside a part of day the reading that fits wins."""

    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        if grain not in (Grain.DAY, Grain.DAYPART):
            return None
        day = midnight(parent[0].date())
        if grain == Grain.DAY:  # a day holds every reading; 밤 12시 is the next midnight
            start = day + timedelta(hours=hours[0], minutes=minute)
            return start, start + timedelta(hours=1)
        for hour in hours:
            for base in (day, day + DAY):
                start = base + timedelta(hours=hour, minutes=minute)
                if parent[0] <= start < parent[1]:
                    return start, start + timedelta(hours=1)
        return None

    return refine


# ---- shortcuts used by the language rules ----------------------------------------------------


def standalone(where: tuple[int, int], grain: Grain, resolve: Resolve) -> Atom:
    return Atom(where[0], where[1], grain, resolve=resolve)


def narrowing(
    where: tuple[int, int],
    grain: Grain,
    refine: Refine,
    bare: Grain | None,
    pick: Pick = Pick.PAST,
    grace: timedelta = CALENDAR_GRACE,
) -> Atom:
    return Atom(where[0], where[1], grain, refine=refine, bare=bare, pick=pick, grace=grace)


def part_atom(where: tuple[int, int], part: Part, before: bool) -> Atom:
    return Atom(where[0], where[1], Grain.DAY, part=part, part_before=before)
