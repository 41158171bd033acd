"""Modules imported on first use, so that opening the package costs only what a call needs.

The facade (:mod:`gieok.memory`, :mod:`gieok._namespaces`) names every engine module it calls, but
a process that only lists banks or prints ``--help`` uses few of them, and importing them all costs
about half a second on a small machine (their regular expressions compile at import, numpy loads).
``lazy_module("gieok.engine.recall.run")`` stands for that module and imports it when one of its
attributes is first read; every later read is one attribute lookup on the module itself.

The facade writes the same modules as plain imports under ``TYPE_CHECKING`` as well, so type checkers
and ``tools/check_layers.py`` see the real dependency::

    if TYPE_CHECKING:
        from gieok.engine.recall import run as _recall
    else:
        _recall = lazy_module("gieok.engine.recall.run")
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "lazy_module", "lazy_names"]


class LazyModule:
    """A module imported when one of its attributes is first read (importing is thread-safe: Python
    holds a lock per module while it runs)."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """:class:`LazyModule` for ``name``, typed ``Any`` for the places that call through it."""
    return LazyModule(name)


def lazy_names(package: str, names: Mapping[str, str], namespace: MutableMapping[str, Any],
               public: Sequence[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for public names imported on first use: ``names``
    maps each to the module that defines it; once read, a name is kept in ``namespace`` (the
    package's globals), so the next use is a plain lookup."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
