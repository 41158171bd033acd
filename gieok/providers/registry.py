"""One registry for every kind of provider.

A provider is registered as ``(kind, name) -> factory``; ``create(kind, name, **options)`` builds it.
Built-in providers are registered lazily the first time the registry is read, then third-party entry
points (group ``gieok.providers``). Unknown names fail with :class:`UnknownProviderError` listing what
exists, never silently fall back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from gieok.errors import UnknownProviderError

__all__ = ["register", "create", "available", "KINDS"]

KINDS = ("embedder", "reranker", "llm", "decision")

_factories: dict[tuple[str, str], Callable[..., Any]] = {}
_loaded = False
_lock = threading.RLock()


def register(kind: str, name: str, factory: Callable[..., Any], *, replace: bool = False) -> None:
    """Register ``factory`` as provider ``name`` of ``kind``; ``replace=True`` to override one."""
    if kind not in KINDS:
        raise ValueError(f"unknown provider kind {kind!r}: one of {', '.join(KINDS)}")
    with _lock:
        if (kind, name) in _factories and not replace:
            raise ValueError(f"{kind} {name!r} is already registered; pass replace=True to override it")
        _factories[(kind, name)] = factory


def unregister(kind: str, name: str) -> None:
    with _lock:
        _factories.pop((kind, name), None)


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        _loaded = True
        from gieok.providers import embedders

        embedders.register_builtins(register)
        from gieok.providers import rerankers

        rerankers.register_builtins(register)
        from gieok.providers import llms

        llms.register_builtins(register)
        from gieok.providers import decisions

        decisions.register_builtins(register)
        for ep in entry_points(group="gieok.providers"):
            ep.load()(register)


def available(kind: str) -> list[str]:
    _ensure_loaded()
    return sorted(name for (k, name) in _factories if k == kind)


def create(kind: str, name: str, **options: Any) -> Any:
    _ensure_loaded()
    try:
        factory = _factories[(kind, name)]
    except KeyError:
        raise UnknownProviderError(kind, name, available(kind)) from None
    return factory(**options)
