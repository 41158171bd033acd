"""Integrations: gieok inside other people's agent loops. Adapters: they call :class:`gieok.Memory` only.

- :mod:`gieok.integrations.openai` wraps an OpenAI-compatible chat client (recall before each call,
  retain after) and gives tool-calling agents ``retain`` / ``recall`` / ``reflect`` as function tools.
- :mod:`gieok.integrations.langgraph`: ``GieokStore``, a LangGraph ``BaseStore`` (extra ``langgraph``).
- :mod:`gieok.integrations.agents`: OpenAI Agents SDK ``function_tool``s and memory instructions
  (extra ``agents``).
- :mod:`gieok.integrations.claude_code`: Claude Code's hooks (``gieok hooks claude-code``).

The framework packages are imported only by their own module, so ``import gieok`` never needs them."""
