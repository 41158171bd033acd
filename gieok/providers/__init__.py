"""Providers: embedders now; rerankers, LLMs and decision models register the same way.

Built-ins register through the same :func:`register` call a third party uses (or an entry point in the
``gieok.providers`` group whose object is a callable ``register(registry)``).
"""

from gieok.providers.embedders import Embedder
from gieok.providers.registry import available, create, register

__all__ = ["Embedder", "available", "create", "register"]
