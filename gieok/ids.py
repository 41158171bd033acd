"""Memory ids: the one reader and writer of ``f-12`` (a fact) and ``o-3`` (an observation).

Every layer names memories this way (the store when it clears mental models citing erased
memories, the engine, the CLI), so the format is written and read here only. A string that is not
a memory id reads as ``None``: callers decide whether that is an error or, say, a source id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MemoryRef", "parse_memory_id", "fact_memory_id", "observation_memory_id", "fact_number",
           "observation_number"]

MemoryKind = Literal["fact", "observation"]
_PREFIX: dict[MemoryKind, str] = {"fact": "f", "observation": "o"}
_KIND = {prefix: kind for kind, prefix in _PREFIX.items()}
_ROW_MAX = 2**63 - 1  # no row number is larger (64-bit keys in both stores): f-9223372036854775808 names nothing


@dataclass(frozen=True)
class MemoryRef:
    """A parsed memory id: what it names (``kind``) and its row number in that table."""

    kind: MemoryKind
    number: int

    def __str__(self) -> str:
        return f"{_PREFIX[self.kind]}-{self.number}"


def parse_memory_id(memory_id: object) -> MemoryRef | None:
    """``"f-12"`` → ``MemoryRef("fact", 12)``; ``"o-3"`` → an observation; anything else → None."""
    if not isinstance(memory_id, str):
        return None
    prefix, dash, number = memory_id.strip().partition("-")
    kind = _KIND.get(prefix)
    if kind is None or not dash or not number.isascii() or not number.isdigit() or int(number) > _ROW_MAX:
        return None
    return MemoryRef(kind, int(number))


def fact_memory_id(number: int) -> str:
    return str(MemoryRef("fact", number))


def observation_memory_id(number: int) -> str:
    return str(MemoryRef("observation", number))


def fact_number(memory_id: object) -> int | None:
    """The fact row number of ``memory_id``, or None when it does not name a fact."""
    ref = parse_memory_id(memory_id)
    return ref.number if ref is not None and ref.kind == "fact" else None


def observation_number(memory_id: object) -> int | None:
    """The observation row number of ``memory_id``, or None when it does not name an observation."""
    ref = parse_memory_id(memory_id)
    return ref.number if ref is not None and ref.kind == "observation" else None
