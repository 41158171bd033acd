"""Async twins: every public method of a sync class as a coroutine run in a worker thread.

``AsyncMemory`` (over :class:`gieok.Memory`) and ``AsyncClient`` (over :class:`gieok.Client`) are made
this way, so the pair cannot drift apart; tests check each pair against a written list."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["add_async_twins", "in_thread"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


async def in_thread(function: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``asyncio.to_thread``, with asyncio imported when a coroutine first runs (it runs inside asyncio
    then): importing the library, which makes the twins, does not import asyncio."""
    import asyncio

    return await asyncio.to_thread(function, *args, **kwargs)


def _twin(sync_cls: type, name: str) -> Callable[..., Any]:
    sync = getattr(sync_cls, name)

    @functools.wraps(sync)
    async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await in_thread(getattr(self._sync, name), *args, **kwargs)

    return method


def add_async_twins(sync_cls: type, async_cls: type) -> None:
    """Give ``async_cls`` (which keeps its sync object as ``self._sync``) a coroutine for every public
    method of ``sync_cls`` it does not write out itself (``close``, written out so type checkers and
    ``__aexit__`` see it)."""
    for name, value in list(vars(sync_cls).items()):
        if not name.startswith("_") and callable(value) and name not in vars(async_cls):
            setattr(async_cls, name, _twin(sync_cls, name))
