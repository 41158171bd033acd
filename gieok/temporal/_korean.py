"""Korean time words.

Particles glued to an expression (에, 에는, 부터, 까지, 쯤, 경, ...) are simply left after the
match.  Short or common words are guarded: "N일" is a day of the month unless a duration word
follows (3일 전 = three days ago, 3일 동안 = for three days, 20일 = the 20th); "봄" needs a particle
or a year before it ("해 봄" is "tried it"); "말"/"초" only count right after a period ("3월 말");
"N시" never swallows "시간"; "주" after 지난/이번/다음 must not start another word (다음 주소).
"""

from __future__ import annotations

import re

from ._atoms import (
    NO_GRACE,
    Atom,
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
    part_in,
    recent,
    rule,
    season_in,
    short_decade,
    short_year_date,
    short_year_month,
    standalone,
    unit_from_now,
    units_ago,
    week_of_month_in,
    weekday_in,
    weekday_of_week,
    weekend_from_now,
    weekend_in,
)
from ._numbers import (
    KO_DAY_WORDS,
    KO_DAY_WORDS_RE,
    KO_NATIVE_RE,
    KO_SINO_RE,
    KO_SPAN_WORDS,
    korean_count,
)
from ._ranges import Grain, Part, day_span, month_span, safe_date, year_span

# Particles and endings that may follow a time word; used where the word alone is too common.
_PARTICLE = (
    "에서|에는|에도|에|엔|부터|까지|쯤|경|께|무렵|즈음|의|이나|이랑|이었|이라|이야|이다|이고|이면|"
    "이|은|는|도|로|으로|만|였|인|라|야|요|랑|가|를|을|동안|내내|사이|날|달|철"
)
_TAIL = rf"(?=$|[^가-힣]|(?:{_PARTICLE}))"

_WEEK_OFFSET = {"지지난": -2, "지난": -1, "저번": -1, "이번": 0, "요번": 0, "다음": 1, "담": 1, "오는": 1, "다다음": 2}
_WEEK_PREFIX = "지지난|다다음|지난|저번|이번|요번|다음|담"
_PICK = {"지난": Pick.LAST, "저번": Pick.LAST, "오는": Pick.NEXT, "다음": Pick.NEXT, "이번": Pick.THIS,
         "요번": Pick.THIS, "올": Pick.THIS}
_WEEKDAYS = "월화수목금토일"
_SEASONS = {"봄": "spring", "여름": "summer", "가을": "autumn", "겨울": "winter"}
_SEASON_PART = {"초": Part.EARLY, "한": Part.MID, "늦": Part.LATE}
_PARTS = {"초순": Part.EARLY, "초반": Part.EARLY, "초": Part.EARLY, "상순": Part.EARLY,
          "중순": Part.MID, "중반": Part.MID, "하순": Part.LATE, "후반": Part.LATE, "말경": Part.LATE,
          "말": Part.LATE}
_YEAR_OFFSET = {"재재작년": -3, "재작년": -2, "지지난해": -2, "작년": -1, "지난해": -1, "전년": -1,
                "올해": 0, "금년": 0, "올": 0, "내년": 1, "다음해": 1, "내후년": 2, "후년": 2}
_DAY_OFFSET = {"그끄저께": -3, "그끄제": -3, "그저께": -2, "그제": -2, "어저께": -1, "어제": -1,
               "오늘": 0, "금일": 0, "내일": 1, "내일모레": 2, "모레": 2, "글피": 3, "그글피": 4}
_DAYPARTS = {"새벽": (0, 6), "아침": (6, 12), "오전": (0, 12), "점심": (11, 14), "낮": (9, 18),
             "오후": (12, 18), "저녁": (17, 22), "밤": (18, 30), "한밤중": (21, 27), "심야": (22, 29)}
_UNITS = {"년": "year", "해": "year", "개월": "month", "달": "month", "주일": "week", "주": "week",
          "일": "day", "시간": "hour", "분": "minute"}
