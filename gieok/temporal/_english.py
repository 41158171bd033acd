"""English time words.

Month names are guarded because five of them are ordinary words or first names (March, April, May,
June, August): a month name counts when a day or year is attached ("May 8th", "June 2024"), when a
preposition or modifier stands before it ("in May", "since March", "early June", "last August"), or
when it is capitalised and unambiguous ("January", "July").  Lowercase "may" is never a month.
Seasons need the same kind of support ("in the fall", "last summer", "summer 2024"), so "I fall"
stays a verb.  Bare four-digit years need a preposition ("in 2022", "before 2020").
"""

from __future__ import annotations

import re

from ._atoms import (
    DIGITS,
    NO_GRACE,
    Atom,
    Builder,
    Pick,
    Rule,
    around_in,
    clock_hours,
    clock_in,
    date_in,
    day_in,
    daypart_in,
    daypart_of,
    days_from_today,
    fixed,
    last_units,
    month_in,
    months_in,
    narrowing,
    part_atom,
    recent,
    rule,
    season_in,
    short_decade,
    standalone,
    unit_from_now,
    units_ago,
    week_of_month_in,
    weekday_in,
    weekend_from_now,
    weekend_in,
    within_current,
)
from ._numbers import EN_COUNT_RE, english_count
from ._ranges import (
    Context,
    Grain,
    Part,
    Span,
    apply_part,
    day_span,
    month_span,
    months_span,
    offset_unit,
    safe_date,
    season_span,
    year_span,
)

_I = re.IGNORECASE

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2,
    "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11,
    "dec": 12,
}
_AMBIGUOUS = {"march", "april", "may", "june", "august"}
_MON = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
        r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_FULL_MON = ("(january|february|march|april|may|june|july|august|september|october|november|"
             "december|sept)")
_DIRECTION = r"(last|this|next|this\s+past|this\s+coming|coming|past)"
_PICK = {"last": Pick.LAST, "past": Pick.LAST, "this past": Pick.LAST, "this": Pick.THIS,
         "next": Pick.NEXT, "coming": Pick.NEXT, "this coming": Pick.NEXT}
