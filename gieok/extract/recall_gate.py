"""The recall gate: does a turn need long-term memory? Deterministic, Korean and English.

Missing a recall costs more than an extra one, so the gate skips only when small talk clearly
dominates: every word is a greeting, thanks, acknowledgement, reaction or laughter
(:func:`gieok.extract.is_small_talk`) and nothing points back at something said before (a question
about "that", a "remember", a time). Anything else is recalled.
"""

from __future__ import annotations

import re

from gieok.extract.deterministic import is_small_talk
from gieok.records import GateDecision

__all__ = ["GateDecision", "recall_gate"]

# words that make even a short, chatty turn point at memory ("그거 언제였지?", "remember?")
_POINTS_BACK = re.compile(
    r"기억|까먹|잊|언제|어디|누구|뭐였|뭐더라|뭐라고|그거|그때|저번|지난|예전|아까|말했|했었|"
    r"\b(?:remember|forgot|forget|when|where|who|which|what|that|earlier|before|last|said|told|again)\b",
    re.IGNORECASE)
# the chatty turns that ask only about the listener ("how are you?", "잘 지냈어?") stay small talk
_CHATTY_QUESTION = re.compile(r"^(?:how are you|how's it going|what's up|sup|잘 지냈어|잘 지내|뭐해)\W*$",
                              re.IGNORECASE)


def recall_gate(text: str) -> GateDecision:
    """Whether recall should run for ``text``, with the reason."""
    stripped = text.strip()
    if not stripped:
        return GateDecision(False, "empty turn")
    if _CHATTY_QUESTION.match(stripped):
        return GateDecision(False, "small talk: a greeting question")
    if not is_small_talk(stripped):
        return GateDecision(True, "content: not only small talk")
    if _POINTS_BACK.search(stripped) and "?" in stripped:
        return GateDecision(True, "a short question that points back")
    return GateDecision(False, "small talk: greetings, thanks, acknowledgements or laughter only")
