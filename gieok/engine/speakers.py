"""Who counts as the agent side of a conversation (its facts are ``experience``, not ``world``).

The list lives with the answering components (``gieok.answering._speakers``), which also need it to
prefer a person's own statement over an agent's echo; the engine reads it from there.
"""

from __future__ import annotations

from gieok.answering._speakers import AGENT_SPEAKERS, is_agent

__all__ = ["AGENT_SPEAKERS", "is_agent"]