_CONTEXT = re.compile(
    r"(?:\b(?:in|since|from|between|before|after|until|till|by|during|through|throughout|of|"
    r"around|early|late|mid|year|for|over)\s+(?:the\s+(?:month\s+of\s+|year\s+)?)?|\bmid-|"
    r"\b(?:" + _MON[1:-1] + r"|\d{4})\.?\s*(?:and|to|or|through|thru|until|till|[-–—~])\s*)$",
    _I,
)
_EVERY = re.compile(r"\bevery\s+$", _I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SEASONS = {"spring": "spring", "summer": "summer", "fall": "autumn", "autumn": "autumn",
            "winter": "winter"}
_PART_WORDS = {"early": Part.EARLY, "beginning": Part.EARLY, "start": Part.EARLY, "mid": Part.MID,
               "middle": Part.MID, "late": Part.LATE, "end": Part.LATE, "first": Part.FIRST_HALF,
               "second": Part.SECOND_HALF, "latter": Part.SECOND_HALF}
_UNITS = {"min": "minute", "minute": "minute", "hour": "hour", "hr": "hour", "day": "day",
          "week": "week", "fortnight": "week", "month": "month", "year": "year", "yr": "year",
          "decade": "year"}
_DAYPARTS = {"early morning": (4, 8), "morning": (6, 12), "afternoon": (12, 18), "evening": (17, 22),
             "night": (18, 30), "noon": (12, 13), "midday": (11, 14), "lunchtime": (11, 14)}


def _where(m: re.Match[str], group: int | str = 0) -> tuple[int, int]:
    return m.start(group), m.end(group)


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _context(text: str, start: int) -> bool:
    return _CONTEXT.search(text, max(0, start - 40), start) is not None


def _month_number(word: str, text: str, start: int, attached: bool) -> int | None:
    """The month a word names, or None when it is probably the ordinary word."""
    if word == "may":
        return None  # lowercase "may" is the verb
    if not attached and (word.islower() or word.lower() in _AMBIGUOUS) and not _context(text, start):
        return None
    return _MONTHS[word.lower().rstrip(".")]


def _month_date(month: int, day: int, year_text: str | None, where: tuple[int, int]) -> Atom | None:
    if year_text is None:
        if safe_date(2000, month, day) is None:
            return None
        return narrowing(where, Grain.DAY, date_in(month, day), Grain.YEAR)
    found = safe_date(int(year_text), month, day)
    return None if found is None else standalone(where, Grain.DAY, fixed(day_span(found)))


def _day_month(m: re.Match[str], text: str) -> Atom | None:
    month = _month_number(m.group(2), text, m.start(2), attached=True)
    return None if month is None else _month_date(month, int(m.group(1)), m.group(3), _where(m))


def _month_day(m: re.Match[str], text: str) -> Atom | None:
    month = _month_number(m.group(1), text, m.start(1), attached=True)
    return None if month is None else _month_date(month, int(m.group(2)), m.group(3), _where(m))


def _month_days(m: re.Match[str], text: str) -> Atom | None:
    month = _month_number(m.group(1), text, m.start(1), attached=True)
    first_day, last_day = int(m.group(2)), int(m.group(3))
    if month is None or not 1 <= first_day < last_day <= 31:
        return None

    def refine(parent: Span, grain: Grain, ctx: Context) -> Span | None:
        first = date_in(month, first_day)(parent, grain, ctx)
        last = date_in(month, last_day)(parent, grain, ctx)
        return None if first is None or last is None else (first[0], last[1])

    if m.group(4):
        first = safe_date(int(m.group(4)), month, first_day)
        last = safe_date(int(m.group(4)), month, last_day)
        if first is None or last is None:
            return None
        return standalone(_where(m), Grain.DAY, fixed((day_span(first)[0], day_span(last)[1])))
    return narrowing(_where(m), Grain.DAY, refine, Grain.YEAR)


def _month_year(m: re.Match[str], text: str) -> Atom | None:
    month = _month_number(m.group(1), text, m.start(1), attached=True)
    if month is None:
        return None
    return standalone(_where(m), Grain.MONTH, fixed(month_span(int(m.group(2)), month)))


_YEAR_AFTER = re.compile(r",?\s+(?:of\s+)?(?:last|this|next)\s+year\b", _I)


def _month(m: re.Match[str], text: str) -> Atom | None:
    direction = m.group(1)
    attached = bool(direction) or _YEAR_AFTER.match(text, m.end()) is not None  # "June last year"
    month = _month_number(m.group(2), text, m.start(0), attached)
    if month is None:
        return None
    pick = _PICK.get(_words(direction or ""), Pick.PAST)
    return narrowing(_where(m), Grain.MONTH, month_in(month), Grain.YEAR, pick)


def _nth(m: re.Match[str], text: str) -> Atom | None:
    day = int(m.group(2))
    if not 1 <= day <= 31:
        return None
    return narrowing(_where(m, 1), Grain.DAY, day_in(day), Grain.MONTH)


_DAY_WORDS = {"today": 0, "yesterday": -1, "tomorrow": 1, "the day before yesterday": -2,
              "day before yesterday": -2, "the day after tomorrow": 2, "day after tomorrow": 2}
_DAY_PARTS = {"tonight": (0, 18, 30), "last night": (-1, 18, 30), "this morning": (0, 6, 12),
              "this afternoon": (0, 12, 18), "this evening": (0, 17, 22)}


def _relative_day(m: re.Match[str], text: str) -> Atom:
    words = _words(m.group(0))
    if words in _DAY_PARTS:
        offset, first, last = _DAY_PARTS[words]
        return standalone(_where(m), Grain.DAYPART, daypart_of(offset, first, last))
    return standalone(_where(m), Grain.DAY, days_from_today(_DAY_WORDS[words]))


_OFFSETS = {"last": -1, "previous": -1, "this": 0, "next": 1, "following": 1, "coming": 1}
_GRAINS = {"week": Grain.WEEK, "month": Grain.MONTH, "year": Grain.YEAR}


def _two_units(m: re.Match[str], text: str) -> Atom:
    unit = m.group(1).lower()
    offset = -2 if m.group(2).lower().startswith("before") else 2
    return standalone(_where(m), _GRAINS[unit], unit_from_now(unit, offset))


def _relative_unit(m: re.Match[str], text: str) -> Atom:
    unit = m.group(2).lower()
    offset = _OFFSETS[_words(m.group(1)).removeprefix("the ")]
    return standalone(_where(m), _GRAINS[unit], unit_from_now(unit, offset))


_PAST = re.compile(r"\b(?:did|was|were|had|went|got|came|saw|made|took|spent|\w{2,}ed)\b", _I)
_SENTENCE_END = re.compile(r"[.?!\n]")


def _said_in_the_past(text: str, m: re.Match[str]) -> bool:
    """A past-tense verb in the sentence around ``m`` ("what did we do on the weekend")."""
    starts = [e.end() for e in _SENTENCE_END.finditer(text, 0, m.start())]
    end = _SENTENCE_END.search(text, m.end())
    sentence = text[starts[-1] if starts else 0: end.start() if end else len(text)]
    return _PAST.search(sentence.replace(m.group(0), " ")) is not None


def _weekend(m: re.Match[str], text: str) -> Atom | None:
    direction = _words(m.group(1) or "")
    if not direction:
        if not m.group(0).lower().startswith("over") and not _said_in_the_past(text, m):
            return None  # "What do you do on the weekend?": a habit, not last weekend
        return narrowing(_where(m), Grain.WEEKEND, weekend_in, Grain.WEEK, Pick.PAST, NO_GRACE)
    offset = {"last": -1, "past": -1, "this past": -1, "this": 0, "next": 1, "coming": 0,
              "this coming": 0}[direction]
    return standalone(_where(m), Grain.WEEKEND, weekend_from_now(offset))


def _weekday(m: re.Match[str], text: str) -> Atom | None:
    if _EVERY.search(text, max(0, m.start() - 8), m.start()):
        return None  # "every Friday" is a habit, not a date
    pick = _PICK.get(_words(m.group(1) or ""), Pick.PAST)
    weekday = _WEEKDAYS.index(m.group(2).lower())
    return narrowing(_where(m), Grain.DAY, weekday_in(weekday), Grain.WEEK, pick, NO_GRACE)


def _season(m: re.Match[str], text: str) -> Atom | None:
    direction, part_word, name, year = m.group(1), m.group(2), m.group(3), m.group(4)
    if not (direction or part_word or year or _context(text, m.start())):
        return None
    season = _SEASONS[name.lower()]
    part = _PART_WORDS[part_word.lower()] if part_word else None
    if year:
        span = season_span(int(year), season)
        span = span if part is None else (apply_part(span, Grain.SEASON, part) or span)
        return standalone(_where(m), Grain.SEASON, fixed(span))
    pick = _PICK.get(_words(direction or ""), Pick.PAST)
    return narrowing(_where(m), Grain.SEASON, season_in(season, part), Grain.YEAR, pick)


_DECADE_CONTEXT = re.compile(r"(?:\b(?:the|early|mid|late|in|of|since|during)\s+|\bmid-)$", _I)


def _decade(m: re.Match[str], text: str) -> Atom | None:
    digits = m.group(1) or m.group(2)
    if len(digits) == 2 and "'" not in m.group(0) and "’" not in m.group(0):
        # "the 90s", "early 90s", "'90s"; but "in his 30s" is an age
        if not _DECADE_CONTEXT.search(text, max(0, m.start() - 10), m.start()):
            return None
    if len(digits) == 4:
        return standalone(_where(m), Grain.DECADE, fixed(year_span(int(digits), 10)))
    return standalone(_where(m), Grain.DECADE, short_decade(int(digits)))


def _year(m: re.Match[str], text: str) -> Atom | None:
    if not _context(text, m.start()):
        return None
    return standalone(_where(m), Grain.YEAR, fixed(year_span(int(m.group(1)))))


def _ago(m: re.Match[str], text: str) -> Atom | None:
    if m.group(1).lower().startswith("half"):
        if not m.group(2).lower().startswith("year"):
            return None
        future = not m.group(3).lower().startswith(("ago", "back", "before"))
        return standalone(_where(m), Grain.DAY, units_ago("month", 6, 6, future))
    count = english_count(m.group(1))
    if count is None or count[1] == 0:
        return None
    unit_word = m.group(2).lower().rstrip("s")
    unit = _UNITS[unit_word]
    scale = 10 if unit_word == "decade" else 2 if unit_word == "fortnight" else 1
    future = not m.group(3).lower().startswith(("ago", "back", "before"))
    return standalone(_where(m), Grain.DAY,
                      units_ago(unit, count[0] * scale, count[1] * scale, future))


def _in_future(m: re.Match[str], text: str) -> Atom | None:
    count = english_count(m.group(1))
    if count is None or count[1] == 0:
        return None
    unit = _UNITS[m.group(2).lower().rstrip("s")]
    return standalone(_where(m), Grain.DAY, units_ago(unit, count[0], count[1], future=True))


def _rolling(m: re.Match[str], text: str) -> Atom | None:
    count_text = m.group(1) or m.group(2)
    unit_word = m.group(3).lower().rstrip("s")
    if count_text is None and unit_word == "day":
        return None  # "the last day of school" is not a window
    count = english_count(count_text) if count_text else (1, 1)
    if count is None or count[1] == 0:
        return None
    scale = 2 if unit_word == "fortnight" else 1
    return standalone(_where(m), Grain.DAY, last_units(_UNITS[unit_word], count[1] * scale))


def _recent(m: re.Match[str], text: str) -> Atom:
    words = _words(m.group(0))
    if words.startswith(("just", "earlier today", "a moment", "a few moments", "a little")):
        return standalone(_where(m), Grain.DAY, days_from_today(0))
    if words.startswith("a while"):
        return standalone(_where(m), Grain.DAY, recent(30, include_today=False))
    if words == "the other day":
        return standalone(_where(m), Grain.DAY, units_ago("day", 2, 6))
    return standalone(_where(m), Grain.DAY, recent())


def _around(m: re.Match[str], text: str) -> Atom:
    offset = -1 if m.group(1).lower() == "last" else 1

    def resolve(ctx: Context) -> Span | None:
        return around_in(offset_unit(ctx, "year", offset), Grain.YEAR, ctx)

    return standalone(_where(m), Grain.DAY, resolve)


def _part(m: re.Match[str], text: str) -> Atom:
    return part_atom(_where(m), _PART_WORDS[m.group(1).lower()], before=True)


def _this_part(m: re.Match[str], text: str) -> Atom:
    part, unit = _PART_WORDS[m.group(1).lower()], m.group(2).lower()
    grain = _GRAINS[unit]

    def resolve(ctx: Context) -> Span | None:
        return apply_part(offset_unit(ctx, unit, 0), grain, part)

    return standalone(_where(m), grain, resolve)


def _earlier_later(m: re.Match[str], text: str) -> Atom:
    return standalone(_where(m), Grain.DAY,
                      within_current(m.group(2).lower(), m.group(1).lower() == "earlier"))


def _week_of_month(m: re.Match[str], text: str) -> Atom:
    index = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1,
             "final": -1}[m.group(1).lower()]
    return Atom(m.start(), m.end(), Grain.WEEK, refine=week_of_month_in(index), bare=Grain.MONTH,
                anchors=False)


