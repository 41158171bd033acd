"""What a parser returns: the document's extracted text and its blocks, each with where it lies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gieok.errors import ConfigError

__all__ = ["Block", "ParsedDocument", "DocumentChunk", "Limits", "Progress", "build_document", "need_extra"]

Progress = Callable[[int, int], None] | None  # (pages done, pages in all)


@dataclass(frozen=True)
class Limits:
    """How much a parser may take in: the file's bytes, and what a zip container (DOCX) unpacks to."""

    max_bytes: int = 50_000_000
    max_unpacked_bytes: int = 200_000_000


@dataclass(frozen=True)
class Block:
    """One structural piece of a document, in reading order.

    ``kind`` is ``heading``, ``paragraph``, ``list`` or ``table``; ``start``/``end`` are its span in
    :attr:`ParsedDocument.text`; ``section`` is the heading path it sits under (a heading's includes
    itself); ``rows`` are a table's row spans (the first is the header); ``question`` marks a FAQ
    question, which is kept with the block after it."""

    kind: str
    start: int
    end: int
    level: int = 0
    section: tuple[str, ...] = ()
    page: int | None = None
    rows: tuple[tuple[int, int], ...] = ()
    question: bool = False


@dataclass(frozen=True)
class ParsedDocument:
    text: str
    blocks: tuple[Block, ...]
    media_type: str
    pages: int | None = None  # PDF only
    title: str | None = None


@dataclass(frozen=True)
class DocumentChunk:
    """A chunk to retain: its text (a table piece repeats the header row) and its location —
    ``page`` (PDF), ``section`` (heading path), ``start``/``end`` (span in the extracted text)."""

    text: str
    start: int
    end: int
    location: dict[str, Any] = field(default_factory=dict)


@dataclass
class RawBlock:
    """A parser's block before offsets: text (a table's rows joined by newlines), kind, level, page."""

    kind: str
    text: str
    level: int = 0
    page: int | None = None
    rows: list[str] = field(default_factory=list)


def need_extra(module: str, what: str) -> ConfigError:
    """The error for a parser library that is not installed: name the extra that brings it."""
    return ConfigError(f"reading {what} needs {module}, which is not installed: pip install 'gieok[documents]'")


_QUESTION_START = ("q:", "q.", "q)", "q ", "질문:", "질문 :", "문:", "문)", "faq:")


def is_question(text: str) -> bool:
    """A FAQ question: one short line that asks ("환불은 언제 되나요?", "Q: Can I …?")."""
    stripped = text.strip()
    if not stripped or "\n" in stripped or len(stripped) > 200:
        return False
    return stripped.endswith(("?", "？")) or stripped.casefold().startswith(_QUESTION_START)


def build_document(raw: list[RawBlock], media_type: str, pages: int | None = None) -> ParsedDocument:
    """Join the parser's blocks into one text (blank lines between) and give each its span and heading path."""
    parts: list[str] = []
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []  # (level, heading)
    offset = 0
    title = None
    for item in raw:
        text = item.text.strip()
        if not text:
            continue
        if parts:
            parts.append("\n\n")
            offset += 2
        start = offset
        rows: list[tuple[int, int]] = []
        if item.kind == "table":
            lines = [r.strip() for r in item.rows if r.strip()]
            text = "\n".join(lines)
            position = start
            for line in lines:
                rows.append((position, position + len(line)))
                position += len(line) + 1
        parts.append(text)
        offset += len(text)
        if item.kind == "heading":
            heading = " ".join(text.split())
            while path and path[-1][0] >= item.level:
                path.pop()
            path.append((item.level, heading))
            title = title or heading
        blocks.append(Block(item.kind, start, offset, item.level, tuple(h for _, h in path), item.page,
                            tuple(rows), is_question(text) and item.kind in ("paragraph", "heading")))
    return ParsedDocument("".join(parts), tuple(blocks), media_type, pages, title)
