"""Vetoes every rule of ``detect_update`` shares: the new statement is news, but not about old.

* **Someone else** — the sentences of new that say what changed have a third person as subject
  ("동생이 이사했어", "My brother just moved to Seattle") whom old does not name, or old was about a
  third person ("우리 언니는 LG전자 다녀") whom new never mentions.
* **A one-off** — "오늘은 라떼 대신 아이스티 마셨어", "Took an Uber today instead of the bus", or
  "the ferry was cancelled today" after "I take the ferry every day": one exception, not a new habit.
* **Only a guess** — every sentence that says something changed is a guess, intention or condition
  ("판교에서 수원으로 이사 갈 수도 있어", "I'm thinking about quitting").
"""

from __future__ import annotations

from gieok.lifecycle._state_cues import HABIT, ONE_OFF, SUBSTITUTION
from gieok.lifecycle._state_parse import Span, is_hypothetical
from gieok.lifecycle._third_party import mentions, third_parties
from gieok.lifecycle._update_cues import CHANGE, CORRECTION
from gieok.text.sentences import split_sentences

__all__ = ["not_about_old"]


def not_about_old(old: str, new: str) -> bool:
    """True when ``new`` cannot update ``old`` whatever it says (see the module docstring)."""
    changing = _changing_sentences(new)
    return (
        _someone_else(old, new, changing)
        or (ONE_OFF.search(new) is not None and (SUBSTITUTION.search(new) or HABIT.search(old)) is not None)
        or (bool(changing) and all(is_hypothetical(new, span) for span in changing))
    )


def _changing_sentences(text: str) -> list[Span]:
    return [span for span in split_sentences(text) if CHANGE.search(text, *span) or CORRECTION.search(text, *span)]


def _someone_else(old: str, new: str, changing: list[Span]) -> bool:
    old_people = third_parties(old)
    # Only the sentences that say what changed: "제주도 여행 미뤘어. 아버지가 다치셨어" is still ours.
    new_people = set().union(*(third_parties(new, *span) for span in changing or [(0, len(new))]))
    if new_people:
        return not (new_people & old_people) and not all(mentions(old, person) for person in new_people)
    return bool(old_people) and not any(mentions(new, person) for person in old_people)