def _daypart(m: re.Match[str], text: str) -> Atom:
    first, last = _DAYPARTS[_words(m.group(1))]
    return Atom(m.start(), m.end(), Grain.DAYPART, refine=daypart_in(first, last), bare=Grain.DAY,
                pick=Pick.THIS, anchors=False)


def _clock(m: re.Match[str], text: str) -> Atom | None:
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    meridiem = (m.group(3) or "").lower()
    hours = clock_hours(hour, meridiem + "m" if meridiem else None) if hour <= 12 else ()
    if not hours:
        return None
    return narrowing(_where(m), Grain.CLOCK, clock_in(hours, minute), Grain.DAY, Pick.THIS)


def _quarter(m: re.Match[str], text: str) -> Atom | None:
    words = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    quarter = int(m.group(1)) if m.group(1) else words[m.group(2).lower()]
    if m.group(3):
        span = months_span(int(m.group(3)), 3 * quarter - 2, 3)
        return standalone(_where(m), Grain.SEASON, fixed(span))
    if m.group(2):
        return None  # "the first quarter" alone is too often a game or a pie
    return narrowing(_where(m), Grain.SEASON, months_in(3 * quarter - 2, 3), Grain.YEAR)


_COUNT = EN_COUNT_RE
_UNIT_WORDS = ("min", "hour", "hr", "day", "week", "fortnight", "month", "year", "yr", "decade")
_UNIT = r"(min(?:ute)?s?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?|yrs?|decades?)"
_ORD = r"(?:st|nd|rd|th)?"