_NATIVE_HOURS = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8,
                 "아홉": 9, "열": 10, "열한": 11, "열두": 12}
_SINO_MONTHS = {"삼": 3, "사": 4, "오": 5, "유": 6, "육": 6, "칠": 7, "팔": 8, "구": 9, "시": 10,
                "십일": 11, "십이": 12}


def _where(m: re.Match[str], group: int | str = 0) -> tuple[int, int]:
    return m.start(group), m.end(group)


def _compact(text: str) -> str:
    return "".join(text.split())


def _full_date(m: re.Match[str], text: str) -> Atom | None:
    year_text, month, day = m.group(1), int(m.group(2)), int(m.group(3))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year_text is None:
        if safe_date(2000, month, day) is None:
            return None
        return narrowing(_where(m), Grain.DAY, date_in(month, day), Grain.YEAR)
    if len(year_text) == 2:
        return standalone(_where(m), Grain.DAY, short_year_date(int(year_text), month, day))
    found = safe_date(int(year_text), month, day)
    return None if found is None else standalone(_where(m), Grain.DAY, fixed(day_span(found)))


def _year_month(m: re.Match[str], text: str) -> Atom | None:
    year_text, month = m.group(1), int(m.group(2))
    if not 1 <= month <= 12:
        return None
    if len(year_text) == 2:
        return standalone(_where(m), Grain.MONTH, short_year_month(int(year_text), month))
    return standalone(_where(m), Grain.MONTH, fixed(month_span(int(year_text), month)))


def _year(m: re.Match[str], text: str) -> Atom | None:
    return standalone(_where(m), Grain.YEAR, fixed(year_span(int(m.group(1)))))


def _decade(m: re.Match[str], text: str) -> Atom | None:
    digits = m.group(1)
    if len(digits) == 2:
        return standalone(_where(m), Grain.DECADE, short_decade(int(digits)))
    start = int(digits) // 10 * 10
    return standalone(_where(m), Grain.DECADE, fixed(year_span(start, 10)))


def _month(m: re.Match[str], text: str) -> Atom | None:
    number = m.group(2)
    month = int(number) if number.isdigit() else _SINO_MONTHS[number]
    if not 1 <= month <= 12:
        return None
    pick = _PICK.get(m.group(1) or "", Pick.PAST)
    return narrowing(_where(m), Grain.MONTH, month_in(month), Grain.YEAR, pick)


def _day(m: re.Match[str], text: str) -> Atom | None:
    day = int(m.group(2))
    if not 1 <= day <= 31:
        return None
    pick = _PICK.get(m.group(1) or "", Pick.PAST)
    return narrowing(_where(m), Grain.DAY, day_in(day), Grain.MONTH, pick)


_EVERY = re.compile(r"매(?:주)?\s*$")


def _weekday(m: re.Match[str], text: str) -> Atom | None:
    prefix, week, weekday = m.group(1), m.group(2), _WEEKDAYS.index(m.group(3))
    if _EVERY.search(text, max(0, m.start() - 4), m.start()):
        return None  # "매주 금요일" is every Friday, not one of them
    if prefix and (week or prefix in ("지지난", "다다음", "담")):
        return standalone(_where(m), Grain.DAY, weekday_of_week(_WEEK_OFFSET[prefix], weekday))
    pick = _PICK.get(prefix or "", Pick.PAST)
    return narrowing(_where(m), Grain.DAY, weekday_in(weekday), Grain.WEEK, pick, NO_GRACE)


_HABIT_BEFORE = re.compile(r"(?:매주?|평소에?|보통|항상|늘|주로)\s*$")
_CLAUSE_END = re.compile(r"[.?!。？！\n]")
_JONG_SS = 20  # ㅆ as a final consonant: 했, 갔, 었, 봤 … mark the past tense


