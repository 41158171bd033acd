"""The public entry points: reading ISO times, finding time mentions, choosing one range."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

from gieok.errors import InvalidTimeError

from . import _english, _korean, _numeric
from ._atoms import OUT_OF_CALENDAR, Atom, Builder, Rule
from ._compose import Found, combine, group, select
from ._ranges import Context, Span, midnight

_ISO = re.compile(
    r"\s*(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?\s*",
    re.IGNORECASE | re.ASCII,
)
_EXPECTED = "expected ISO 8601 such as 2026-05-12, 2026-05-12T15:00 or 2026-05-12T15:00:00+09:00"
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_LATIN = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class TimeMention:
    """A time expression found in a text: its character offsets, its words, and the half-open range
    ``[range[0], range[1])`` it denotes."""

    start: int
    end: int
    text: str
    range: tuple[datetime, datetime]


def _read_iso(value: str) -> datetime | date:
    m = _ISO.fullmatch(value)
    if m is None:
        raise InvalidTimeError(f"cannot read the time given: {_EXPECTED}")
    year, month, day, hour, minute, second, fraction, offset = m.groups()
    try:
        if hour is None:
            return date(int(year), int(month), int(day))
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        zone: tzinfo | None = None
        if offset is not None:
            if offset.upper() == "Z":
                zone = timezone.utc
            else:
                digits = offset[1:].replace(":", "")
                delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
                zone = timezone(-delta if offset[0] == "-" else delta)
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro,
                        tzinfo=zone)
    except ValueError as error:
        raise InvalidTimeError(f"cannot read the time given ({error}): {_EXPECTED}") from None


def parse_datetime(value: str | datetime | date) -> datetime:
    """A ``datetime`` from an ISO 8601 string (``Z`` or an offset allowed; a date alone means its
    midnight), a ``datetime`` (returned as is) or a ``date``."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return midnight(value)
    if not isinstance(value, str):
        raise InvalidTimeError(f"cannot read a time of type {type(value).__name__}: {_EXPECTED}")
    found = _read_iso(value)
    return found if isinstance(found, datetime) else midnight(found)


def _reference(now: datetime | date | str) -> tuple[Context, tzinfo | None]:
    """The wall-clock context of ``now``.  A date alone stands for the whole day: open ranges
    ("since May") then end at the following midnight."""
    if isinstance(now, str):
        now = _read_iso(now)
    if isinstance(now, datetime):
        wall = now.replace(tzinfo=None)
        return Context(now=wall, today=wall.date(), open_end=wall), now.tzinfo
    if isinstance(now, date):
        start = midnight(now)
        return Context(now=start, today=now, open_end=start + timedelta(days=1)), None
    raise InvalidTimeError(f"cannot use the reference time given: {_EXPECTED}")


_Filtered = list[tuple[re.Pattern[str], Builder, re.Pattern[str]]]


def _with_filters(rules: list[Rule]) -> _Filtered:
    return [(pattern, build, re.compile("|".join(map(re.escape, words)))) for pattern, build, words in rules]


_NUMERIC = _with_filters(_numeric.RULES)
_KOREAN = _with_filters(_korean.RULES)
_ENGLISH = _with_filters(_english.RULES)


def _atoms(text: str) -> tuple[Atom, ...]:
    # Queries repeat and are short, so their atoms (which do not depend on the reference time) are
    # cached; long documents are scanned afresh rather than pinned in memory.
    return _cached_atoms(text) if len(text) <= _CACHED_LENGTH else _scan(text)


_CACHED_LENGTH = 512


@lru_cache(maxsize=4096)
def _cached_atoms(text: str) -> tuple[Atom, ...]:
    return _scan(text)


def _scan(text: str) -> tuple[Atom, ...]:
    """Every rule's atoms, overlaps removed."""
    found: list[Atom] = []
    rule_sets: list[_Filtered] = []
    if _DIGIT.search(text):
        rule_sets.append(_NUMERIC)
    if _HANGUL.search(text):
        rule_sets.append(_KOREAN)
    if _LATIN.search(text):
        rule_sets.append(_ENGLISH)
    lowered = text.lower()
    for rules in rule_sets:
        for pattern, build, trigger in rules:
            if trigger.search(lowered) is None:
                continue
            for match in pattern.finditer(text):
                try:
                    atom = build(match, text)
                except OUT_OF_CALENDAR:  # "9999년 12월 31일" has no following midnight
                    continue
                if atom is not None:
                    found.append(atom)
    return tuple(select(found))


def _find(text: str, ctx: Context) -> list[Found]:
    if not text:
        return []
    return combine(text, group(text, list(_atoms(text)), ctx), ctx)


def _with_zone(span: Span, zone: tzinfo | None) -> tuple[datetime, datetime]:
    if zone is None:
        return span
    return span[0].replace(tzinfo=zone), span[1].replace(tzinfo=zone)


def find_time_expressions(text: str, reference: datetime | date | str) -> list[TimeMention]:
    """Every time expression in ``text``, resolved against ``reference`` (the message's own
    timestamp at retain time), in text order."""
    ctx, zone = _reference(reference)
    return [TimeMention(f.start, f.end, text[f.start:f.end], _with_zone(f.span, zone)) for f in _find(text, ctx)]


def parse_time_range(text: str, now: datetime | date | str) -> tuple[datetime, datetime] | None:
    """The half-open range ``[start, end)`` that ``text`` talks about, or None.  With several
    mentions the first wins, unless a later one lies inside it (then the narrower one)."""
    ctx, zone = _reference(now)
    found = _find(text, ctx)
    if not found:
        return None
    best = found[0].span
    for other in found[1:]:
        span = other.span
        if best[0] <= span[0] and span[1] <= best[1] and span != best:
            best = span
    return _with_zone(best, zone)
