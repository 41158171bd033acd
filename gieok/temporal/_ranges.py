"""Calendar arithmetic on naive wall-clock datetimes.

Everything here works on the wall clock of the reference time; the public functions attach the
reference's timezone at the very end, so DST never shifts a day boundary.  Spans are half-open
``(start, end)`` pairs.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import MAXYEAR, MINYEAR, date, datetime, timedelta
from enum import Enum, IntEnum

Span = tuple[datetime, datetime]

#: Start used for open ranges such as "before 2020" (year 1, day 2 so that no UTC offset can push it
#: below ``datetime.min``).
TIME_FLOOR = datetime(1, 1, 2)
#: End used for open ranges that begin in the future ("from next week on").
TIME_CEILING = datetime(9999, 12, 31)

DAY = timedelta(days=1)
WEEK = timedelta(days=7)


class Grain(IntEnum):
    """How fine a time expression is; a group of words is resolved from coarse to fine."""

    DECADE = 0
    YEAR = 1
    SEASON = 2  # seasons, halves, quarters: a run of months inside a year
    MONTH = 3
    WEEK = 4
    WEEKEND = 5
    DAY = 6
    DAYPART = 7
    CLOCK = 8


class Part(Enum):
    """Early / mid / late (초 / 중순 / 말) and the halves of a period."""

    EARLY = "early"
    MID = "mid"
    LATE = "late"
    FIRST_HALF = "first_half"
    SECOND_HALF = "second_half"


@dataclass(frozen=True, slots=True)
class Context:
    """The reference time as a naive wall clock, plus the end used by open ranges ("since May")."""

    now: datetime
    today: date
    open_end: datetime

    @property
    def midnight(self) -> datetime:
        return midnight(self.today)


def midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day)


def day_span(d: date, days: int = 1) -> Span:
    start = midnight(d)
    return start, start + timedelta(days=days)


def monday(d: date) -> date:
    """ISO weeks run Monday to Sunday."""
    return d - timedelta(days=d.weekday())


def week_span(d: date) -> Span:
    start = midnight(monday(d))
    return start, start + WEEK


def shift_month(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def months_span(year: int, month: int, count: int = 1) -> Span:
    end_year, end_month = shift_month(year, month, count)
    return datetime(year, month, 1), datetime(end_year, end_month, 1)


def month_span(year: int, month: int) -> Span:
    return months_span(year, month, 1)


def year_span(year: int, count: int = 1) -> Span:
    return datetime(year, 1, 1), datetime(year + count, 1, 1)


SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


def season_span(year: int, season: str) -> Span:
    """Meteorological seasons; the winter of a year starts in its December and ends with February."""
    return months_span(year, SEASON_START[season], 3)


def safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def add_months(moment: datetime, months: int) -> datetime:
    """Calendar month arithmetic, clamping the day (31 March minus one month is 28/29 February)."""
    year, month = shift_month(moment.year, moment.month, months)
    if not MINYEAR <= year <= MAXYEAR:
        raise OverflowError(f"year {year} is out of range")
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


UNITS = ("minute", "hour", "day", "week", "month", "year")


def shift(moment: datetime, unit: str, amount: int) -> datetime:
    if unit == "minute":
        return moment + timedelta(minutes=amount)
    if unit == "hour":
        return moment + timedelta(hours=amount)
    if unit == "day":
        return moment + timedelta(days=amount)
    if unit == "week":
        return moment + timedelta(weeks=amount)
    if unit == "month":
        return add_months(moment, amount)
    return add_months(moment, 12 * amount)


def unit_span(moment: datetime, unit: str) -> Span:
    """The calendar unit (clock minute, clock hour, day, ISO week, month, year) holding ``moment``."""
    if unit == "minute":
        start = moment.replace(second=0, microsecond=0)
        return start, start + timedelta(minutes=1)
    if unit == "hour":
        start = moment.replace(minute=0, second=0, microsecond=0)
        return start, start + timedelta(hours=1)
    if unit == "day":
        return day_span(moment.date())
    if unit == "week":
        return week_span(moment.date())
    if unit == "month":
        return month_span(moment.year, moment.month)
    return year_span(moment.year)


def offset_unit(ctx: Context, unit: str, amount: int) -> Span:
    """The unit ``amount`` steps from the one holding now: ``("week", -1)`` is last week."""
    return unit_span(shift(ctx.now, unit, amount), unit)


def between_units(ctx: Context, unit: str, low: int, high: int, future: bool) -> Span:
    """Units ``low``..``high`` steps back (or ahead) from now, as one span: "2-3 months ago"."""
    sign = 1 if future else -1
    if unit == "minute":
        # Minutes are too fine to be a unit of memory: a quarter of an hour either side, never
        # reaching past now ("30분 전" at 15:00 is 14:15-14:45).
        early = shift(ctx.now, unit, sign * (low if future else high))
        late = shift(ctx.now, unit, sign * (high if future else low))
        end = late + timedelta(minutes=15)
        return early - timedelta(minutes=15), end if future else min(end, ctx.now)
    first = unit_span(shift(ctx.now, unit, sign * (low if future else high)), unit)
    last = unit_span(shift(ctx.now, unit, sign * (high if future else low)), unit)
    return first[0], last[1]


def rolling(ctx: Context, unit: str, amount: int) -> Span:
    """"The last N units": from N units before today's midnight to the end of today (hours and
    minutes count back from now itself)."""
    if unit in ("minute", "hour"):
        return shift(ctx.now, unit, -amount), ctx.now
    return shift(ctx.midnight, unit, -amount), ctx.midnight + DAY


def _split(span: Span, fractions: tuple[float, float]) -> Span:
    length = span[1] - span[0]
    return span[0] + length * fractions[0], span[0] + length * fractions[1]


_THIRDS = {
    Part.EARLY: (0.0, 1 / 3),
    Part.MID: (1 / 3, 2 / 3),
    Part.LATE: (2 / 3, 1.0),
    Part.FIRST_HALF: (0.0, 0.5),
    Part.SECOND_HALF: (0.5, 1.0),
}
# Years split by months: early = Q1, mid = Q2+Q3, late = Q4.
_YEAR_MONTHS = {
    Part.EARLY: (0, 3), Part.MID: (3, 9), Part.LATE: (9, 12),
    Part.FIRST_HALF: (0, 6), Part.SECOND_HALF: (6, 12),
}
# Months split by days: 1-10, 11-20, 21-end (초순 / 중순 / 하순).
_MONTH_DAYS = {
    Part.EARLY: (1, 11), Part.MID: (11, 21), Part.LATE: (21, 32),
    Part.FIRST_HALF: (1, 16), Part.SECOND_HALF: (16, 32),
}
# Decades split by years: early 0-3, mid 4-6, late 7-9 ("the early 90s" = 1990-1993).
_DECADE_YEARS = {
    Part.EARLY: (0, 4), Part.MID: (4, 7), Part.LATE: (7, 10),
    Part.FIRST_HALF: (0, 5), Part.SECOND_HALF: (5, 10),
}


def apply_part(span: Span, grain: Grain, part: Part) -> Span | None:
    """Early / mid / late of a period; None for days and finer (use a part of day instead)."""
    start, end = span
    if grain >= Grain.DAY:
        return None
    if grain == Grain.DECADE:
        low, high = _DECADE_YEARS[part]
        return datetime(start.year + low, 1, 1), datetime(start.year + high, 1, 1)
    if grain == Grain.YEAR and start.month == 1 and end.year == start.year + 1:
        low, high = _YEAR_MONTHS[part]
        return months_span(start.year, 1 + low, high - low)
    if grain == Grain.MONTH and start.day == 1:
        low, high = _MONTH_DAYS[part]
        stop = min(datetime(start.year, start.month, 1) + timedelta(days=high - 1), end)
        return datetime(start.year, start.month, low), stop
    if grain == Grain.SEASON:
        months = (end.year - start.year) * 12 + end.month - start.month
        if months % 3 == 0 and start.day == 1 and end.day == 1:
            low, high = (round(f * months) for f in _THIRDS[part])
            first = shift_month(start.year, start.month, low)
            return months_span(first[0], first[1], high - low)
    if grain in (Grain.WEEK, Grain.WEEKEND) and end - start == WEEK:
        # Monday-Wednesday, Wednesday-Thursday, Friday-Sunday.
        low, high = {Part.EARLY: (0, 3), Part.MID: (2, 4), Part.LATE: (4, 7),
                     Part.FIRST_HALF: (0, 4), Part.SECOND_HALF: (4, 7)}[part]
        return start + timedelta(days=low), start + timedelta(days=high)
    return _split(span, _THIRDS[part])
