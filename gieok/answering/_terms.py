"""A question's content terms: what it asks about, without how it asks.

``question_terms`` is the question's ``keyword_terms`` (Korean lemmas, English Snowball stems, so
"수영을 해" meets "수영해요" and "hiking" meets "hiked") minus question words (무엇, 언제, 때, what,
when, "how long", "what time", …) and "remember / 기억" chatter; English irregular forms are mapped
to their base ("went" → "go"), which a stemmer does not do. The answerability head counts how many
of them a memory holds, and reflect matches a question to a mental model's standing question by them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.text.terms import keyword_terms

__all__ = ["question_terms"]

_KOREAN_QUESTION_TERMS = (
    "무엇 뭐 언제 어디 누구 왜 어떻게 어떻다 얼마 얼마나 몇 어느 무슨 어떤 때 "  # question words
    "기억 기억하다 알다 궁금하다 혹시 "  # "do you remember …" chatter
    # framing: how the question asks, not what
    "원래 실제로 처음 이유 보통 주로 각각 대체 도대체 정확히 결국 예전 현재 말 말하다 동안 전 이전 이후 당시 "
    "대략 대충 요즘 최근 평소"
)
_ENGLISH_QUESTION_WORDS = ("tell remember recall know ever happen originally actually usually exactly reason "
                           "approximately roughly recently lately nowadays")
# Question frames whose content word asks for the answer's type rather than naming the topic.
_ENGLISH_FRAMES = re.compile(
    r"\bhow (?:long|many|much|often|far|old|soon)\b|\bwhat (?:time|kind|sort|type)\b", re.IGNORECASE
)
_IRREGULAR_FORMS = """go went gone|eat ate eaten|buy bought|bring brought|think thought|teach taught|catch caught
see saw seen|meet met|make made|take took taken|give gave given|tell told|say said|run ran|begin began begun
come came|feel felt|find found|leave left|lose lost|pay paid|sell sold|send sent|spend spent|build built
write wrote written|drive drove driven|ride rode ridden|fly flew flown|grow grew grown|know knew known
draw drew drawn|swim swam swum|sing sang sung|drink drank drunk|win won|sit sat|stand stood|hold held
keep kept|sleep slept|break broke broken|choose chose chosen|speak spoke spoken|wear wore worn
forget forgot forgotten|fall fell fallen|hear heard|lead led|hide hid hidden|steal stole stolen
throw threw thrown|become became|wake woke woken|fight fought|feed fed|lend lent|mean meant
child children|woman women|man men|person people|foot feet|tooth teeth"""


@lru_cache(maxsize=1)
def _irregular() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in _IRREGULAR_FORMS.replace("\n", "|").split("|"):
        base, *forms = (keyword_terms(word) for word in group.split())
        for form in forms:
            if len(base) == 1 and len(form) == 1 and form != base:
                mapping[form[0]] = base[0]
    return mapping


@lru_cache(maxsize=1)
def _question_words() -> frozenset[str]:
    english = {term for word in _ENGLISH_QUESTION_WORDS.split() for term in keyword_terms(word)}
    return frozenset(_KOREAN_QUESTION_TERMS.split()) | english


def _terms(text: str) -> frozenset[str]:
    irregular = _irregular()
    return frozenset(irregular.get(term, term) for term in keyword_terms(text))


def question_terms(question: str) -> frozenset[str]:
    """The content terms of ``question``: lemmas and stems without question words."""
    return _terms(_ENGLISH_FRAMES.sub(" ", question)) - _question_words()
