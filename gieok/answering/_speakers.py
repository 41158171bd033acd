"""Who speaks for the assistant: the speaker names an agent's messages are stored under.

Retain, supersede, consolidation, profiles and the quarantine treat an agent's words differently from
a person's own (an agent's echo of what the user said is not the user's statement), and the
answerability head reads who said a memory (``gieok.answering._answerable``).
"""

from __future__ import annotations

__all__ = ["AGENT_SPEAKERS", "is_agent"]

AGENT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})


def is_agent(speaker: str | None) -> bool:
    return bool(speaker) and str(speaker).lower() in AGENT_SPEAKERS
