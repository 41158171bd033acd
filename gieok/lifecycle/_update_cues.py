"""Cue words and contrast patterns for ``detect_update``, Korean and English.

Cues are regexes over the *new* statement:

* ``CORRECTION`` — the speaker says the earlier statement was wrong (아니, 정정, 잘못 말했, 말고,
  가 아니라, actually, I meant, scratch that, not X but Y).
* ``CHANGE`` — the world changed (바뀌었, 변경, 옮겼, 이제는, 취소, no longer, switched, moved,
  now, used to).
* ``STOPPED`` — the earlier state ended without a replacement (더 이상 … 안, 그만, 끊었, 취소,
  no longer, don't … anymore, quit, cancelled, used to … without a "now").
* ``ADDITIVE`` — the new statement adds rather than replaces (also, too, as well, 또; the Korean
  particle 도 is found through Kiwi in ``_supersede``).

``CONTRASTS`` name both sides in the new statement itself: "X 말고 Y", "X가 아니라 Y",
"X다가 Y로 옮겼어", "X에서 Y로 바뀌었어", "X 대신 Y", "원래 X … 이제 Y", "not X but Y", "Y, not X",
"switched from X to Y", "instead of X", "used to X … now Y". A ``phrase`` contrast holds the two
values themselves; a ``clause`` contrast holds two clauses whose difference is the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ADDITIVE",
    "CHANGE",
    "CONTRASTS",
    "CORRECTION",
    "CUE_TERMS",
    "ENDING",
    "NEGATIVE",
    "QUESTION",
    "SINGLE_SLOT_TERMS",
    "STOPPED",
    "SYNONYMS",
    "Contrast",
]


def _re(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


CORRECTION = _re(
    r"(?:^|[\s,.!])아니(?:야|요|지|다)?(?=[\s,.!]|$)", r"정정", r"잘못\s*(?:말|알|얘기|썼|적었)", r"말고",
    r"(?:가|이)\s*아니(?:라|고)", r"착각", r"\bactually\b", r"\bcorrection\b", r"\bi meant?\b",
    r"\bscratch that\b", r"\boh wait\b", r"\bwait,", r"\bmy (?:bad|mistake)\b", r"\bi was wrong\b",
    r"\bsorry,? (?:it'?s|it is)\b",
    r"\bnot\s+[^,.;!?]+?,?\s+but\b", r",\s*not\s+\w",
)
CHANGE = _re(
    r"바뀌", r"바뀐", r"바꿨", r"바꿔", r"바꾸", r"변경", r"옮겼", r"옮겨", r"옮기", r"이직", r"이사",
    r"이제", r"요즘은", r"지금은", r"더\s*이상", r"취소", r"미뤄", r"미뤘", r"미루", r"당겨", r"당겼",
    r"연기", r"갈아\s*탔", r"그만", r"끊었", r"대신",
    r"\bno longer\b", r"\bany\s?more\b", r"\bchanged?\b", r"\bmoved\b", r"\bswitched\b", r"\bnow\b",
    r"\bthese days\b", r"\bnowadays\b", r"\bused to\b", r"\bupdated?\b", r"\breschedul\w*", r"\bpostponed\b",
    r"\bpushed (?:back|to)\b", r"\bcancel+ed\b", r"\bcalled off\b", r"\bquit\b", r"\bstopped\b",
    r"\bgave up\b", r"\bfrom now on\b", r"\binstead\b",
)
# Change cues that only end a state; with nothing else they name no replacement value.
ENDING = _re(r"취소", r"그만", r"끊었", r"\bquit\b", r"\bstopped\b", r"\bgave up\b", r"\bcancel+ed\b",
             r"\bcalled off\b", r"\bno longer\b", r"\bany\s?more\b")
STOPPED = _re(
    r"더\s*이상[^.!?]*?(?:(?<![가-힣])안(?=\s|[가-힣])|않|(?<![가-힣])못(?=\s)|없)",
    r"(?:이제는?|요즘은?)\s[^.!?]*?(?:(?<![가-힣])안(?=\s)|않|(?<![가-힣])못(?=\s))",
    r"그만\s*(?:뒀|두었|뒀어|했|마셔|먹|해|둘)", r"끊었", r"취소",
    r"\bno longer\b", r"\b(?:don'?t|do not|doesn'?t|does not|not|never)\b[^.!?]*\bany\s?more\b",
    r"\bnot anymore\b", r"\bquit\b", r"\bstopped\b", r"\bgave up\b", r"\bcancel+ed\b", r"\bcalled off\b",
    r"\bused to\b(?![^.!?]*\b(?:now|these days|nowadays)\b)",
)
NEGATIVE = _re(
    r"\b(?:not|never|no longer|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|can'?t|won'?t)\b",
    r"(?<![가-힣])안(?=\s)", r"않", r"(?<![가-힣])못(?=\s)", r"없",
)
ADDITIVE = _re(r"\balso\b", r"\btoo\b", r"\bas well\b", r"\banother\b", r"\bin addition\b",
               r"\bbesides\b", r"(?<![가-힣])또(?=\s)", r"(?<![가-힣])그리고(?=\s)")
QUESTION = _re(
    r"\?\s*[\"')\]]*\s*$", r"(?:(?<!아)니|냐|나요|을까|까요?)[\s~]*$",
    r"^\s*(?:is|are|am|do|does|did|was|were|can|could|will|would|should|shall|have|has)\b(?![^.!]*\.)",
)

# Keyword terms (Kiwi lemmas, Snowball stems) that are update cues, not part of what is said.
CUE_TERMS = frozenset(
    "바뀌다 바꾸다 변경 옮기다 정정 말다 잘못 말 취소 원래 이상 요즘 사실 미루다 연기 당기다 갈아타다 "
    "그만 끊다 착각 지금 대신 예전 전 "
    "actual correct meant mean chang switch instead scratch longer anymor use cancel updat reschedul "
    "postpon push quit stop gave give nowaday sorri wrong mistak wait".split()
)
# Different words for one frame: "I moved to Busan" talks about where one lives.
SYNONYMS = {"move": "live", "relocat": "live", "이사": "살다", "거주": "살다", "이직": "다니다", "입사": "다니다"}
# Frames that hold one value at a time: a new value replaces the old even without a cue word.
SINGLE_SLOT_TERMS = frozenset("favorit favourit 최애 이름 name nicknam 생일 birthday 나이 age".split())


@dataclass(frozen=True, slots=True)
class Contrast:
    pattern: re.Pattern[str]
    kind: Literal["correction", "change"]
    label: str
    scope: Literal["phrase", "clause"]


_PHRASE = r"[^,.;!?]+"
CONTRASTS: tuple[Contrast, ...] = (
    Contrast(re.compile(r"(?P<x>[^\s,.!?]+(?:\s+[^\s,.!?]+)?)\s*말고\s*(?P<y>[^,.!?]+)"),
             "correction", "X 말고 Y", "phrase"),
    Contrast(re.compile(r"(?P<x>[^\s,.!?]+)\s*아니(?:라|고)\s*(?P<y>[^,.!?]+)"),
             "correction", "X가 아니라 Y", "phrase"),
    Contrast(re.compile(r"(?P<x>[^,.!?]+?)다가\s+(?P<y>[^,.!?]+?)(?:으로|로)\s*"
                        r"(?:옮|바꿨|바꿔|바꾸|이직|이사|갈아|넘어|전직|변경)"),
             "change", "X다가 Y로", "phrase"),
    Contrast(re.compile(r"(?P<x>[^\s,.!?]+?)에서\s*(?P<y>[^\s,.!?]+?)(?:으로|로)\s*"
                        r"(?:바뀌|바꿨|바꿔|바꾸|옮|변경|이사|이직|갈아|미뤄|미뤘|미루|당겨|당겼|연기)"),
             "change", "X에서 Y로", "phrase"),
    Contrast(re.compile(r"(?P<x>[^\s,.!?]+)\s*대신(?:에)?\s*(?P<y>[^,.!?]+)"), "change", "X 대신 Y", "phrase"),
    # "그램 팔고 맥북 에어로 바꿨어", "토익 접고 정보처리기사로 갈아탔어": let X go, then Y instead
    Contrast(re.compile(r"(?P<x>[^\s,.!?]+?)(?:을|를|은|는)?\s*(?:팔고|버리고|처분하고|정리하고|접고|그만두고|관두고|끊고)\s+"
                        r"(?P<y>[^,.!?]+?)(?:으로|로)\s*(?:바꿨|바꿔|바꾸|갈아\s*탔|갈아타|옮겼|넘어갔|전향)"),
             "change", "X 팔고 Y로", "phrase"),
    # "I swapped oatmeal for eggs", "I traded my Civic for a Model 3"
    Contrast(re.compile(rf"\b(?:swapped|traded|replaced|exchanged)\s+(?:my\s+|the\s+)?(?P<x>{_PHRASE}?)\s+(?:for|with)\s+"
                        rf"(?P<y>{_PHRASE})", re.IGNORECASE),
             "change", "swapped X for Y", "phrase"),
    # "I dropped Italian and I'm doing Portuguese now"
    Contrast(re.compile(r"\b(?:dropped|ditched|quit|left|gave up(?: on)?)\s+(?:my\s+|the\s+)?(?P<x>[^,.;!?]+?)\s*,?\s+"
                        r"(?:and|so)\s+(?P<y>[^.;!?]*\b(?:now|these days|instead)\b[^.;!?]*)", re.IGNORECASE),
             "change", "dropped X … Y now", "clause"),
    Contrast(re.compile(r"(?P<x>(?:원래|예전에?는?|전에는?|옛날에는?|작년에는?)[^.!?]*?)(?:는데|지만|고|,)\s*"
                        r"(?P<y>(?:이제|지금|요즘)[^.!?]*)"),
             "change", "원래 X … 이제 Y", "clause"),
    Contrast(re.compile(rf"\bnot\s+(?:on\s+|at\s+|in\s+)?(?P<x>{_PHRASE}?),?\s+but\s+(?:on\s+|at\s+|in\s+)?"
                        rf"(?P<y>{_PHRASE})", re.IGNORECASE),
             "correction", "not X but Y", "phrase"),
    Contrast(re.compile(rf"(?P<y>{_PHRASE}),\s*not\s+(?:on\s+|at\s+|in\s+)?(?P<x>{_PHRASE})", re.IGNORECASE),
             "correction", "Y, not X", "phrase"),
    Contrast(re.compile(r"\b(?:switched|changed|moved|went|transferred|converted|upgraded|downgraded|shifted)"
                        rf"\s+(?:\w+\s+)?from\s+(?P<x>{_PHRASE}?)\s+(?:over\s+)?(?:to|for)\s+(?P<y>{_PHRASE})",
                        re.IGNORECASE),
             "change", "from X to Y", "phrase"),
    Contrast(re.compile(rf"\binstead of\s+(?P<x>{_PHRASE})", re.IGNORECASE), "change", "instead of X", "phrase"),
    Contrast(re.compile(r"\bused to\s+(?P<x>[^.;!?]+?)\s*[,;]?\s*(?:\band\s+|\bbut\s+)?"
                        r"(?P<y>\b(?:now|these days|nowadays)\b[^.;!?]*)", re.IGNORECASE),
             "change", "used to X … now Y", "clause"),
)
