"""What an importer hands the engine: conversations of plain messages, and the lines it could not read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BadLine", "Conversation", "Parsed"]


@dataclass(frozen=True)
class BadLine:
    """A line (1-based; for JSON files, the position of the item) that could not be read, and why."""

    line: int
    reason: str
    text: str = ""

    def __str__(self) -> str:
        excerpt = f": {self.text[:60]!r}" if self.text else ""
        return f"line {self.line}: {self.reason}{excerpt}"


@dataclass
class Conversation:
    """One conversation of an export: ``document_id`` names it for re-imports (stable across runs);
    each message is ``{"id", "speaker", "text", "timestamp"}``, as :meth:`gieok.Memory.retain` takes."""

    document_id: str
    title: str
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Parsed:
    """A whole export read: its conversations, the lines that were not messages on purpose (dates,
    join notices, photo placeholders: ``skipped``) and those that could not be read (``bad``)."""

    format: str
    conversations: list[Conversation] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    skipped: int = 0
