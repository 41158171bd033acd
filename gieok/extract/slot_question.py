"""Which profile slot a question asks about: "내 생일 언제야?" → birthday, "What's my sister's name?"
→ the sister's name, "나 전에 어디 살았지?" → city, before now; "생일 쿠폰 언제 나와요?" → none.

The reading is learned (:mod:`gieok.extract.slot_question_model`): the slot, whose it is (the
person themselves, a relative by a kinship word of :data:`gieok.extract.slot_model.RELATIONS`, or a
person named in the question) and whether it asks for an earlier value. A caller with a bank passes
the bank's decision model (``BankContext.decisions()``), which then chooses the slot — the learned
head by default, the bank's LLM where the bank asks for one; whose and before-now are the head's. A
question that asks about no slot is None: the profile channel then adds nothing.

:func:`mentions_slot` reads statements, not questions: whether a text uses a slot's cue word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gieok.extract.slot_question_model import slot_question_model

if TYPE_CHECKING:
    from gieok.providers.decisions import DecisionModel

__all__ = ["SlotQuestion", "mentions_slot", "slot_question"]


@dataclass(frozen=True)
class SlotQuestion:
    slot: str
    relation: str | None  # the relative asked about ("sister"); None: the person themselves or a named one
    previous: bool  # asks for an earlier value ("where did I live before?")
    person: str | None = None  # the person the question names ("지민 씨는 어디 살아?" → 지민), if any
    probability: float = 1.0  # of the slot, as the model that chose it gives it


def slot_question(question: str, decisions: DecisionModel | None = None) -> SlotQuestion | None:
    """The slot ``question`` asks about, or None; ``decisions`` (a bank's decision model) chooses the
    slot when given (see the module docstring)."""
    reading = slot_question_model().read(question)
    slot, probability = reading.slot, reading.probability
    if decisions is not None:
        decision = decisions.decide("slot_question", question=question)
        slot = None if decision.answer == "none" else decision.answer
        probability = decision.probability
    if slot is None:
        return None
    return SlotQuestion(slot, reading.relation, reading.previous, reading.person, probability)


# a slot's cue words, for statements ("We moved!" speaks of the city): the first that matches wins
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
_CUE_OF = {slot: re.compile(cue, re.IGNORECASE) for slot, cue in _CUES}
_RELATED = {"job": ("job", "employer"), "employer": ("employer", "job")}


def mentions_slot(text: str, slot: str) -> bool:
    """Whether ``text`` uses a cue word of ``slot`` (job and employer count for each other): "We moved!"
    speaks of the city, "I'm not vegetarian anymore" of the diet."""
    return any(name in _CUE_OF and _CUE_OF[name].search(text) is not None for name in _RELATED.get(slot, (slot,)))