_NOT_AN_ORDINAL_DAY = (r"(?!\s+(?:century|floor|time|times|place|grade|anniversary|birthday|edition|row|round|"
                       r"page|chapter|percentile|person|people|day|week|month|year|of|inning|hole|lap)\b)")
_MONTH_TRIGGERS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SEASON_WORDS = ("spring", "summer", "fall", "autumn", "winter")
_DAYPART_WORDS = ("morning", "afternoon", "evening", "night", "noon", "midday", "lunchtime")


def _en(pattern: str, build: Builder, *triggers: str) -> Rule:
    return rule(pattern, build, *triggers, flags=re.IGNORECASE)


RULES: list[Rule] = [
    _en(rf"\b(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MON}\b\.?(?:,?\s+(\d{{4}})\b)?", _day_month, *DIGITS),
    _en(rf"\b{_MON}\.?\s+(?:the\s+)?(\d{{1,2}}){_ORD}\b(?!\s*(?:[:%]|am\b|pm\b|a\.m|p\.m|o'?clock))"
        rf"(?:,?\s+(\d{{4}})\b)?", _month_day, *DIGITS),
    _en(rf"\b{_MON}\.?\s+(\d{{1,2}}){_ORD}\s*(?:-|–|to|through)\s*(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?",
        _month_days, *DIGITS),
    _en(rf"\b{_MON}\.?,?\s+(?:of\s+)?(\d{{4}})\b", _month_year, *DIGITS),
    _en(rf"\b(?:{_DIRECTION}\s+)?{_FULL_MON}\b", _month, *_MONTH_TRIGGERS),
    _en(r"\b(?:on|by|since|until|till|before|after|from|between|and|to)\s+(the\s+(\d{1,2})(?:st|nd|rd|th))\b"
        + _NOT_AN_ORDINAL_DAY, _nth, *DIGITS),
    _en(r"\b(?:(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow|today|yesterday|tomorrow|"
        r"tonight|last\s+night|this\s+(?:morning|afternoon|evening))\b",
        _relative_day, "today", "yesterday", "tomorrow", "tonight", "night", "morning", "afternoon", "evening"),
    _en(r"\b(?:the\s+)?(week|month|year)\s+(before\s+last|after\s+next)\b", _two_units, "before last", "after next"),
    _en(r"\b(last|this|next|previous|(?:the\s+)?following|coming)\s+(week|month|year)\b",
        _relative_unit, "week", "month", "year"),
    _en(rf"\b(?:{_DIRECTION}\s+weekend|(?:over|on|at|during)\s+the\s+weekend)\b", _weekend, "weekend"),
    _en(rf"\b(?:{_DIRECTION}\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", _weekday, "day"),
    _en(rf"\b(?:{_DIRECTION}\s+)?(?:(early|mid|late)[\s-]+)?(spring|summer|fall|autumn|winter)\b"
        r"(?:,?\s+(?:of\s+)?(\d{4})\b)?", _season, *_SEASON_WORDS),
    _en(r"\b(?:the\s+)?((?:1[89]|20)\d0)['’]?s\b|(?<![\w'’])['’]?(\d0)['’]?s\b", _decade, "0s", "0's", "0’s"),
    _en(r"(?<![\w$£€#.,])(1[89]\d{2}|2[01]\d{2})\b(?![.,]\d|\s*(?:%|percent))", _year, *DIGITS),
    _en(rf"\b(half\s+an?|{_COUNT})\s+{_UNIT}\s+(ago|back|before\s+now|later|from\s+now|hence)\b",
        _ago, "ago", "back", "before now", "later", "from now", "hence"),
    _en(rf"\bin\s+({_COUNT})\s+{_UNIT}\b(?!\s+(?:ago|back))", _in_future, *_UNIT_WORDS),
    _en(rf"\b(?:the\s+(?:past|last|previous)\s+(?:({_COUNT})\s+)?|(?:past|last)\s+({_COUNT})\s+){_UNIT}\b",
        _rolling, "past", "last", "previous"),
    _en(r"\b(?:recently|lately|these\s+days|nowadays|of\s+late|in\s+recent\s+(?:days|weeks)|just\s+now|"
        r"earlier\s+today|a\s+(?:moment|little\s+while|few\s+moments)\s+ago|a\s+while\s+(?:ago|back)|"
        r"the\s+other\s+day)\b",
        _recent, "recent", "lately", "these days", "nowadays", "of late", "just now", "earlier today", "ago", "back",
        "other day"),
    _en(r"\b(?:(?:around|about|at)\s+)?(?:this|the\s+same)\s+time\s+(last|next)\s+year\b",
        _around, "time last year", "time next year"),
    _en(r"\b(?:the\s+)?(beginning|start|end|middle)\s+of\s+(?:the|this)\s+(week|month|year)\b",
        _this_part, " of the ", " of this "),
    _en(r"\b(early|mid|late)(?:-|\s+)(?=[\w'])", _part, "early", "mid", "late"),
    _en(r"\b(?:the\s+)?(beginning|start|end|middle)\s+of\s+", _part, " of "),
    _en(r"\b(?:the\s+)?(first|second|latter)\s+half\s+of\s+", _part, "half"),
    _en(r"\b(earlier|later)\s+this\s+(week|month|year)\b", _earlier_later, "earlier this", "later this"),
    _en(r"\b(?:the\s+)?(first|second|third|fourth|fifth|last|final)\s+week\s+of\b", _week_of_month, "week of"),
    _en(r"\b(early\s+morning|morning|afternoon|evening|night|noon|midday|lunchtime)\b", _daypart, *_DAYPART_WORDS),
    _en(r"\b(\d{1,2})(?::([0-5]\d))?\s*([ap])\.?\s?m\b\.?", _clock, *DIGITS),
    _en(r"\b(\d{1,2})()\s+o['’]?clock\b()", _clock, "clock"),
    _en(r"\b(?:Q([1-4])|(?:the\s+)?(first|second|third|fourth)\s+quarter)(?:\s+(?:of\s+)?(\d{4}))?\b",
        _quarter, "q1", "q2", "q3", "q4", "quarter"),
]