def _past_tense(clause: str) -> bool:
    """A past-tense predicate in ``clause``: a syllable ending in ㅆ other than 있 (있어 is the present)
    and 겠 (a guess or the future)."""
    return any("가" <= ch <= "힣" and (ord(ch) - 0xAC00) % 28 == _JONG_SS and ch not in "있겠" for ch in clause)


def _weekend(m: re.Match[str], text: str) -> Atom | None:
    if m.group(1):
        return standalone(_where(m), Grain.WEEKEND, weekend_from_now(_WEEK_OFFSET[m.group(1)]))
    end = _CLAUSE_END.search(text, m.end())
    rest = text[m.end(): end.start() if end else len(text)]
    if rest.startswith("마다") or _HABIT_BEFORE.search(text, max(0, m.start() - 6), m.start()):
        return None  # 주말마다 / 매주 주말 / 보통 주말에: a habit, not one weekend
    predicate = re.sub(r"^(?:에는|에도|에|엔|은|는|이|가|을|를|도|까지|동안)", "", rest).strip()
    if predicate and not _past_tense(predicate):
        return None  # "주말에 무슨 운동 해?": the present tense of a habit (or a plan), not last weekend
    return narrowing(_where(m), Grain.WEEKEND, weekend_in, Grain.WEEK, Pick.PAST, NO_GRACE)


def _week(m: re.Match[str], text: str) -> Atom:
    return standalone(_where(m), Grain.WEEK, unit_from_now("week", _WEEK_OFFSET[m.group(1)]))


def _relative_month(m: re.Match[str], text: str) -> Atom:
    word = _compact(m.group(0))
    if word in ("이달", "금월"):
        offset = 0
    elif word in ("내달", "익월"):
        offset = 1
    elif word == "전월":
        offset = -1
    else:
        offset = _WEEK_OFFSET[m.group(1)]
    return standalone(_where(m), Grain.MONTH, unit_from_now("month", offset))


def _relative_year(m: re.Match[str], text: str) -> Atom:
    return standalone(_where(m), Grain.YEAR, unit_from_now("year", _YEAR_OFFSET[_compact(m.group(0))]))


def _relative_day(m: re.Match[str], text: str) -> Atom:
    word = m.group(0)
    if word.startswith("엊그"):  # 엊그제: two or three days ago
        return standalone(_where(m), Grain.DAY, days_from_today(-3, -2))
    return standalone(_where(m), Grain.DAY, days_from_today(_DAY_OFFSET[word]))


def _last_night(m: re.Match[str], text: str) -> Atom:
    if "저녁" in m.group(0):
        return standalone(_where(m), Grain.DAYPART, daypart_of(-1, 17, 22))
    return standalone(_where(m), Grain.DAYPART, daypart_of(-1, 18, 30))


def _daypart(m: re.Match[str], text: str) -> Atom:
    first, last = _DAYPARTS[m.group(1)]
    return Atom(m.start(), m.end(), Grain.DAYPART, refine=daypart_in(first, last), bare=Grain.DAY,
                pick=Pick.THIS, anchors=False)


def _clock(m: re.Match[str], text: str) -> Atom | None:
    number = m.group(2)
    hour = int(number) if number.isdigit() else _NATIVE_HOURS[_compact(number)]
    minute = 30 if m.group(4) else int(m.group(3) or 0)
    hours = clock_hours(hour, m.group(1))
    if not hours or minute > 59:
        return None
    return narrowing(_where(m), Grain.CLOCK, clock_in(hours, minute), Grain.DAY, Pick.THIS)


def _ago(m: re.Match[str], text: str) -> Atom | None:
    count_text, unit_word, direction = m.group(1), m.group(2), m.group(3)
    compact = _compact(count_text)
    if unit_word == "일" and not (compact.isdigit() or compact in ("몇", "수")):
        return None  # "이 일 전에" is "before this work", not "two days ago"
    if compact.isdigit() and unit_word in ("년", "해") and 1800 <= int(compact) <= 2199:
        return None  # "2020년 전에" is "before 2020"
    count = korean_count(count_text)
    if count is None or count[1] == 0:
        return None
    future = direction != "전"
    return standalone(_where(m), Grain.DAY, units_ago(_UNITS[unit_word], count[0], count[1], future))


