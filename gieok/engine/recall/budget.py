"""Filling a token budget greedily: best first, skip what does not fit, always return the best one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["fill_budget"]

T = TypeVar("T")


def fill_budget(items: Sequence[T], cost: Callable[[T], int], max_tokens: int | None,
                limit: int | None) -> tuple[list[T], int]:
    """Take items in order while they fit ``max_tokens`` (an item that does not fit is skipped and
    the next one is tried); stop at ``limit`` items. The first item is always returned, even when it
    alone exceeds the budget, so a caller never gets nothing for a question memory can answer."""
    chosen: list[T] = []
    used = 0
    for item in items:
        if limit is not None and len(chosen) >= limit:
            break
        c = cost(item)
        if max_tokens is not None and chosen and used + c > max_tokens:
            continue
        chosen.append(item)
        used += c
    return chosen, used
