"""Integrations: gieok inside other people's agent loops. :mod:`gieok.integrations.openai` wraps an
OpenAI-compatible chat client (recall before each call, retain after) and gives tool-calling agents
``retain`` / ``recall`` / ``reflect`` as function tools. Adapters: they call :class:`gieok.Memory` only."""