def _ago_word(m: re.Match[str], text: str) -> Atom:
    word, future = _compact(m.group(1)), m.group(2) != "전"
    if word == "며칠":
        return standalone(_where(m), Grain.DAY, units_ago("day", 2, 6, future))
    if word in KO_DAY_WORDS:
        days = KO_DAY_WORDS[word]
        return standalone(_where(m), Grain.DAY, units_ago("day", days, days, future))
    unit, amount = KO_SPAN_WORDS[word if word != "한해" else "한 해"]
    return standalone(_where(m), Grain.DAY, units_ago(unit, amount, amount, future))


def _rolling(m: re.Match[str], text: str) -> Atom | None:
    lead, count_text, unit_word, word, tail = m.group(1, 2, 3, 4, 5)
    if lead in ("지난", "과거") and unit_word == "일" and not tail:
        return None  # "지난 3일" is "on the 3rd" (news style); "지난 3일간" is the rolling window
    if unit_word is None:
        compact = _compact(word)
        if compact == "며칠":
            unit, amount = "day", 6
        elif compact in KO_DAY_WORDS:
            unit, amount = "day", KO_DAY_WORDS[compact]
        else:
            unit, amount = KO_SPAN_WORDS[compact if compact != "한해" else "한 해"]
    else:
        if unit_word == "일" and not _compact(count_text).isdigit():
            return None
        count = korean_count(count_text)
        if count is None or count[1] == 0:
            return None
        unit, amount = _UNITS[unit_word], count[1]
    return standalone(_where(m), Grain.DAY, last_units(unit, amount))


def _recent(m: re.Match[str], text: str) -> Atom:
    word = _compact(m.group(0))
    if word.startswith("얼마"):
        return standalone(_where(m), Grain.DAY, recent(30, include_today=False))
    if word.startswith(("방금", "아까", "조금", "좀")):
        return standalone(_where(m), Grain.DAY, days_from_today(0))
    return standalone(_where(m), Grain.DAY, recent())


def _around(m: re.Match[str], text: str) -> Atom:
    return narrowing(_where(m), Grain.DAY, around_in, Grain.YEAR, Pick.THIS)


def _compound_part(m: re.Match[str], text: str) -> Atom:
    word = m.group(0)
    part = Part.EARLY if word.endswith("초") else Part.LATE
    if word.startswith("연"):
        return narrowing(_where(m), Grain.YEAR, part_in(Grain.YEAR, part), Grain.YEAR)
    if word.startswith("월"):
        return narrowing(_where(m), Grain.MONTH, part_in(Grain.MONTH, part), Grain.MONTH)
    return narrowing(_where(m), Grain.WEEK, part_in(Grain.WEEK, part), Grain.WEEK, Pick.PAST, NO_GRACE)


_SEASON_CONTEXT = re.compile(r"(?:년|올해|지난\s*해|다음\s*해|올|이번|지난)\s*$")
_SPRING_TAIL = re.compile(rf"(?:{_PARTICLE}|학기|방학|바람|나들이|소풍|꽃)")


def _season(m: re.Match[str], text: str) -> Atom | None:
    prefix, part_word, name = m.group(1), m.group(2), m.group(3)
    if name == "봄" and not prefix and not part_word:
        # "해 봄" ("tried it") must not read as spring: ask for a year before or a particle after.
        if not (_SEASON_CONTEXT.search(text, max(0, m.start() - 6), m.start())
                or _SPRING_TAIL.match(text, m.end())):
            return None
    part = _SEASON_PART.get(part_word or "")
    pick = _PICK.get(prefix or "", Pick.PAST)
    return narrowing(_where(m), Grain.SEASON, season_in(_SEASONS[name], part), Grain.YEAR, pick)


