"""Who a speaker is: the name a conversation gives a speaker written as "user".

A support chat stores "user" as the speaker, yet the user says who they are ("안녕하세요, 저는
서연이에요", "Hi, I'm Tom") and the agent calls them by name ("Welcome to Austin, Tom!", "서연님,
…"). Then "서연님은 무슨 알레르기가 있어?" must meet "저는 갑각류 알레르기가 있어요" said by that
user, and "Is Tom vegetarian?" must meet the user's own "I'm not vegetarian anymore" rather than
only the agent's echo that names Tom. ``speaker_names`` reads these names off the recalled memories
of each source: a self-introduction names its speaker; an agent's greeting or address names the one
other speaker of that source, when there is exactly one. Korean names must be proper nouns to Kiwi
("저는 개발자예요" names nobody).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from gieok.text.korean import analyze

__all__ = ["AGENT_SPEAKERS", "is_agent", "speaker_names"]

AGENT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})

_SELF_KO = re.compile(r"(?:저는|전|나는|난|제 이름은|내 이름은)\s*([가-힣]{2,4}?)(?:이)?"
                      r"(?:에요|예요|이에요|입니다|이야|야|라고 해요|라고 합니다)")
_SELF_EN = re.compile(r"\b(?:I'm|I am|I’m|[Mm]y name is|[Tt]his is|[Cc]all me)\s+([A-Z][a-z]+)\b")
_ADDRESS_KO = re.compile(r"([가-힣]{2,4})님")
_ADDRESS_EN = re.compile(r"\b(?:Hi|Hello|Hey|Thanks|Thank you|Welcome[^,.!?\n]{0,30}),?\s+([A-Z][a-z]+)\b"
                         r"|,\s*([A-Z][a-z]+)[!.?]")
_NOT_NAMES = frozenset({"I", "The", "There", "Here", "This", "That", "It", "Sure", "Okay", "Ok", "Yes", "No",
                        "Not", "So", "Just", "Really", "Also", "Now", "Today", "Glad", "Happy", "Sorry"})


def is_agent(speaker: str | None) -> bool:
    return bool(speaker) and str(speaker).lower() in AGENT_SPEAKERS


def _korean_name(candidate: str) -> bool:
    return any(tag == "NNP" for _form, tag, *_ in analyze(candidate))


def _self_names(text: str) -> list[str]:
    names = [m.group(1) for m in _SELF_KO.finditer(text) if _korean_name(m.group(1))]
    return names + [m.group(1) for m in _SELF_EN.finditer(text) if m.group(1) not in _NOT_NAMES]


def _addressed(text: str) -> list[str]:
    names = [m.group(1) for m in _ADDRESS_KO.finditer(text) if _korean_name(m.group(1))]
    for m in _ADDRESS_EN.finditer(text):
        name = m.group(1) or m.group(2)
        if name and name not in _NOT_NAMES:
            names.append(name)
    return names


def speaker_names(memories: Iterable[tuple[str | None, str | None, str]]) -> dict[tuple[str, str], set[str]]:
    """(source id, speaker) → the names the conversation gives that speaker, from
    ``(source_id, speaker, text)`` triples of recalled memories."""
    said = [(source, speaker, text) for source, speaker, text in memories if source and speaker]
    speakers: dict[str, set[str]] = defaultdict(set)
    for source, speaker, _ in said:
        speakers[source].add(speaker)
    names: dict[tuple[str, str], set[str]] = defaultdict(set)
    for source, speaker, text in said:
        if is_agent(speaker):
            others = [s for s in speakers[source] if not is_agent(s)]
            if len(others) == 1:
                names[(source, others[0])].update(_addressed(text))
        else:
            names[(source, speaker)].update(_self_names(text))
    return {key: value for key, value in names.items() if value}
