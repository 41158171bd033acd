"""Timestamps at the engine boundary: ISO 8601 in, aware datetimes and epoch seconds inside."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from gieok.errors import InvalidTimeError
from gieok.temporal import parse_datetime

__all__ = ["TimeLike", "to_datetime", "from_epoch", "at_epoch", "optional_epoch"]

TimeLike = str | datetime | date


def to_datetime(value: TimeLike, what: str = "time") -> datetime:
    """Read an ISO 8601 date or datetime (via gieok.temporal.parse_datetime); naive values are UTC."""
    try:
        dt = parse_datetime(value.strip() if isinstance(value, str) else value)
    except InvalidTimeError as exc:
        raise InvalidTimeError(f"{what}: {exc}") from None
    dt = dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    try:  # 9999-12-31T23:59-14:00 is in year 10000 in UTC, where the engine reads every time
        dt.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise InvalidTimeError(f"{what} falls outside the years 1 to 9999 once read in UTC: give a date "
                               "within them") from None
    return dt


def optional_epoch(value: TimeLike | None, what: str = "time") -> float | None:
    """Epoch seconds of an optional caller time (``now=``, ``expires_at=``), None stays None."""
    return to_datetime(value, what).timestamp() if value is not None else None


def from_epoch(ts: float | None, utc_offset_minutes: int | None = None) -> datetime | None:
    if ts is None:
        return None
    return at_epoch(ts, utc_offset_minutes)


def at_epoch(ts: float, utc_offset_minutes: int | None = None) -> datetime:
    """The aware datetime of epoch seconds that are always there (a row's ``created_at``)."""
    tz = timezone(timedelta(minutes=utc_offset_minutes)) if utc_offset_minutes is not None else timezone.utc
    return datetime.fromtimestamp(ts, tz=tz)