def _half(m: re.Match[str], text: str) -> Atom:
    word = m.group(0)
    if word.endswith("분기"):
        quarter = int(m.group(1))
        return narrowing(_where(m), Grain.SEASON, months_in(3 * quarter - 2, 3), Grain.YEAR)
    first = 1 if word == "상반기" else 7
    return narrowing(_where(m), Grain.SEASON, months_in(first, 6), Grain.YEAR)


def _part(m: re.Match[str], text: str) -> Atom:
    return part_atom(_where(m, 1), _PARTS[m.group(1)], before=False)


def _week_of_month(m: re.Match[str], text: str) -> Atom:
    word = m.group(1)
    index = -1 if word == "마지막" else {"첫": 1, "첫째": 1, "둘째": 2, "두째": 2, "셋째": 3, "넷째": 4,
                                         "다섯째": 5}[word]
    return Atom(m.start(), m.end(), Grain.WEEK, refine=week_of_month_in(index), bare=Grain.MONTH,
                anchors=False)


_NUM = rf"(?:\d{{1,4}}|{KO_NATIVE_RE}|{KO_SINO_RE})"
_UNIT = "년|해|개월|달|주일|주|일|시간|분"
_WEEK_BLOCK = "말|간|기|식|제|인|택|소|변|류|장|민|차|석|목|문|유|행|년|위|요|최|방|연|황|권|주|스|체|력|무|의사"
# After "N일", words that make it a count of days ("3일 동안", "1일 2회") rather than a date.
_DAY_COUNT = (r"(?!\s*(?:간|동안|째|만|치|차|씩|이내|내|정도|가량|이상|이하|넘게|여|연속|"
              r"\d+\s*(?:회|식|잔|번|끼|개|병|알|정|컵|포|장)))")
_MONTH_WORD_BLOCK = "(?!력|리|려|라|걀|러|성|빛|콤|팽|갑|래|아|린|랑)"
_HOUR_WORDS = "열한|열두|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열"
_DAY_WORD = rf"며칠|{KO_DAY_WORDS_RE}|일주일|반년|한\s*해"
_OL = r"올(?=\s*(?:\d{1,2}\s*월|(?:초|늦|한)?(?:봄|여름|가을|겨울)|초|말|상반기|하반기|[1-4]\s*분기))"

