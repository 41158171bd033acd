"""Who counts as the agent side of a conversation (its facts are ``experience``, not ``world``)."""

from __future__ import annotations

__all__ = ["AGENT_SPEAKERS", "is_agent"]

AGENT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})


def is_agent(speaker: str | None) -> bool:
    return bool(speaker) and speaker.lower() in AGENT_SPEAKERS  # type: ignore[union-attr]
