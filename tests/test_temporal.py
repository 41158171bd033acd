"""Time expressions in Korean and English, against fixed reference times.

NOW is Tuesday 2026-05-12 15:00 (ISO week 2026-05-11 .. 2026-05-18); NEW_YEAR is Saturday
2026-01-03 10:00, for expressions that cross a year boundary.  Every golden case writes its range
out in full.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gieok.temporal as temporal
from gieok.errors import InputError, InvalidTimeError
from gieok.temporal import (
    TIME_CEILING,
    TIME_FLOOR,
    TimeMention,
    find_time_expressions,
    parse_datetime,
    parse_time_range,
)

D = datetime
NOW = D(2026, 5, 12, 15, 0)
NEW_YEAR = D(2026, 1, 3, 10, 0)

KOREAN: list[tuple[str, datetime, datetime]] = [
    ("오늘", D(2026, 5, 12), D(2026, 5, 13)),
    ("어제", D(2026, 5, 11), D(2026, 5, 12)),
    ("그제", D(2026, 5, 10), D(2026, 5, 11)),
    ("그저께", D(2026, 5, 10), D(2026, 5, 11)),
    ("엊그제", D(2026, 5, 9), D(2026, 5, 11)),
    ("내일", D(2026, 5, 13), D(2026, 5, 14)),
    ("모레", D(2026, 5, 14), D(2026, 5, 15)),
    ("글피", D(2026, 5, 15), D(2026, 5, 16)),
    ("내일모레", D(2026, 5, 14), D(2026, 5, 15)),
    ("지난주", D(2026, 5, 4), D(2026, 5, 11)),
    ("이번 주", D(2026, 5, 11), D(2026, 5, 18)),
    ("이번주", D(2026, 5, 11), D(2026, 5, 18)),
    ("다음 주", D(2026, 5, 18), D(2026, 5, 25)),
    ("지지난 주", D(2026, 4, 27), D(2026, 5, 4)),
    ("지난주 금요일", D(2026, 5, 8), D(2026, 5, 9)),
    ("지지난 주 금요일", D(2026, 5, 1), D(2026, 5, 2)),
    ("다음 주 수요일", D(2026, 5, 20), D(2026, 5, 21)),
    ("이번 주말", D(2026, 5, 16), D(2026, 5, 18)),
    ("지난 주말", D(2026, 5, 9), D(2026, 5, 11)),
    ("주말에 뭐 했어?", D(2026, 5, 9), D(2026, 5, 11)),
    ("다음 달 초", D(2026, 6, 1), D(2026, 6, 11)),
    ("다음 달 중순", D(2026, 6, 11), D(2026, 6, 21)),
    ("다음 달 말", D(2026, 6, 21), D(2026, 7, 1)),
    ("지난달", D(2026, 4, 1), D(2026, 5, 1)),
    ("이번 달", D(2026, 5, 1), D(2026, 6, 1)),
    ("3일 전에", D(2026, 5, 9), D(2026, 5, 10)),
    ("2주 전", D(2026, 4, 27), D(2026, 5, 4)),
    ("한 달 전", D(2026, 4, 1), D(2026, 5, 1)),
    ("석 달 전", D(2026, 2, 1), D(2026, 3, 1)),
    ("두 달 전", D(2026, 3, 1), D(2026, 4, 1)),
    ("1년 전", D(2025, 1, 1), D(2026, 1, 1)),
    ("일 년 전", D(2025, 1, 1), D(2026, 1, 1)),
    ("십 년 전", D(2016, 1, 1), D(2017, 1, 1)),
    ("며칠 전", D(2026, 5, 6), D(2026, 5, 11)),
    ("몇 년 전", D(2020, 1, 1), D(2025, 1, 1)),
    ("두세 달 전", D(2026, 2, 1), D(2026, 4, 1)),
    ("하루 전", D(2026, 5, 11), D(2026, 5, 12)),
    ("이틀 전", D(2026, 5, 10), D(2026, 5, 11)),
    ("사흘 전", D(2026, 5, 9), D(2026, 5, 10)),
    ("나흘 전", D(2026, 5, 8), D(2026, 5, 9)),
    ("닷새 전", D(2026, 5, 7), D(2026, 5, 8)),
    ("일주일 전", D(2026, 5, 4), D(2026, 5, 11)),
    ("보름 전", D(2026, 4, 27), D(2026, 4, 28)),
    ("반년 전", D(2025, 11, 1), D(2025, 12, 1)),
    ("3시간 전", D(2026, 5, 12, 12), D(2026, 5, 12, 13)),
    ("3일 후", D(2026, 5, 15), D(2026, 5, 16)),
    ("일주일 뒤", D(2026, 5, 18), D(2026, 5, 25)),
    ("작년", D(2025, 1, 1), D(2026, 1, 1)),
    ("올해", D(2026, 1, 1), D(2027, 1, 1)),
    ("내년", D(2027, 1, 1), D(2028, 1, 1)),
    ("재작년", D(2024, 1, 1), D(2025, 1, 1)),
    ("작년 이맘때", D(2025, 4, 28), D(2025, 5, 27)),
    ("올해 초", D(2026, 1, 1), D(2026, 4, 1)),
    ("작년 말", D(2025, 10, 1), D(2026, 1, 1)),
    ("작년 연말", D(2025, 10, 1), D(2026, 1, 1)),
    ("연말", D(2025, 10, 1), D(2026, 1, 1)),
    ("작년 하반기", D(2025, 7, 1), D(2026, 1, 1)),
    ("1분기", D(2026, 1, 1), D(2026, 4, 1)),
    ("3월", D(2026, 3, 1), D(2026, 4, 1)),
    ("6월", D(2025, 6, 1), D(2025, 7, 1)),
    ("유월", D(2025, 6, 1), D(2025, 7, 1)),
    ("3월 5일", D(2026, 3, 5), D(2026, 3, 6)),
    ("5일", D(2026, 5, 5), D(2026, 5, 6)),
    ("15일", D(2026, 5, 15), D(2026, 5, 16)),
    ("20일", D(2026, 4, 20), D(2026, 4, 21)),
    ("지난 5일", D(2026, 5, 5), D(2026, 5, 6)),
    ("오는 15일", D(2026, 5, 15), D(2026, 5, 16)),
    ("2024년", D(2024, 1, 1), D(2025, 1, 1)),
    ("2024년 3월", D(2024, 3, 1), D(2024, 4, 1)),
    ("24년 3월", D(2024, 3, 1), D(2024, 4, 1)),
    ("2024년 3월 5일", D(2024, 3, 5), D(2024, 3, 6)),
    ("2024.3.5", D(2024, 3, 5), D(2024, 3, 6)),
    ("2024. 3. 5.", D(2024, 3, 5), D(2024, 3, 6)),
    ("3/5", D(2026, 3, 5), D(2026, 3, 6)),
    ("90년대", D(1990, 1, 1), D(2000, 1, 1)),
    ("2000년대 초반", D(2000, 1, 1), D(2004, 1, 1)),
    ("2020~2022년", D(2020, 1, 1), D(2023, 1, 1)),
    ("3월부터 5월까지", D(2026, 3, 1), D(2026, 6, 1)),
    ("11월부터 2월까지", D(2025, 11, 1), D(2026, 3, 1)),
    ("5일부터 20일까지", D(2026, 5, 5), D(2026, 5, 21)),
    ("3월 5일~7일", D(2026, 3, 5), D(2026, 3, 8)),
    ("월요일부터 금요일까지", D(2026, 5, 11), D(2026, 5, 16)),
    ("어제부터 오늘까지", D(2026, 5, 11), D(2026, 5, 13)),
    ("3월과 5월 사이", D(2026, 3, 1), D(2026, 6, 1)),
    ("3월부터", D(2026, 3, 1), NOW),
    ("작년부터 다니던 회사", D(2025, 1, 1), NOW),
    ("다음 주부터", D(2026, 5, 18), TIME_CEILING),
    ("2020년 이전", TIME_FLOOR, D(2020, 1, 1)),
    ("2020년 전에", TIME_FLOOR, D(2020, 1, 1)),
    ("지난 여름", D(2025, 6, 1), D(2025, 9, 1)),
    ("지난 봄", D(2025, 3, 1), D(2025, 6, 1)),
    ("지난 가을", D(2025, 9, 1), D(2025, 12, 1)),
    ("지난 겨울", D(2025, 12, 1), D(2026, 3, 1)),
    ("올봄", D(2026, 3, 1), D(2026, 6, 1)),
    ("작년 여름", D(2025, 6, 1), D(2025, 9, 1)),
    ("작년 겨울", D(2025, 12, 1), D(2026, 3, 1)),
    ("2024년 여름", D(2024, 6, 1), D(2024, 9, 1)),
    ("내년 봄", D(2027, 3, 1), D(2027, 6, 1)),
    ("가을에", D(2025, 9, 1), D(2025, 12, 1)),
    ("초여름", D(2025, 6, 1), D(2025, 7, 1)),
    ("늦가을", D(2025, 11, 1), D(2025, 12, 1)),
    ("어제 저녁", D(2026, 5, 11, 17), D(2026, 5, 11, 22)),
    ("어젯밤", D(2026, 5, 11, 18), D(2026, 5, 12, 6)),
    ("오늘 아침", D(2026, 5, 12, 6), D(2026, 5, 12, 12)),
    ("내일 오후 3시", D(2026, 5, 13, 15), D(2026, 5, 13, 16)),
    ("어제 저녁 7시쯤", D(2026, 5, 11, 19), D(2026, 5, 11, 20)),
    ("새벽 2시", D(2026, 5, 12, 2), D(2026, 5, 12, 3)),
    ("이번 주 금요일 오후 3시 30분", D(2026, 5, 15, 15, 30), D(2026, 5, 15, 16, 30)),
    ("월요일에", D(2026, 5, 11), D(2026, 5, 12)),
    ("지난 금요일", D(2026, 5, 8), D(2026, 5, 9)),
    ("이번 금요일", D(2026, 5, 15), D(2026, 5, 16)),
    ("5월 8일 금요일", D(2026, 5, 8), D(2026, 5, 9)),
    ("최근", D(2026, 4, 28), D(2026, 5, 13)),
    ("요즘", D(2026, 4, 28), D(2026, 5, 13)),
    ("방금", D(2026, 5, 12), D(2026, 5, 13)),
    ("아까", D(2026, 5, 12), D(2026, 5, 13)),
    ("지난 3일간", D(2026, 5, 9), D(2026, 5, 13)),
    ("최근 3일", D(2026, 5, 9), D(2026, 5, 13)),
    ("지난 한 달 동안", D(2026, 4, 12), D(2026, 5, 13)),
    ("지난 일주일", D(2026, 5, 5), D(2026, 5, 13)),
    ("요 며칠", D(2026, 5, 6), D(2026, 5, 13)),
    ("6월 첫째 주", D(2025, 6, 1), D(2025, 6, 8)),
]

ENGLISH: list[tuple[str, datetime, datetime]] = [
    ("today", D(2026, 5, 12), D(2026, 5, 13)),
    ("yesterday", D(2026, 5, 11), D(2026, 5, 12)),
    ("the day before yesterday", D(2026, 5, 10), D(2026, 5, 11)),
    ("tomorrow", D(2026, 5, 13), D(2026, 5, 14)),
    ("last night", D(2026, 5, 11, 18), D(2026, 5, 12, 6)),
    ("tonight", D(2026, 5, 12, 18), D(2026, 5, 13, 6)),
    ("this morning", D(2026, 5, 12, 6), D(2026, 5, 12, 12)),
    ("yesterday morning", D(2026, 5, 11, 6), D(2026, 5, 11, 12)),
    ("last week", D(2026, 5, 4), D(2026, 5, 11)),
    ("this week", D(2026, 5, 11), D(2026, 5, 18)),
    ("next week", D(2026, 5, 18), D(2026, 5, 25)),
    ("the week before last", D(2026, 4, 27), D(2026, 5, 4)),
    ("last weekend", D(2026, 5, 9), D(2026, 5, 11)),
    ("this weekend", D(2026, 5, 16), D(2026, 5, 18)),
    ("this past weekend", D(2026, 5, 9), D(2026, 5, 11)),
    ("what did we do over the weekend", D(2026, 5, 9), D(2026, 5, 11)),
    ("last Friday", D(2026, 5, 8), D(2026, 5, 9)),
    ("on Friday", D(2026, 5, 8), D(2026, 5, 9)),
    ("this Friday", D(2026, 5, 15), D(2026, 5, 16)),
    ("next Friday", D(2026, 5, 15), D(2026, 5, 16)),
    ("Friday night", D(2026, 5, 8, 18), D(2026, 5, 9, 6)),
    ("Friday last week", D(2026, 5, 8), D(2026, 5, 9)),
    ("at 3pm yesterday", D(2026, 5, 11, 15), D(2026, 5, 11, 16)),
    ("tomorrow at noon", D(2026, 5, 13, 12), D(2026, 5, 13, 13)),
    ("two weeks ago", D(2026, 4, 27), D(2026, 5, 4)),
    ("3 days ago", D(2026, 5, 9), D(2026, 5, 10)),
    ("a few days ago", D(2026, 5, 6), D(2026, 5, 11)),
    ("a couple of weeks ago", D(2026, 4, 27), D(2026, 5, 4)),
    ("a year ago", D(2025, 1, 1), D(2026, 1, 1)),
    ("half a year ago", D(2025, 11, 1), D(2025, 12, 1)),
    ("a decade ago", D(2016, 1, 1), D(2017, 1, 1)),
    ("in 3 days", D(2026, 5, 15), D(2026, 5, 16)),
    ("in 2 weeks", D(2026, 5, 25), D(2026, 6, 1)),
    ("last month", D(2026, 4, 1), D(2026, 5, 1)),
    ("this month", D(2026, 5, 1), D(2026, 6, 1)),
    ("next month", D(2026, 6, 1), D(2026, 7, 1)),
    ("the end of the month", D(2026, 5, 21), D(2026, 6, 1)),
    ("later this month", NOW, D(2026, 6, 1)),
    ("earlier this week", D(2026, 5, 11), NOW),
    ("early June", D(2025, 6, 1), D(2025, 6, 11)),
    ("mid-June", D(2025, 6, 11), D(2025, 6, 21)),
    ("late June", D(2025, 6, 21), D(2025, 7, 1)),
    ("in June", D(2025, 6, 1), D(2025, 7, 1)),
    ("June last year", D(2025, 6, 1), D(2025, 7, 1)),
    ("June 2024", D(2024, 6, 1), D(2024, 7, 1)),
    ("June 5", D(2025, 6, 5), D(2025, 6, 6)),
    ("June 5-7", D(2025, 6, 5), D(2025, 6, 8)),
    ("Monday, June 5", D(2025, 6, 5), D(2025, 6, 6)),
    ("the 5th of June", D(2025, 6, 5), D(2025, 6, 6)),
    ("5 June 2023", D(2023, 6, 5), D(2023, 6, 6)),
    ("May 8th", D(2026, 5, 8), D(2026, 5, 9)),
    ("Dec 25, 2025", D(2025, 12, 25), D(2025, 12, 26)),
    ("on the 20th", D(2026, 4, 20), D(2026, 4, 21)),
    ("the first week of June", D(2025, 6, 1), D(2025, 6, 8)),
    ("the last week of June", D(2025, 6, 24), D(2025, 7, 1)),
    ("2023-05-08", D(2023, 5, 8), D(2023, 5, 9)),
    ("05/08/2023", D(2023, 5, 8), D(2023, 5, 9)),
    ("12/25", D(2025, 12, 25), D(2025, 12, 26)),
    ("early 2024", D(2024, 1, 1), D(2024, 4, 1)),
    ("first half of 2024", D(2024, 1, 1), D(2024, 7, 1)),
    ("Q3 2024", D(2024, 7, 1), D(2024, 10, 1)),
    ("end of last year", D(2025, 10, 1), D(2026, 1, 1)),
    ("last year", D(2025, 1, 1), D(2026, 1, 1)),
    ("this year", D(2026, 1, 1), D(2027, 1, 1)),
    ("next year", D(2027, 1, 1), D(2028, 1, 1)),
    ("the year before last", D(2024, 1, 1), D(2025, 1, 1)),
    ("in 2022", D(2022, 1, 1), D(2023, 1, 1)),
    ("the 1990s", D(1990, 1, 1), D(2000, 1, 1)),
    ("the 90s", D(1990, 1, 1), D(2000, 1, 1)),
    ("early 90s", D(1990, 1, 1), D(1994, 1, 1)),
    ("last summer", D(2025, 6, 1), D(2025, 9, 1)),
    ("last winter", D(2025, 12, 1), D(2026, 3, 1)),
    ("this spring", D(2026, 3, 1), D(2026, 6, 1)),
    ("next summer", D(2026, 6, 1), D(2026, 9, 1)),
    ("in the fall", D(2025, 9, 1), D(2025, 12, 1)),
    ("Fall 2024", D(2024, 9, 1), D(2024, 12, 1)),
    ("recently", D(2026, 4, 28), D(2026, 5, 13)),
    ("lately", D(2026, 4, 28), D(2026, 5, 13)),
    ("just now", D(2026, 5, 12), D(2026, 5, 13)),
    ("a while ago", D(2026, 4, 12), D(2026, 5, 12)),
    ("the other day", D(2026, 5, 6), D(2026, 5, 11)),
    ("the past week", D(2026, 5, 5), D(2026, 5, 13)),
    ("over the last 3 months", D(2026, 2, 12), D(2026, 5, 13)),
    ("in the past 24 hours", D(2026, 5, 11, 15), NOW),
    ("around this time last year", D(2025, 4, 28), D(2025, 5, 27)),
    ("between March and May", D(2026, 3, 1), D(2026, 6, 1)),
    ("from March to May", D(2026, 3, 1), D(2026, 6, 1)),
    ("between June and August", D(2025, 6, 1), D(2025, 9, 1)),
    ("from Monday to Wednesday", D(2026, 5, 11), D(2026, 5, 14)),
    ("between 2019 and 2021", D(2019, 1, 1), D(2022, 1, 1)),
    ("since January", D(2026, 1, 1), NOW),
    ("since last week", D(2026, 5, 4), NOW),
    ("before 2020", TIME_FLOOR, D(2020, 1, 1)),
    ("until 2020", TIME_FLOOR, D(2021, 1, 1)),
    ("after 2020", D(2021, 1, 1), NOW),
]

# Saturday 2026-01-03 10:00: year boundaries, and a weekend that is today.
AROUND_NEW_YEAR: list[tuple[str, datetime, datetime]] = [
    ("지난주", D(2025, 12, 22), D(2025, 12, 29)),
    ("이번 주", D(2025, 12, 29), D(2026, 1, 5)),
    ("지난달", D(2025, 12, 1), D(2026, 1, 1)),
    ("작년", D(2025, 1, 1), D(2026, 1, 1)),
    ("12월", D(2025, 12, 1), D(2026, 1, 1)),
    ("2월", D(2025, 2, 1), D(2025, 3, 1)),
    ("1월 5일", D(2026, 1, 5), D(2026, 1, 6)),
    ("1월 15일", D(2025, 1, 15), D(2025, 1, 16)),
    ("주말에", D(2026, 1, 3), D(2026, 1, 5)),
    ("금요일", D(2026, 1, 2), D(2026, 1, 3)),
    ("3일 전", D(2025, 12, 31), D(2026, 1, 1)),
    ("올겨울", D(2025, 12, 1), D(2026, 3, 1)),
    ("지난 겨울", D(2024, 12, 1), D(2025, 3, 1)),
    ("11월부터 2월까지", D(2025, 11, 1), D(2026, 3, 1)),
    ("last week", D(2025, 12, 22), D(2025, 12, 29)),
    ("in December", D(2025, 12, 1), D(2026, 1, 1)),
    ("next month", D(2026, 2, 1), D(2026, 3, 1)),
    ("last Friday", D(2026, 1, 2), D(2026, 1, 3)),
    ("this weekend", D(2026, 1, 3), D(2026, 1, 5)),
    ("last year", D(2025, 1, 1), D(2026, 1, 1)),
    ("from November to February", D(2025, 11, 1), D(2026, 3, 1)),
]

NEGATIVES = [
    "",
    "안녕하세요",
    "밥 먹었어?",
    "3명이 왔어",
    "일",
    "일 끝나고 보자",
    "이 일 전에 끝내자",
    "주말농장",
    "그제서야 알았다",
    "오늘날의 기술",
    "다음 주소로 보내줘",
    "3시간 동안 공부했어",
    "3일 동안 여행했어",
    "3개월 동안",
    "확인해 봄",
    "저녁 메뉴 추천해줘",
    "매주 금요일에 운동해",
    "한시도 쉬지 않아",
    "1일 1식",
    "Mayday",
    "March on",
    "may I come in",
    "I will march",
    "April said hi",
    "the fall of Rome",
    "spring cleaning",
    "in his 30s",
    "the 3rd time",
    "2000 people",
    "score was 3:2",
    "version 2.1.3",
    "Good morning!",
    "every Friday",
    "1/2 cup of sugar",
    "24/7 support",
    "last time we met",
]


def _ids(cases: list[tuple[str, datetime, datetime]]) -> list[str]:
    return [case[0] for case in cases]


@pytest.mark.parametrize(("text", "start", "end"), KOREAN, ids=_ids(KOREAN))
def test_korean_golden(text: str, start: datetime, end: datetime) -> None:
    assert parse_time_range(text, NOW) == (start, end)


@pytest.mark.parametrize(("text", "start", "end"), ENGLISH, ids=_ids(ENGLISH))
def test_english_golden(text: str, start: datetime, end: datetime) -> None:
    assert parse_time_range(text, NOW) == (start, end)


@pytest.mark.parametrize(("text", "start", "end"), AROUND_NEW_YEAR, ids=_ids(AROUND_NEW_YEAR))
def test_around_new_year(text: str, start: datetime, end: datetime) -> None:
    assert parse_time_range(text, NEW_YEAR) == (start, end)


def test_golden_counts() -> None:
    korean = [c for c in KOREAN + AROUND_NEW_YEAR if any("\uac00" <= ch <= "\ud7a3" for ch in c[0])]
    english = [c for c in ENGLISH + AROUND_NEW_YEAR if c[0].isascii()]
    assert len(korean) >= 80
    assert len(english) >= 50


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_time_expression(text: str) -> None:
    assert parse_time_range(text, NOW) is None
    assert find_time_expressions(text, NOW) == []


def test_retain_resolves_against_message_time() -> None:
    said_at = D(2026, 5, 12, 9, 30)
    mentions = find_time_expressions("지난주에 부산 갔어", said_at)
    assert mentions == [TimeMention(0, 3, "지난주", (D(2026, 5, 4), D(2026, 5, 11)))]


def test_mentions_in_text_order_with_offsets() -> None:
    text = "I met Sarah last Friday, and we fly to Jeju next month."
    mentions = find_time_expressions(text, NOW)
    assert [(m.text, m.range) for m in mentions] == [
        ("last Friday", (D(2026, 5, 8), D(2026, 5, 9))),
        ("next month", (D(2026, 6, 1), D(2026, 7, 1))),
    ]
    for mention in mentions:
        assert text[mention.start:mention.end] == mention.text
    korean = "어제 민지랑 통화했는데 다음 달 초에 이사한대"
    assert [(m.text, m.range) for m in find_time_expressions(korean, NOW)] == [
        ("어제", (D(2026, 5, 11), D(2026, 5, 12))),
        ("다음 달 초", (D(2026, 6, 1), D(2026, 6, 11))),
    ]


def test_day_of_month_is_not_days_ago() -> None:
    assert parse_time_range("20일에 만나", NOW) == (D(2026, 4, 20), D(2026, 4, 21))
    assert parse_time_range("20일 전에 만났어", NOW) == (D(2026, 4, 22), D(2026, 4, 23))
    assert parse_time_range("5일", NOW) == (D(2026, 5, 5), D(2026, 5, 6))
    assert parse_time_range("5일 전", NOW) == (D(2026, 5, 7), D(2026, 5, 8))
    assert parse_time_range("3일 동안", NOW) is None


@pytest.mark.parametrize("particle", ["에", "에는", "엔", "쯤", "경", "까지", "에도", "이었어"])
def test_korean_particles_do_not_block(particle: str) -> None:
    assert parse_time_range(f"3월{particle}", NOW) == (D(2026, 3, 1), D(2026, 4, 1))
    assert parse_time_range(f"지난주{particle}", NOW) == (D(2026, 5, 4), D(2026, 5, 11))
    assert parse_time_range(f"작년 말{particle}", NOW) == (D(2025, 10, 1), D(2026, 1, 1))


def test_since_particle_opens_the_end() -> None:
    assert parse_time_range("3월부터 계속 바빴어", NOW) == (D(2026, 3, 1), NOW)
    assert parse_time_range("어제 이후로", NOW) == (D(2026, 5, 11), NOW)
    assert parse_time_range("3일 전부터", NOW) == (D(2026, 5, 9), NOW)


def test_inner_mention_narrows_the_first() -> None:
    assert parse_time_range("지난주에 만났는데, 아마 금요일에", NOW) == (D(2026, 5, 8), D(2026, 5, 9))
    assert parse_time_range("작년 여름, 그러니까 2025년 7월에", NOW) == (D(2025, 7, 1), D(2025, 8, 1))
    # Not nested: the first mention wins.
    assert parse_time_range("어제 말고 지난달 얘기", NOW) == (D(2026, 5, 11), D(2026, 5, 12))


def test_aware_now_keeps_its_timezone() -> None:
    seoul = ZoneInfo("Asia/Seoul")
    now = D(2026, 5, 12, 15, tzinfo=seoul)
    assert parse_time_range("어제", now) == (D(2026, 5, 11, tzinfo=seoul), D(2026, 5, 12, tzinfo=seoul))
    start, end = parse_time_range("since yesterday", now) or (None, None)
    assert start == D(2026, 5, 11, tzinfo=seoul) and end == now
    offset = timezone(timedelta(hours=9))
    assert parse_time_range("last week", "2026-05-12T15:00:00+09:00") == (
        D(2026, 5, 4, tzinfo=offset),
        D(2026, 5, 11, tzinfo=offset),
    )
    mention = find_time_expressions("지난주에", now)[0]
    assert mention.range[0].tzinfo is seoul


def test_naive_and_date_references() -> None:
    start, end = parse_time_range("어제", NOW) or (None, None)
    assert start is not None and start.tzinfo is None
    assert parse_time_range("어제", date(2026, 5, 12)) == (D(2026, 5, 11), D(2026, 5, 12))
    assert parse_time_range("어제", "2026-05-12") == (D(2026, 5, 11), D(2026, 5, 12))
    # A date alone stands for the whole day: an open range ends at its last moment.
    assert parse_time_range("since yesterday", date(2026, 5, 12)) == (D(2026, 5, 11), D(2026, 5, 13))


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "", "12/05/2026", "2026-05-12T25:00", "2026-5-12"])
def test_bad_now_raises(bad: str) -> None:
    with pytest.raises(InvalidTimeError, match="ISO 8601"):
        parse_time_range("어제", bad)
    with pytest.raises(InvalidTimeError):
        find_time_expressions("yesterday", bad)


def test_bad_now_type_raises() -> None:
    with pytest.raises(InvalidTimeError):
        parse_time_range("어제", 12345)  # type: ignore[arg-type]
    assert issubclass(InvalidTimeError, InputError)
    assert issubclass(InvalidTimeError, ValueError)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-05-12", D(2026, 5, 12)),
        ("2026-05-12T15:00", D(2026, 5, 12, 15)),
        ("2026-05-12 15:00:30", D(2026, 5, 12, 15, 0, 30)),
        ("2026-05-12T15:00:00.250Z", D(2026, 5, 12, 15, 0, 0, 250000, tzinfo=timezone.utc)),
        ("2026-05-12T15:00:00+09:00", D(2026, 5, 12, 15, tzinfo=timezone(timedelta(hours=9)))),
        ("2026-05-12T15:00-0530", D(2026, 5, 12, 15, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
        (D(2026, 5, 12, 15), D(2026, 5, 12, 15)),
        (date(2026, 5, 12), D(2026, 5, 12)),
    ],
)
def test_parse_datetime(value: str | datetime | date, expected: datetime) -> None:
    assert parse_datetime(value) == expected
    assert parse_datetime(value).tzinfo == expected.tzinfo


@pytest.mark.parametrize("bad", ["next tuesday", "2026-02-30", "2026/05/12", "", "12:00"])
def test_parse_datetime_rejects(bad: str) -> None:
    with pytest.raises(InvalidTimeError, match="expected ISO 8601"):
        parse_datetime(bad)


def test_public_names() -> None:
    assert temporal.__all__ == [
        "TIME_CEILING",
        "TIME_FLOOR",
        "TimeMention",
        "find_time_expressions",
        "parse_datetime",
        "parse_time_range",
    ]


_WORDS = ["어제", "지난주", "3월", "5일", "금요일", "저녁", "부터", "까지", "전", "에", " ", "작년", "말", "초",
          "last", "week", "June", "5", "2024", "ago", "days", "since", "the", "early", "-", "~", "/", "년", "월",
          "일", "주", "봄", "between", "and", "to", "Friday", "night", "3", "시", "오후"]


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(st.sampled_from(_WORDS), max_size=8),
    now=st.datetimes(min_value=D(1990, 1, 1), max_value=D(2090, 12, 31)),
)
def test_any_text_gives_well_formed_ranges(words: list[str], now: datetime) -> None:
    text = "".join(words)
    for mention in find_time_expressions(text, now):
        assert mention.range[0] < mention.range[1]
        assert text[mention.start:mention.end] == mention.text
    found = parse_time_range(text, now)
    assert found is None or found[0] < found[1]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40), now=st.datetimes())
def test_arbitrary_text_and_reference_never_raise(text: str, now: datetime) -> None:
    # Years 1 and 9999 included: periods past the calendar's ends are dropped, not errors.
    for mention in find_time_expressions(text, now):
        assert mention.range[0] < mention.range[1]


@pytest.mark.parametrize("now", [D(1, 1, 1), D(9999, 12, 31, 23, 59)])
def test_calendar_ends(now: datetime) -> None:
    for text in ["내년", "작년", "다음 달", "in 2 weeks", "3 years ago", "9999년 12월 31일", "this winter", "Q4"]:
        for mention in find_time_expressions(text, now):
            assert mention.range[0] < mention.range[1]


@settings(max_examples=200, deadline=None)
@given(now=st.datetimes(min_value=D(1990, 1, 1), max_value=D(2090, 12, 31)))
def test_relative_words_agree_with_the_calendar(now: datetime) -> None:
    today = D(now.year, now.month, now.day)
    monday = today - timedelta(days=today.weekday())
    assert parse_time_range("어제", now) == (today - timedelta(days=1), today)
    assert parse_time_range("yesterday", now) == parse_time_range("어제", now)
    assert parse_time_range("지난주", now) == (monday - timedelta(days=7), monday)
    assert parse_time_range("last week", now) == parse_time_range("지난주", now)
    friday = parse_time_range("금요일에", now)
    assert friday is not None and friday[0].weekday() == 4 and friday[0] <= now < friday[0] + timedelta(days=7)
    month = parse_time_range("3월", now)
    assert month is not None and month[0].month == 3 and month[0] <= now + timedelta(days=7)
    assert month[0] > now - timedelta(days=366 + 7)


@pytest.mark.parametrize("text, said, expected", [
    ("5월 17일이 제 생일이에요", "2026-05-04T10:00:00+09:00", "2026-05-17"),  # the next one, not 2025's
    ("My birthday is March 3rd, remember it!", "2026-05-04T10:00:00Z", "2027-03-03"),
    ("엄마 생신이 12월 3일이야", "2026-12-05T10:00:00+09:00", "2027-12-03"),
    ("2월 29일이 내 생일이야", "2026-03-01T10:00:00+09:00", "2028-02-29"),
    ("결혼기념일은 2019년 10월 5일이야", "2026-05-04T10:00:00+09:00", "2019-10-05"),  # a year said stays
    ("5월 17일에 부산 갔어", "2026-05-20T10:00:00+09:00", "2026-05-17"),  # not recurring: as read
    ("We met on March 3rd.", "2026-05-04T10:00:00Z", "2026-03-03"),
])
def test_a_birthday_said_without_its_year_is_its_next_occurrence(text: str, said: str, expected: str) -> None:
    from gieok.engine._time import to_datetime
    from gieok.engine.retain.plan import make_fact

    fact = make_fact(text, "user", said, [])
    assert fact.occurred_start is not None
    tz = to_datetime(said).tzinfo
    assert datetime.fromtimestamp(fact.occurred_start, tz).date().isoformat() == expected
