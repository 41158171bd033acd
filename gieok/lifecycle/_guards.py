"""Vetoes every rule of ``detect_update`` shares: the new statement is news, but not about old.

* **Another holder** — the two statements are about different people (``_holders``): "민지 생일은
  6월 23일이야" / "엄마 생일은 1월 6일이야", "My sister's birthday is May 2" / "My birthday is June 23".
* **Two events** — both tell of something that happened once (``_events``): "어제 강남역에서 수아랑
  치킨 먹었어" / "어제 망원동에서 지호랑 치킨 먹었어" are two dinners. Only a correction cue
  ("아니, 수아 말고 지호랑", "sorry, I meant Ann") lets one event replace another.
* **Still holds** — the new statement says the old state goes on: every change word in it is
  negated or hearsay ("안 옮겼어", "그만둔 거 아니야", "옮긴다는 소문", "I'm not leaving Stripe",
  "didn't end up moving"), or it has none and says "still" (아직, 계속, 여전히, still, sticking with).
* **Someone else** — the sentences of new that say what changed have a third person as subject
  ("동생이 이사했어", "My brother just moved to Seattle") whom old does not name, or old was about a
  third person ("우리 언니는 LG전자 다녀") whom new never mentions.
* **A one-off** — "오늘은 라떼 대신 아이스티 마셨어", "Took an Uber today instead of the bus", or
  "the ferry was cancelled today" after "I take the ferry every day": one exception, not a new habit.
* **Only a guess** — every sentence that says something changed is a guess, intention or condition
  ("판교에서 수원으로 이사 갈 수도 있어", "I'm thinking about quitting").
"""

from __future__ import annotations

import re

from gieok.lifecycle._events import is_event
from gieok.lifecycle._holders import same_holder
from gieok.lifecycle._state_cues import HABIT, ONE_OFF, SUBSTITUTION
from gieok.lifecycle._state_parse import Span, find_cues, is_hypothetical
from gieok.lifecycle._third_party import mentions, third_parties
from gieok.lifecycle._update_cues import CHANGE, CORRECTION
from gieok.text.sentences import split_sentences

__all__ = ["not_about_old"]


def not_about_old(old: str, new: str) -> bool:
    """True when ``new`` cannot update ``old`` whatever it says (see the module docstring)."""
    if not same_holder(old, new):
        return True
    if is_event(old) and is_event(new) and CORRECTION.search(new) is None:
        return True
    if _still_holds(new):
        return True
    changing = _changing_sentences(new)
    return (
        _someone_else(old, new, changing)
        or (ONE_OFF.search(new) is not None and (SUBSTITUTION.search(new) or HABIT.search(old)) is not None)
        or (bool(changing) and all(is_hypothetical(new, span) for span in changing))
    )


_STILL = re.compile(
    r"아직(?:도|은)?\s|계속\s*[가-힣]*(?:다니|하|살|쓰|만나|먹|마시)|여전히|그대로"
    r"|\bstill\b|\bsticking with\b|\bstaying (?:put|with|at|in)\b|\bkept\b"
    r"|(?:\bnot|n't|\bnever)\s+(?:\w+\s+){0,2}(?:leaving|quitting|moving|switching|changing|breaking up|selling"
    r"|giving up|leave|quit|move|switch|change|break up|sell|give up)\b",
    re.IGNORECASE,
)
# A change word that is denied or only reported: 안 옮겼어, 이사 안 가, 그만둔 거 아니야, 옮긴다는 소문.
_NEGATED_BEFORE = re.compile(r"(?:(?<![가-힣])(?:안|못)\s*|(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?)$", re.IGNORECASE)
_NEGATED_AFTER = re.compile(
    r"^[가-힣]{0,3}(?:\s*(?:안|못)\s|지\s*(?:않|못|말)|\s*(?:거|건|게|것은?)\s*아니|다는\s*(?:소문|얘기|말))")


def _still_holds(new: str) -> bool:
    if any(not found.cue.purchase for found in find_cues(new)):
        return False  # a change of state that is neither denied nor a guess ("Marcus and I broke up")
    cues = list(CHANGE.finditer(new))
    if not cues:
        return _STILL.search(new) is not None
    return all(_NEGATED_BEFORE.search(new[max(0, m.start() - 12):m.start()]) is not None
               or _NEGATED_AFTER.search(new[m.end():m.end() + 12]) is not None for m in cues)


def _changing_sentences(text: str) -> list[Span]:
    return [span for span in split_sentences(text) if CHANGE.search(text, *span) or CORRECTION.search(text, *span)]


def _someone_else(old: str, new: str, changing: list[Span]) -> bool:
    old_people = third_parties(old)
    # Only the sentences that say what changed: "제주도 여행 미뤘어. 아버지가 다치셨어" is still ours.
    new_people = set().union(*(third_parties(new, *span) for span in changing or [(0, len(new))]))
    if new_people:
        return not (new_people & old_people) and not all(mentions(old, person) for person in new_people)
    return bool(old_people) and not any(mentions(new, person) for person in old_people)
