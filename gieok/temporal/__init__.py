"""Time understanding for recall and retain, Korean and English.

``parse_time_range(text, now)`` finds the time a query or sentence talks about and returns the
half-open range ``[start, end)``; ``find_time_expressions(text, reference)`` lists every mention with
its character offsets (retain resolves "지난주" against the message timestamp);
``parse_datetime(value)`` reads ISO 8601.

Design: ordered regex rules per language (``_korean``, ``_english``, ``_numeric``) turn words into
atoms ("작년", "3월", "금요일", "저녁", "early"); ``_compose`` groups neighbouring atoms and resolves
them coarse to fine ("작년 3월 5일 저녁"), then joins ranges ("3월부터 5월까지") and open ends
("since May").  Arithmetic happens on ``now``'s wall clock; an aware ``now`` gives ranges in its
tzinfo, a naive one naive ranges, a ``date`` stands for that whole day.

Rules for ambiguous cases (examples on Tuesday 2026-05-12 15:00):

- Weeks are ISO weeks, Monday to Sunday: 지난주 / last week = 05-04 to 05-11.  A weekend is
  Saturday 00:00 to Monday 00:00.
- A calendar expression without a year (3월, 3월 5일, 5일, 3/5, June, June 5, the 20th, 여름, 연말,
  월말) is its latest occurrence that starts no later than ``now`` + 7 days, because memory queries
  ask about the past but people also name the coming week's dates: 3월 → March 2026, 6월 → June
  2025, 15일 → 05-15, 20일 → 04-20.  "20일" is a day of the month; "20일 전" is twenty days ago.
  지난 / last → the latest one already over before today; 오는 / next / coming → the first one
  starting after today; 이번 / 올 / this → the one holding now, else the one in the current year.
- A bare weekday (금요일에, on Friday) is the most recent one on or before today, with no grace;
  "지난 금요일" / "last Friday" is the most recent before today; "이번 주 금요일" / "this Friday"
  is this week's; "다음 금요일" / "next Friday" the first after today; "지난주 금요일" / "다음 주
  금요일" the Friday of that week.  A bare 주말 / "over the weekend" is the latest weekend begun.
- "N units ago" (3일 전, 2주 전, 한 달 전, 1년 전, two weeks ago) is the calendar unit holding the
  moment N units back: that day, ISO week, month or year; hours give the clock hour, minutes a
  quarter hour either side (never past now).  Vague counts (며칠, 몇, 수, a few, several) mean 2 to 6
  units back, "두세" 2 to 3, 엊그제 two or three days ago, "a couple" exactly 2.  후 / 뒤 / later /
  "in N days" mirror this forwards.
- Rolling windows (지난 3일간, 최근 3일, 지난 한 달 동안, the past week, the last 3 months) run from
  N units before today's midnight to the end of today.  "지난 3일" without 간/동안 is the 3rd of the
  month (news style).
- 최근 / 요즘 / recently / lately: the last 14 days including today.  방금 / 아까 / just now /
  earlier today: today.  얼마 전 / a while ago: the 30 days before today.  "the other day": 2-6 days
  ago.  이맘때 / "around this time": the same calendar day, 14 days either side.
- Parts: 초 / early = days 1-10 of a month, Q1 of a year, the first month of a season, years 0-3 of a
  decade; 중순 / mid = days 11-20, Q2-Q3, the middle month, years 4-6; 말 / late = day 21 to the end,
  Q4, the last month, years 7-9.  상반기 / 하반기 and "first / second half of" are halves; N분기 and
  Qn are quarters.  Parts never apply to a single day ("I was late yesterday" is just yesterday).
- Seasons are meteorological (spring March-May, summer June-August, autumn September-November);
  the winter of a year starts in its December: 작년 겨울 = 2025-12-01 to 2026-03-01.
- Parts of day: 새벽 0-6, 아침 / morning 6-12, 오전 0-12, 점심 / lunchtime 11-14, 낮 9-18, 오후 /
  afternoon 12-18, 저녁 / evening 17-22, 밤 / night 18 to 6 the next morning; 어젯밤 / last night =
  yesterday 18:00 to today 06:00.  A part of day alone ("저녁 메뉴", "good morning") is not a time
  expression; it only narrows a day: 어제 저녁 = yesterday 17:00-22:00.
- A clock time means the hour starting then; without 오전/오후/am/pm, 1-6 o'clock reads as afternoon
  and 7-11 as morning, unless a part of day in the same phrase decides (저녁 7시 = 19:00).
- Ranges: "X부터 Y까지", "X~Y", "X에서 Y까지", "X와 Y 사이", "from X to Y", "between X and Y",
  "X-Y" span the start of X to the end of Y, Y being searched forward from X: 11월부터 2월까지
  crosses the new year, 3월 5일~7일 stays in March.
- Open ends: since / from / starting / 부터 / 이후 → start of X to now (``TIME_CEILING``, 9999-12-31,
  when X begins today or later: "다음 주부터"); after → end of X to now; before / prior to / 이전 /
  전에 (after a date, not a count) → ``TIME_FLOOR`` (0001-01-02) to the start of X; until / till →
  ``TIME_FLOOR`` to the end of X.  "X까지" and "by X" keep X itself: in messages they are deadlines.
- With several mentions, ``parse_time_range`` takes the first, unless a later one lies inside it
  (then the narrower: "지난주에... 금요일에" → that Friday).
- English month names need a day, a year or a preposition unless capitalised and unambiguous;
  lowercase "may" is never a month (see ``_english``).  Numeric dates: 3/5 is month/day, 05/08/2023
  is US month/day/year, 2024.3.5 and 2024-03-05 are year first.
"""

from __future__ import annotations

from ._parse import TimeMention, find_time_expressions, parse_datetime, parse_time_range
from ._ranges import TIME_CEILING, TIME_FLOOR

__all__ = [
    "TIME_CEILING",
    "TIME_FLOOR",
    "TimeMention",
    "find_time_expressions",
    "parse_datetime",
    "parse_time_range",
]
