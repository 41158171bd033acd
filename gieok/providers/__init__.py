"""Providers: embedders, rerankers and LLMs, all registered the same way.

Built-ins register through the same :func:`register` call a third party uses (or an entry point in the
``gieok.providers`` group whose object is a callable ``register(registry)``).
"""

from gieok.providers.embedders import Embedder
from gieok.providers.llms import LLM
from gieok.providers.registry import available, create, register
from gieok.providers.rerankers import Reranker

__all__ = ["Embedder", "LLM", "Reranker", "available", "create", "register"]
