"""From atoms to mentions: pick non-overlapping atoms, group neighbours, resolve, join ranges.

1. Every rule's matches are collected; overlaps keep the leftmost, then the longest ("3일 전" beats
   "3일", "재작년" beats "작년").
2. Neighbouring atoms (only spaces, commas, "의", "of", "on", "in", "at", "the" between them) form a
   group when the finer one can narrow the coarser: "작년 3월 5일 저녁", "Friday night last week".
   The coarsest atom anchors the group; a year-less anchor ("3월", "금요일") picks its occurrence by
   its ``Pick`` rule.
3. Groups joined by a range marker become one mention ("3월부터 5월까지", "between June and
   August"); the second end is searched forward from the first ("11월부터 2월까지" crosses the year).
   "since / 부터 / 이후" opens the end, "before / 이전 / 전에" opens the start.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ._atoms import OUT_OF_CALENDAR, Atom, Pick
from ._ranges import (
    DAY,
    TIME_CEILING,
    TIME_FLOOR,
    Context,
    Grain,
    Part,
    Span,
    apply_part,
    shift,
    unit_span,
)

_GAP = re.compile(r"[\s,]*(?:(?:의|of|on|in|at|the|during)(?:[\s,]+|$))*", re.IGNORECASE)

_KO_TILDE = re.compile(r"\s*(?:(?:부터|에서)\s*)?[~∼〜\-–—]\s*")
_KO_FROM = re.compile(r"\s*부터\s*,?\s*")
_KO_FROM_AT = re.compile(r"\s*에서\s*")
_KO_AND = re.compile(r"\s*(?:과|와|하고|이랑|랑|및)\s*")
_KO_UNTIL = re.compile(r"\s*까지")
_KO_BETWEEN = re.compile(r"\s*사이")
_EN_TO = re.compile(r"\s*(?:,\s*)?(?:to|until|till|through|thru|up\s+to)\s+|\s*[-–—~]\s*", re.IGNORECASE)
_EN_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_EN_RANGE_PREFIX = re.compile(r"\b(from|between)\s+$", re.IGNORECASE)

_EN_OPEN_PREFIX = re.compile(
    r"\b(since|after|from|starting(?:\s+(?:from|in|on))?|as\s+of|before|prior\s+to|until|till|"
    r"up\s+(?:un)?til)\s+$",
    re.IGNORECASE,
)
_KO_SINCE = re.compile(r"\s*(?:부터|이후|이래|후로|以後)")
_KO_BEFORE = re.compile(r"\s*(?:이전|以前|전(?=에|까지|엔|의|[^가-힣]|$))")

_PARENT_UNIT = {Grain.YEAR: "year", Grain.MONTH: "month", Grain.WEEK: "week", Grain.DAY: "day"}
# How many parent units back from now a year-less expression may land (leap days need 8 years).
_LOOK_BACK = {"year": 12, "month": 14, "week": 4, "day": 2}


@dataclass(slots=True)
class Group:
    atoms: list[Atom]
    parts: list[Part] = field(default_factory=list)
    start: int = 0
    end: int = 0
    span: Span | None = None

    @property
    def anchored(self) -> bool:
        return self.span is not None and any(a.anchors for a in self.atoms)


@dataclass(frozen=True, slots=True)
class Found:
    start: int
    end: int
    span: Span


def select(atoms: list[Atom]) -> list[Atom]:
    """Leftmost, then longest, non-overlapping atoms."""
    atoms.sort(key=lambda a: (a.start, a.start - a.end))
    chosen: list[Atom] = []
    last_end = -1
    for atom in atoms:
        if atom.start >= last_end:
            chosen.append(atom)
            last_end = atom.end
    return chosen


def _occurrence(head: Atom, ctx: Context, anchor: datetime, step: int) -> Span | None:
    """The head inside the parent unit (year, month, week, day) ``step`` units from ``anchor``."""
    assert head.bare is not None and head.refine is not None
    unit = _PARENT_UNIT[head.bare]
    return head.refine(unit_span(shift(anchor, unit, step), unit), head.bare, ctx)


def _pick(head: Atom, ctx: Context, after: datetime | None) -> Span | None:
    """Walk parent units outward from now (or forward from ``after``) until the pick rule is met;
    occurrences grow with the step, so the first hit is the one wanted."""
    assert head.bare is not None
    back = _LOOK_BACK[_PARENT_UNIT[head.bare]]
    if after is not None:
        for step in range(0, back + 2):
            span = _occurrence(head, ctx, after, step)
            if span is not None and span[0] >= after:
                return span
        return None
    if head.pick is Pick.NEXT:
        for step in range(-1, back + 2):
            span = _occurrence(head, ctx, ctx.now, step)
            if span is not None and span[0] >= ctx.midnight + DAY:
                return span
        return None
    if head.pick is Pick.THIS:
        current: Span | None = None
        for step in (-1, 0, 1):
            span = _occurrence(head, ctx, ctx.now, step)
            if span is not None and span[0] <= ctx.now < span[1]:
                return span
            if step == 0:
                current = span
        return current
    limit = ctx.now + head.grace
    for step in range(2, -back - 1, -1):
        span = _occurrence(head, ctx, ctx.now, step)
        if span is None:
            continue
        if head.pick is Pick.PAST and span[0] <= limit:
            return span
        if head.pick is Pick.LAST and span[1] <= ctx.midnight:
            return span
    return None


def resolve(
    atoms: Sequence[Atom], parts: Sequence[Part], ctx: Context, after: datetime | None = None
) -> Span | None:
    """Fold a group coarse to fine; None when the words do not fit together, or when the period
    falls outside the years ``datetime`` can hold ("내년" said in 9999)."""
    try:
        return _fold(atoms, parts, ctx, after)
    except OUT_OF_CALENDAR:
        return None


def _fold(atoms: Sequence[Atom], parts: Sequence[Part], ctx: Context, after: datetime | None) -> Span | None:
    # Coarse to fine; among equals, the one searched in the coarser parent anchors ("June 5"
    # before "Monday" in "Monday, June 5").
    ordered = sorted(atoms, key=lambda a: (a.grain, -1 if a.bare is None else a.bare))
    head = ordered[0]
    if head.resolve is not None:
        span = head.resolve(ctx)
    elif head.bare is not None and head.refine is not None:
        span = _pick(head, ctx, after)
    else:
        return None
    grain = head.grain
    for atom in ordered[1:]:
        if span is None or atom.refine is None:
            return None
        span = atom.refine(span, grain, ctx)
        grain = atom.grain
    for part in parts:
        if span is None:
            return None
        span = apply_part(span, grain, part)
    if span is None or span[1] <= span[0]:
        return None
    return span


def _adjacent(text: str, end: int, start: int) -> bool:
    return start >= end and _GAP.fullmatch(text, end, start) is not None


def group(text: str, atoms: list[Atom], ctx: Context) -> list[Group]:
    groups: list[Group] = []
    waiting: list[Atom] = []  # English parts ("early", "the end of") waiting for their period
    current: Group | None = None
    for atom in atoms:
        if atom.part is not None:
            if atom.part_before:
                if not (waiting and _adjacent(text, waiting[-1].end, atom.start)):
                    waiting = []
                waiting.append(atom)
            elif current is not None and current.span is not None and _adjacent(text, current.end, atom.start):
                narrowed = resolve(current.atoms, [*current.parts, atom.part], ctx)
                if narrowed is not None:
                    current.parts.append(atom.part)
                    current.end, current.span = atom.end, narrowed
            continue
        if current is not None and _adjacent(text, current.end, atom.start):
            merged = resolve([*current.atoms, atom], current.parts, ctx)
            if merged is not None:
                current.atoms.append(atom)
                current.end, current.span = atom.end, merged
                continue
        current = Group([atom], start=atom.start, end=atom.end)
        if waiting and _adjacent(text, waiting[-1].end, atom.start):
            # "late" in "I was late yesterday" does not fit a day, so it is simply left out.
            parts = [w.part for w in waiting if w.part is not None]
            if resolve([atom], parts, ctx) is not None:
                current.parts, current.start = parts, waiting[0].start
        waiting = []
        current.span = resolve(current.atoms, current.parts, ctx)
        groups.append(current)
    return [g for g in groups if g.anchored]


def _open_end(start: datetime, ctx: Context) -> datetime:
    # "since May" runs to now; "from next week on" has no end in sight.
    return ctx.open_end if start < ctx.midnight else TIME_CEILING


def _range(text: str, first: Group, second: Group) -> tuple[int, int] | None:
    """Character bounds of "first … second" when the text between makes it a range."""
    gap_start, gap_end = first.end, second.start
    prefix = _EN_RANGE_PREFIX.search(text, max(0, first.start - 12), first.start)
    start = prefix.start() if prefix else first.start
    until = _KO_UNTIL.match(text, second.end)
    end = until.end() if until else second.end
    if _KO_TILDE.fullmatch(text, gap_start, gap_end) or _KO_FROM.fullmatch(text, gap_start, gap_end):
        return start, end
    if _KO_FROM_AT.fullmatch(text, gap_start, gap_end) and until:
        return start, end
    if _KO_AND.fullmatch(text, gap_start, gap_end):
        between = _KO_BETWEEN.match(text, second.end)
        return (start, between.end()) if between else None
    if _EN_TO.fullmatch(text, gap_start, gap_end):
        return start, second.end
    if _EN_AND.fullmatch(text, gap_start, gap_end) and prefix and prefix.group(1).lower() == "between":
        return start, second.end
    return None


def _open(text: str, found: Group, ctx: Context) -> Found:
    assert found.span is not None
    opened = _open_range(text, found, ctx)
    if opened.span[0] < opened.span[1]:
        return opened
    return Found(found.start, found.end, found.span)  # nothing lies before the calendar's first day


def _open_range(text: str, found: Group, ctx: Context) -> Found:
    assert found.span is not None
    start, end = found.span
    prefix = _EN_OPEN_PREFIX.search(text, max(0, found.start - 20), found.start)
    if prefix:
        word = prefix.group(1).lower().split()[0]
        if word in ("since", "from", "starting", "as"):
            return Found(prefix.start(), found.end, (start, _open_end(start, ctx)))
        if word == "after":
            return Found(prefix.start(), found.end, (end, _open_end(end, ctx)))
        if word in ("before", "prior"):
            return Found(prefix.start(), found.end, (TIME_FLOOR, start))
        return Found(prefix.start(), found.end, (TIME_FLOOR, end))  # until, till, up to
    since = _KO_SINCE.match(text, found.end)
    if since:
        return Found(found.start, since.end(), (start, _open_end(start, ctx)))
    before = _KO_BEFORE.match(text, found.end)
    if before:
        return Found(found.start, before.end(), (TIME_FLOOR, start))
    return Found(found.start, found.end, found.span)


def combine(text: str, groups: list[Group], ctx: Context) -> list[Found]:
    mentions: list[Found] = []
    index = 0
    while index < len(groups):
        first = groups[index]
        assert first.span is not None
        if index + 1 < len(groups):
            second = groups[index + 1]
            bounds = _range(text, first, second)
            if bounds is not None:
                later = resolve(second.atoms, second.parts, ctx, after=first.span[0]) or second.span
                assert later is not None
                start, end = first.span[0], later[1]
                if end <= start:
                    start, end = min(first.span[0], later[0]), max(first.span[1], later[1])
                mentions.append(Found(bounds[0], bounds[1], (start, end)))
                index += 2
                continue
        mentions.append(_open(text, first, ctx))
        index += 1
    return mentions
