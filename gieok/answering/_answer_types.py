"""Question words that ask for a kind of value, covered by a sentence that holds one.

"팀장님 이름이 뭐야?" is answered by "우리 팀장님은 박지훈 팀장님이에요": the content word 이름 asks
for a name, and the sentence holds one without saying "이름". "환불은 구매 후 며칠까지 돼?" is
answered by "환불은 구매 후 14일까지 가능합니다": 며칠 asks for a number of days. Lexical coverage
alone refuses both. Like the category words (``_categories``), an answer type only widens what counts
as covered: the sentence must hold a value of that type (a proper noun, a time, a count of days, an
age); the gate still needs every other term of the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from gieok.text.korean import analyze, has_hangul
from gieok.text.terms import keyword_terms

__all__ = ["VALUE", "with_answer_types"]

_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety")
_KOREAN_COUNTS = r"한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|스무|서른|마흔|쉰|예순|일흔|여든|아흔"
_DAYS = re.compile(rf"\d+\s*(?:일|days?\b)|(?:하루|이틀|사흘|나흘|닷새|엿새|이레|보름)|\b(?:{_NUMBER_WORDS})\s+days?\b",
                   re.IGNORECASE)
_AGE = re.compile(rf"\d+\s*(?:살|세)|(?:{_KOREAN_COUNTS})\s*살|\b(?:\d+|{_NUMBER_WORDS})(?:[\s-]+years?[\s-]+old)?\b",
                  re.IGNORECASE)
# a value a short sentence can carry on its own: "She's six.", "여섯 살이에요."
VALUE = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b|(?:{_KOREAN_COUNTS})\s*(?:살|명|개|시|번|달|년)", re.IGNORECASE)
_MONTHS = r"january|february|march|april|may|june|july|august|september|october|november|december"
_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# a time the sentence places something at: "6월 7일", "그저께", "지난주 화요일", "last Friday", "in 2023"
_WHEN = re.compile(
    rf"\d+\s*(?:년|월|일|시|주)|(?:재작년|작년|올해|내년|어제|그저께|그제|엊그제|오늘|내일|모레|주말|지난|이번|다음|"
    rf"[월화수목금토일]요일|아침|저녁|새벽|오전|오후|봄|여름|가을|겨울|연말|연초|초순|중순|하순)|"
    rf"\b(?:{_MONTHS}|{_WEEKDAYS}|yesterday|today|tonight|tomorrow|weekend|ago|last|next|since|"
    rf"(?:19|20)\d\d|morning|evening|spring|summer|autumn|fall|winter)\b",
    re.IGNORECASE,
)
# "…라는", "named …", or a name in quotes ("'오후 블렌드'로 하자", 'we went with "Blue Door"')
_NAMING = re.compile(r"(?:이)?라는|(?:이)?라고|\bnamed\b|\bcalled\b|\bname is\b"
                     r"|(?<!\w)['‘\"“「][^'’\"”」\n]{1,30}['’\"”」]", re.IGNORECASE)
_LATIN_NAME = re.compile(r"(?<=[\w,;:] )[A-Z][a-z]+")


def _has_name(text: str, known: frozenset[str]) -> bool:
    """Whether ``text`` holds a name the question does not already name (박지훈 for "팀장님 이름",
    not 민수 for "민수 여자친구 이름")."""
    if _NAMING.search(text):
        return True
    if any(not set(keyword_terms(m.group())) <= known for m in _LATIN_NAME.finditer(text)):
        return True
    return has_hangul(text) and any(tag == "NNP" and not set(keyword_terms(form)) <= known
                                    for form, tag, *_ in analyze(text))


def _when(text: str, known: frozenset[str]) -> bool:
    return bool(_WHEN.search(text))


def _days(text: str, known: frozenset[str]) -> bool:
    return bool(_DAYS.search(text))


def _age(text: str, known: frozenset[str]) -> bool:
    return bool(_AGE.search(text))


_Test = Callable[[str, frozenset[str]], bool]
_TYPES: tuple[tuple[str, _Test], ...] = (
    ("이름 name", _has_name),
    # "팀이 스키 워크숍 간 날은?" is answered by "작년 이맘때 … 갔었잖아요" / "지난주 화요일부터": 날 asks for a time
    ("날 날짜 시기 일정 예정 date day", _when),
    # "헬스장은 어느 동네에 있어?" by "합정역 7번 출구 앞": 동네 asks for a place, which a proper noun names
    ("곳 장소 동네 지역 place", _has_name),
    ("며칠", _days),
    ("나이 age", _age),
)


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[frozenset[str], _Test], ...]:
    return tuple((frozenset(keyword_terms(words)), test) for words, test in _TYPES)


def with_answer_types(terms: frozenset[str], text: str, wanted: frozenset[str],
                      named: frozenset[str] = frozenset()) -> frozenset[str]:
    """``terms`` plus each answer-type word of ``wanted`` that ``text`` holds a value for; ``named``
    are the names the question itself gives, which do not answer "what is … called"."""
    extra: set[str] = set()
    for words, test in _table():
        asked = wanted & words
        if asked and not asked <= terms and test(text, named):
            extra |= asked
    return terms | extra if extra else terms
