"""Timestamps at the engine boundary: ISO 8601 in, aware datetimes and epoch seconds inside.

A caller's time is refused outside the years and offsets of :mod:`gieok.limits` (``year_min`` …
``year_max``, ±``utc_offset_hours``): a year-9999 timestamp with a negative offset is year 10000 in
UTC, which no datetime can hold, and one such row used to make every recall of its bank fail. A
stored time that still cannot be read back (a row written before the check, or by hand) is read as
"no time" with a logged warning (:func:`from_epoch`), never an error for the whole bank.
"""

from __future__ import annotations

import logging
import math
from datetime import date, datetime, timedelta, timezone

from gieok.errors import InvalidTimeError
from gieok.limits import limit

__all__ = ["TimeLike", "at_epoch", "check_time_range", "day_of", "from_epoch", "optional_epoch", "to_datetime"]

TimeLike = str | datetime | date

log = logging.getLogger(__name__)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def check_time_range(dt: datetime, what: str) -> datetime:
    """``dt`` (aware) unless its year or UTC offset is past the limits."""
    low, high, hours = limit("year_min"), limit("year_max"), limit("utc_offset_hours")
    offset = dt.utcoffset() or timedelta(0)
    if abs(offset) > timedelta(hours=hours):
        raise InvalidTimeError(f"{what}: a UTC offset of {offset} is past ±{hours} hours: give the offset "
                               "of a real time zone, e.g. +09:00")
    if not low <= dt.year <= high or not low <= dt.astimezone(timezone.utc).year <= high:
        raise InvalidTimeError(f"{what}: the year must be between {low} and {high}, e.g. 2026-05-04T09:30:00+09:00")
    return dt


def to_datetime(value: TimeLike, what: str = "time") -> datetime:
    """Read an ISO 8601 date or datetime (via gieok.temporal.parse_datetime); naive values are UTC.
    Times past the limits (see the module docstring) are refused with an InvalidTimeError."""
    # imported here: the time parser compiles its Korean and English rules at import, which the
    # facade's argument checks (this module) should not cost a process that never reads a time
    from gieok.temporal import parse_datetime

    try:
        dt = parse_datetime(value.strip() if isinstance(value, str) else value)
    except InvalidTimeError as exc:
        raise InvalidTimeError(f"{what}: {exc}") from None
    except (ValueError, OverflowError):  # an ISO date Python cannot hold ("0000-01-01")
        raise InvalidTimeError(f"{what}: not a date Python can hold: give an ISO 8601 time, e.g. "
                               "2026-05-04T09:30:00+09:00") from None
    return check_time_range(dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc), what)


def optional_epoch(value: TimeLike | None, what: str = "time") -> float | None:
    """Epoch seconds of an optional caller time (``now=``, ``expires_at=``), None stays None."""
    return to_datetime(value, what).timestamp() if value is not None else None


def from_epoch(ts: float | None, utc_offset_minutes: int | None = None) -> datetime | None:
    """The aware datetime of stored epoch seconds; None for None, and for a stored value no datetime
    can hold (logged: the row stays readable, only its time is missing)."""
    if ts is None:
        return None
    try:
        return at_epoch(ts, utc_offset_minutes)
    except (ValueError, OverflowError, OSError, TypeError) as exc:
        log.warning("a stored time cannot be read back (%r, offset %r minutes): %s; read as no time",
                    ts, utc_offset_minutes, exc)
        return None


def at_epoch(ts: float, utc_offset_minutes: int | None = None) -> datetime:
    """The aware datetime of epoch seconds that are always there (a row's ``created_at``)."""
    seconds = float(ts)
    if not math.isfinite(seconds):
        raise ValueError(f"{ts!r} is not a time")
    tz = timezone(timedelta(minutes=utc_offset_minutes)) if utc_offset_minutes is not None else timezone.utc
    # arithmetic, not fromtimestamp: the same on every platform, and negative times work on Windows
    return (_EPOCH + timedelta(seconds=seconds)).astimezone(tz)


def day_of(ts: float) -> date | None:
    """The UTC day of stored epoch seconds, None where no datetime can hold them (see from_epoch)."""
    dt = from_epoch(ts)
    return dt.date() if dt is not None else None
