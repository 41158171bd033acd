"""Events: things that happened once, which no later event replaces.

"어제 강남역에서 수아랑 치킨 먹었어" and, ten days later, "어제 망원동에서 지호랑 치킨 먹었어" share
their frame and a place changed, yet both happened: two dinners, not a corrected one. "I had lunch
with Tom at Chipotle" is not replaced by "I had lunch with Ann at a ramen place". ``is_event`` says
that a statement tells of one occurrence:

* it is in the past tense — Korean: a past marker (Kiwi EP 었/았/였); English: a simple past verb
  after its subject ("I had", "we hiked", "Maya went") or opening the sentence ("Took an Uber");
* it is no habit (매일, 보통, 마다, usually, every …) and names no change of state (이사, 옮겼어,
  그만뒀어, moved, quit, switched, now …: those replace a state, see ``_state_change``).

Two events never update each other unless the new one says it corrects the old ("아니, 수아 말고
지호랑 먹었어", "Sorry, it was Ann, not Tom"); ``_guards`` applies that veto.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.lifecycle._state_cues import HABIT
from gieok.lifecycle._state_parse import find_cues
from gieok.lifecycle._update_cues import CHANGE
from gieok.text.korean import analyze, has_hangul

__all__ = ["is_event"]

_KO_PAST = frozenset({"었", "았", "였", "었었", "았었", "ᆻ"})
_EN_PAST_VERB = (
    r"had|went|got|did|ate|drank|saw|made|took|bought|ran|met|watched|visited|called|grabbed|hiked|flew|drove"
    r"|caught|spent|stayed|tried|finished|attended|played|cooked|baked|read|wrote|won|lost|found|gave|brought"
    r"|sent|told|heard|felt|left|came|sat|slept|woke|swam|rode|threw|hosted|celebrated|checked|walked|danced"
    r"|sang|painted|picked|signed|booked|ordered|received|met up|hung out|[a-z]{3,}ed"
)
_EN_PAST_AFTER_SUBJECT = re.compile(
    rf"\b(?:I|we|he|she|they|[A-Z][a-z]+)\s+(?:(?:just|finally|also|actually|really|then|only|all|both)\s+)?"
    rf"(?:{_EN_PAST_VERB})\b")
_EN_PAST_OPENING = re.compile(
    rf"(?:^|[.!?]\s+)(?:(?:just|finally|only|also)\s+)?(?:{_EN_PAST_VERB})\b", re.IGNORECASE)
# "-ed" words that are no past action: "I'm interested", "we used to", "I need", "I ordered" stays.
_EN_NOT_PAST = frozenset("need indeed used tired bored interested excited married engaged".split())


@lru_cache(maxsize=4096)
def is_event(text: str) -> bool:
    """Whether ``text`` tells of one thing that happened (see the module docstring)."""
    if HABIT.search(text) or CHANGE.search(text):
        return False
    if any(found.cue.kind != "begin" or not found.cue.purchase for found in find_cues(text)):
        return False  # a change of state told in the past ("결혼했어", "I quit") is no mere event
    if has_hangul(text):
        return any(tag == "EP" and form in _KO_PAST for form, tag, *_ in analyze(text))
    for pattern in (_EN_PAST_AFTER_SUBJECT, _EN_PAST_OPENING):
        for m in pattern.finditer(text):
            verb = m.group().split()[-1].lower()
            if verb not in _EN_NOT_PAST:
                return True
    return False
