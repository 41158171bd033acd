"""The rules that read a profile question before the learned head (gieok/extract/slot_question_model.py)
replaced them: ``gieok.extract.slot_question.slot_question`` as of commit ba429f3, kept here unchanged
only so bench/slot_questions.py can print them beside the head on the blind split."""

from __future__ import annotations

import re

from gieok.extract.slot_model import RELATIONS
from gieok.extract.slot_question import _CUES, SlotQuestion

__all__ = ["rules_slot_question"]

# the cue table is the one statements are still read with (profile_query.mentions_slot): the first that matches wins
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
