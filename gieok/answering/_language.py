"""Answer language and the honest "not in memory" refusal.

``detect_language`` answers in the language the user asked in: Korean when Hangul makes up at least
a quarter of the letters (a Hangul syllable carries about as much as three or four Latin letters, so
"내 MacBook 언제 샀어?" is Korean while "What does 민수 do?" is English).

``not_in_memory`` names what was asked about with a short topic taken from the question: for Korean
the noun runs Kiwi finds ("누나 직업이 뭐야?" → "누나 직업"), for English the words left after dropping
question words, auxiliaries, stop words and light verbs, with the user's "my" turned into "your"
("What does my sister do for work?" → "your sister, work").  With no topic it falls back to a plain
refusal.  Either way it never invents content.  The refusal says which case it is: nothing was found
at all ("저장된 기억을 찾지 못했어요" / "I found nothing stored about …"), or memories were found
(``found`` of them) but none says what was asked ("관련 기억 3개를 찾았지만 … 답할 내용은 없었어요" /
"I found 3 related memories, but none of them answers …").
"""

from __future__ import annotations

import re
from typing import Literal

from gieok.text.korean import HANGUL, analyze
from gieok.text.terms import ENGLISH_STOPWORDS

__all__ = ["Language", "detect_language", "not_in_memory", "question_topic"]

Language = Literal["ko", "en"]

_LATIN_LETTER = re.compile(r"[A-Za-z]")
_KOREAN_NOUN_TAGS = frozenset({"NNG", "NNP", "NR", "SL", "SN", "SH", "XR"})
# Particles that join nouns into one topic ("민수와 지수", "엄마의 생일"); anything else ends a run.
_KOREAN_JOINING = frozenset({"의", "와", "과", "하고", "랑", "이랑"})
_KOREAN_NOT_TOPIC = frozenset({"기억", "내용", "거", "것", "때", "적", "얘기", "이야기"})
_ENGLISH_WORD = re.compile(r"[A-Za-z\uac00-\ud7a3][\w'’]*|\d+")
_ENGLISH_NOT_TOPIC = frozenset(
    """ever anything something remember recall know tell say said mention mentioned think go went gone
    do done make made like want need happen happened many much long often kind sort type""".split()
)
_YOUR = {"my": "your", "our": "your", "me": "you", "i": "you", "we": "you", "mine": "yours"}
_MAX_TOPIC_CHARS = 40


def detect_language(text: str) -> Language:
    """``"ko"`` when Hangul is at least 25% of the letters of ``text``, else ``"en"``."""
    hangul = len(HANGUL.findall(text))
    latin = len(_LATIN_LETTER.findall(text))
    if hangul == 0:
        return "en"
    return "ko" if hangul / (hangul + latin) >= 0.25 else "en"


def question_topic(question: str) -> str:
    """A short phrase naming what ``question`` asks about, or ``""`` when none stands out."""
    runs = _korean_runs(question) if detect_language(question) == "ko" else _english_runs(question)
    topic = ""
    for run in runs:
        candidate = f"{topic}, {run}" if topic else run
        if len(candidate) > _MAX_TOPIC_CHARS:
            break
        topic = candidate
    return topic


def not_in_memory(question: str, *, found: int = 0, language: Language | None = None) -> str:
    """An honest refusal, in the question's language, for a question memory cannot answer; ``found``
    is how many memories were retrieved and judged insufficient (0: nothing was found); ``language``
    overrides the question's (a bank's directive may require one)."""
    topic = question_topic(question)
    korean = (language or detect_language(question)) == "ko"
    if found:
        if korean:
            about = f"{topic}에 대해 " if topic else ""
            return f"기억에 없는 내용이에요: 관련 기억 {found}개를 찾았지만 {about}답할 만한 내용은 없었어요."
        about = f" about {topic}" if topic else ""
        memories = "memory" if found == 1 else "memories"
        return (f"That's not in memory: I found {found} related {memories}, but none of them answers the "
                f"question{about}.")
    if korean:
        if topic:
            return f"기억에 없는 내용이에요: {topic}에 대해 저장된 기억을 찾지 못했어요."
        return "기억에 없는 내용이에요: 이 질문에 답할 만한 기억을 찾지 못했어요."
    if topic:
        return f"That's not in memory: I found nothing stored about {topic}."
    return "That's not in memory: I found nothing stored that answers this question."


def not_in_documents(question: str, *, found: int = 0, language: Language | None = None) -> str:
    """The refusal when every memory searched came from ingested documents: the answer is not in
    *these documents* (a knowledge base answers from its files or says plainly it cannot)."""
    topic = question_topic(question)
    if (language or detect_language(question)) == "ko":
        about = f"{topic}에 대한 " if topic else ""
        seen = f" 관련 구절 {found}개를 찾았지만 {about}답은 없었어요." if found else f" {about}내용을 찾지 못했어요."
        return "이 문서들에는 없어요:" + seen
    about = f" about {topic}" if topic else ""
    if found:
        passages = "passage" if found == 1 else "passages"
        return (f"That's not in these documents: I found {found} related {passages}, but none answers the "
                f"question{about}.")
    return f"That's not in these documents: nothing in them answers the question{about}."


def _korean_runs(question: str) -> list[str]:
    runs: list[str] = []
    run_start = run_end = -1
    pending_join = False
    for form, tag, _lemma, start, end in analyze(question):
        base = tag.split("-")[0]
        if base in _KOREAN_NOUN_TAGS and form not in _KOREAN_NOT_TOPIC:
            if run_start < 0:
                run_start = start
            run_end, pending_join = end, False  # adjacent nouns form a compound ("생일 파티")
            continue
        if run_start >= 0 and base.startswith("J") and form in _KOREAN_JOINING and not pending_join:
            pending_join = True
            continue
        if run_start >= 0:
            runs.append(question[run_start:run_end])
        run_start, pending_join = -1, False
    if run_start >= 0:
        runs.append(question[run_start:run_end])
    return list(dict.fromkeys(runs))


def _english_runs(question: str) -> list[str]:
    runs: list[list[str]] = [[]]
    pending_possessive = ""
    for word in _ENGLISH_WORD.findall(question):
        low = word.lower().replace("’", "'")
        if low in ("my", "our"):
            pending_possessive = _YOUR[low]
            continue
        if low in ENGLISH_STOPWORDS or low in _ENGLISH_NOT_TOPIC:
            if runs[-1]:
                runs.append([])
            pending_possessive = ""
            continue
        if pending_possessive and not runs[-1]:
            runs[-1].append(pending_possessive)
        pending_possessive = ""
        runs[-1].append(word)
    return list(dict.fromkeys(" ".join(run) for run in runs if run))
