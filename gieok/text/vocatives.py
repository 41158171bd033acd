"""Names used to address someone are not values of the statement.

"Thanks, Melanie!" and "Thanks, Caroline!" say the same thing to two people; without this, the
value rules read the addressee as a changed name (measured on LoCoMo: every false supersede left
after pairing only same-speaker statements was a vocative). Removed before comparing: a name after a
greeting or thanks ("Hey Mel,", "Bye Caroline."), a name ending a clause (", Jon!"), a name opening
a sentence followed by a comma ("Caroline, that's..."), and Korean address forms at the start
("민지야,", "지현 씨,", "팀장님,").
"""

from __future__ import annotations

import re

__all__ = ["strip_vocatives"]

_NAME = r"[A-Z][a-z]+(?:\s[A-Z][a-z]+)?"
_GREETING = (r"(?i:hi|hey|hello|thanks|thank you|thx|bye|goodbye|see you|yep|yeah|yes|wow|oh|congrats|"
             r"congratulations|sorry|aw+|great|hmm|ok|okay|good morning|good night|cheers|dear)")
_AFTER_GREETING = re.compile(rf"\b({_GREETING}),?\s+{_NAME}\b(?=\s*[,!.?]|\s*$)")
_CLAUSE_END = re.compile(rf",\s*{_NAME}(?=\s*[!.?]|\s*$)")
_SENTENCE_START = re.compile(rf"(^|[.!?]\s+)({_NAME}),\s")
# sentence openers that take a comma but address nobody
_OPENERS = frozenset("""actually well so yes no sorry oh also anyway honestly okay ok right sure however still now then
wait correction btw plus besides anyways ah hmm um uh look listen see true fine alright again instead
unfortunately luckily basically seriously literally today yesterday tomorrow finally first second""".split())
_KOREAN_ADDRESS = re.compile(r"(^|[.!?]\s+)[가-힣]{1,4}(?:\s?씨|\s?님|아|야)[,!]\s*")


def strip_vocatives(text: str) -> str:
    text = _AFTER_GREETING.sub(lambda m: m.group(1), text)
    text = _CLAUSE_END.sub("", text)
    text = _SENTENCE_START.sub(lambda m: m.group(1) if m.group(2).lower() not in _OPENERS else m.group(0), text)
    return _KOREAN_ADDRESS.sub(lambda m: m.group(1), text).strip()