RULES: list[Rule] = [
    rule(r"(?<!\d)(?:(\d{4}|\d{2})\s*년\s*)?(\d{1,2})\s*월\s*(\d{1,2})\s*일(?!\s*(?:간|동안|째))", _full_date, "월"),
    rule(r"(?<!\d)(\d{4}|\d{2})\s*년\s*(\d{1,2})\s*월(?!\s*(?:간|급))", _year_month, "년"),
    rule(r"(?<![\d.])(\d{4})\s*년(?!\s*(?:간|동안|째|만|대))", _year, "년"),
    rule(r"(?<![\d.])(\d{4}|\d{2})\s*년대", _decade, "년대"),
    rule(r"(?:(지난|오는|올|이번|다음)\s*)?(?<![\d.])(\d{1,2})\s*월(?!\s*(?:간|급|세|례|요일))", _month, "월"),
    rule(r"(?:(지난|오는|올|이번|다음)\s*)?(?<![가-힣])(십일|십이|삼|사|오|유|육|칠|팔|구|시)월"
         r"(?!요일|급|세|간|례|드|스|말)", _month, "월"),
    rule(rf"(?:(지난|오는|이번)\s*)?(?<![\d.:/\-])(\d{{1,2}})\s*일{_DAY_COUNT}", _day, "일"),
    rule(rf"(?:({_WEEK_PREFIX}|오는)\s*(주\s*)?)?([{_WEEKDAYS}])(?:요일|욜)", _weekday, "요일", "욜"),
    rule(rf"(?:({_WEEK_PREFIX})\s*)?주말(?!농장)", _weekend, "주말"),
    rule(rf"({_WEEK_PREFIX})\s*주(?:일)?(?!{_WEEK_BLOCK})", _week, "주"),
    rule(rf"({_WEEK_PREFIX})\s*달{_MONTH_WORD_BLOCK}|이달|내달(?!리|려|렸|린)|익월|전월(?!세)|금월",
         _relative_month, "달", "월"),
    rule(rf"재재작년|재작년|(?:지지난|지난|다음)\s*해{_TAIL}|작년|전년|올해|금년|내후년|후년|내년|{_OL}",
         _relative_year, "년", "해", "올"),
    rule(r"그끄저께|그끄제|엊그저께|엊그제|그저께|그제(?!서야|야)|어저께|어제|오늘(?!날)|금일|내일모레|내일|"
         r"그글피|글피|모레",
         _relative_day, "그끄", "엊그", "그저께", "그제", "어저께", "어제", "오늘", "금일", "내일", "모레", "글피"),
    rule(r"어젯밤|간밤|지난\s*밤|어젯\s*저녁|엊저녁", _last_night, "밤", "저녁"),
    rule(r"(한밤중|심야|새벽|아침|오전|점심|오후|저녁|낮(?![다아은게춰추았을고지음])|밤(?!나무|송이|톨|새))"
         r"(?:\s*시간|때)?",
         _daypart, "새벽", "아침", "오전", "점심", "낮", "오후", "저녁", "밤", "심야"),
    rule(rf"(?:(오전|오후|새벽|아침|낮|저녁|밤)\s*)?(?<![\d.가-힣])(\d{{1,2}}|{_HOUR_WORDS})\s*시(?!도|라도|바삐)"
         rf"(?:\s*(\d{{1,2}})\s*분|\s*(반))?(?=$|[^가-힣]|정각|{_PARTICLE})", _clock, "시"),
    rule(rf"(?<![\d.가-힣])({_NUM})\s*({_UNIT})\s*(전|후|뒤){_TAIL}", _ago, "전", "후", "뒤"),
    rule(rf"({_DAY_WORD}|반달)\s*(전|후|뒤){_TAIL}", _ago_word, "전", "후", "뒤"),
    rule(rf"(지난|최근|과거|(?<![가-힣])요)\s*(?:(?<![가-힣])({_NUM})\s*({_UNIT})|({_DAY_WORD}))"
         r"\s*(간|동안|사이|새)?", _rolling, "지난", "최근", "과거", "요"),
    rule(r"최근(?:\s*들어)?|요즘|요새|요즈음|근래|방금(?:\s*전)?|아까|조금\s*전|좀\s*전|얼마\s*전",
         _recent, "최근", "요즘", "요새", "요즈음", "근래", "방금", "아까", "조금", "좀", "얼마"),
    rule(r"이맘\s*때|이맘쯤|이\s*맘때|이때쯤|이\s*무렵", _around, "맘", "때쯤", "무렵"),
    rule(r"연초|연말|월초|월말|주초", _compound_part, "연초", "연말", "월초", "월말", "주초"),
    rule(r"(?:(지난|저번|이번|요번|올|다음|오는)\s*)?(초|늦|한)?(봄|여름|가을|겨울)",
         _season, "봄", "여름", "가을", "겨울"),
    rule(r"상반기|하반기|(?<!\d)([1-4])\s*분기", _half, "반기", "분기"),
    rule(rf"(?<=[월년해달주대올\s])\s*(초순|초반|초|상순|중순|중반|하순|후반|말경|말)(?=$|[^가-힣]|(?:{_PARTICLE}))",
         _part, "초", "중", "말", "하순", "상순", "후반"),
    rule(rf"(첫째|첫|둘째|두째|셋째|넷째|다섯째|마지막)\s*(?:번째\s*)?주(?:차)?(?!{_WEEK_BLOCK})",
         _week_of_month, "째", "첫", "마지막"),
]
