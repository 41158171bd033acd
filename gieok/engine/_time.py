"""Timestamps at the engine boundary: ISO 8601 in, aware datetimes and epoch seconds inside."""

from __future__ import annotations

from datetime import date, datetime, timezone

from gieok.errors import InvalidTimeError

__all__ = ["to_datetime", "to_epoch", "from_epoch"]


def to_datetime(value: str | datetime | date, what: str = "time") -> datetime:
    """Read an ISO 8601 date or datetime; naive values are taken as UTC."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidTimeError(
                f"cannot read {what} {value!r}: use ISO 8601, e.g. 2026-05-04 or 2026-05-04T09:00:00+09:00"
            ) from None
    else:
        raise InvalidTimeError(f"{what} must be an ISO 8601 string or a datetime, got {type(value).__name__}")
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def to_epoch(value: str | datetime | date, what: str = "time") -> float:
    return to_datetime(value, what).timestamp()


def from_epoch(ts: float | None, utc_offset_minutes: int | None = None) -> datetime | None:
    if ts is None:
        return None
    from datetime import timedelta

    tz = timezone(timedelta(minutes=utc_offset_minutes)) if utc_offset_minutes is not None else timezone.utc
    return datetime.fromtimestamp(ts, tz=tz)
