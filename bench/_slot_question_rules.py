"""The rules that read a profile question before the learned head (gieok/extract/slot_question_model.py)
replaced them: ``gieok.extract.profile_query.slot_question`` as of commit ba429f3, kept here unchanged
only so bench/slot_questions.py can print them beside the head on the blind split."""

from __future__ import annotations

import re

from gieok.extract.profile_query import SlotQuestion
from gieok.extract.slot_model import RELATIONS

__all__ = ["rules_slot_question"]

# (slot, cue pattern): the first that matches wins, so the narrower cues come first
_CUES: tuple[tuple[str, str], ...] = (
    ("nickname", r"별명|닉네임|애칭|뭐라고 불|nickname|\bcall(?:s|ed)? me\b|\bgo by\b"),
    ("birthday", r"생일|생신|태어난|birthday|\bbday\b|\bborn\b"),
    ("allergy", r"알레르기|알러지|allerg"),
    ("diet", r"식단|채식|비건|페스코|식이|\bdiet\b|vegetarian|vegan|pescatarian|\beat meat\b"),
    ("health", r"지병|질환|질병|건강|병이|진단|\bhealth\b|\bcondition|\bdiagnos|\billness"),
    ("employer", r"회사|직장|어디 ?다녀|어디 ?다니|어디서 ?일|어디에서 ?일|근무(?:하는|했던|지)|employer|company|"
                 r"\bwork(?:ed|ing|s)? (?:at|for)\b|where (?:do|did|does) \w+ work"),
    ("job", r"직업|하는 일|무슨 일|직책|직무|직급|\bjob\b|occupation|profession|for a living|\bposition\b|\btitle\b|"
            r"\bwork as\b|what (?:do|does|did) \w+ do\b"),
    ("city", r"어디 ?살|어디에 ?살|어디서 ?살|사는 ?곳|사는 ?데|살고 ?있|거주|동네|이사|\blive[sd]?\b|\bliving\b|"
             r"\bcity\b|\bmoved?\b|\bbased\b|\bhometown\b"),
    ("preference", r"좋아하|좋아해|최애|즐겨|favou?rite|\blike[sd]?\b|\blove[sd]?\b|\benjoy"),
    ("name", r"이름|성함|\bname\b|\bcalled\b"),
)
_COMPILED = tuple((slot, re.compile(cue, re.IGNORECASE)) for slot, cue in _CUES)
# strong past cues only: "how old", "my first day", "지난번에 말한" ask about the present as often
_PAST = re.compile(r"(?<![0-9일주달년]\s)(?<![0-9일주달년])전에|예전|원래|처음에|이전|옛날|그 전|before|used to|"
                   r"previous|originally|\bformer|at first", re.IGNORECASE)
# the person themselves: a relation word after 내 / 제 / 우리 / my is whose relative it is
_RELATION_WORD = re.compile(r"(?:(?:내|제|우리|저희)\s*)?(" + "|".join(
    sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True)) + r")(?:'s|s)?(?![가-힣a-z])",
    re.IGNORECASE)


def rules_slot_question(question: str) -> SlotQuestion | None:
    """The slot ``question`` asks about by the old cue rules, or None."""
    text = " ".join(question.split())
    slot = next((name for name, cue in _COMPILED if cue.search(text)), None)
    if slot is None:
        return None
    match = _RELATION_WORD.search(text)
    relation = RELATIONS.get(match.group(1).lower()) if match else None
    return SlotQuestion(slot, relation, bool(_PAST.search(text)))
