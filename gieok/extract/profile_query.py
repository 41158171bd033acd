"""Which profile slot a question asks about: "내 생일 언제야?" → birthday, "What's my sister's name?"
→ the sister's name, "나 전에 어디 살았지?" → city, before now.

A deterministic reading of a question, Korean and English: a slot by its cue words (생일 /
birthday, 알레르기 / allergic, 직업 / job, 어디 살아 / live, …, the first slot whose cue the
question holds, in the order below), the relative it is about by a relation word (언니, 엄마,
my sister), and whether it asks about the past (전에, 원래, 처음에, before, used to). Who else it
may name is left to the caller, which knows the people of the bank. A question with no slot cue is
None: the profile channel then adds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gieok.extract.slot_model import RELATIONS

__all__ = ["SlotQuestion", "mentions_slot", "slot_question"]


@dataclass(frozen=True)
class SlotQuestion:
    slot: str
    relation: str | None  # the relative asked about ("sister"); None: the person themselves or a named one
    previous: bool  # asks for an earlier value ("where did I live before?")


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
_CUE_OF = dict(_COMPILED)
# strong past cues only: "how old", "my first day", "지난번에 말한" ask about the present as often
_PAST = re.compile(r"(?<![0-9일주달년]\s)(?<![0-9일주달년])전에|예전|원래|처음에|이전|옛날|그 전|before|used to|"
                   r"previous|originally|\bformer|at first", re.IGNORECASE)
# the person themselves: a relation word after 내 / 제 / 우리 / my is whose relative it is
_RELATION_WORD = re.compile(r"(?:(?:내|제|우리|저희)\s*)?(" + "|".join(
    sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True)) + r")(?:'s|s)?(?![가-힣a-z])",
    re.IGNORECASE)


def slot_question(question: str) -> SlotQuestion | None:
    """The slot ``question`` asks about, or None (see the module docstring)."""
    text = " ".join(question.split())
    slot = next((name for name, cue in _COMPILED if cue.search(text)), None)
    if slot is None:
        return None
    match = _RELATION_WORD.search(text)
    relation = RELATIONS.get(match.group(1).lower()) if match else None
    return SlotQuestion(slot, relation, bool(_PAST.search(text)))


_RELATED = {"job": ("job", "employer"), "employer": ("employer", "job")}


def mentions_slot(text: str, slot: str) -> bool:
    """Whether ``text`` uses a cue word of ``slot`` (job and employer count for each other): "We moved!"
    speaks of the city, "I'm not vegetarian anymore" of the diet."""
    return any(name in _CUE_OF and _CUE_OF[name].search(text) is not None for name in _RELATED.get(slot, (slot,)))
