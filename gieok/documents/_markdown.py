"""Markdown into blocks: ATX and setext headings, paragraphs, lists, fenced code and pipe tables.

A small line-based reader, not a full CommonMark parser: what matters for chunking is where headings,
tables and paragraphs begin and end. Inline markup is reduced to its text (``**굵게**`` → ``굵게``,
``[link](url)`` → ``link``) so a quote from the chunk reads as the document does.
"""

from __future__ import annotations

import re

from gieok.documents._types import ParsedDocument, RawBlock, build_document

__all__ = ["parse_markdown", "plain_inline"]

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_LIST = re.compile(r"^ {0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|`)(?=\S)(.+?)(?<=\S)\1")


def plain_inline(text: str) -> str:
    """Inline markup reduced to its text."""
    text = _LINK.sub(r"\1", text)
    for _ in range(2):  # nested emphasis: ***both***
        text = _EMPHASIS.sub(r"\2", text)
    return text


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [plain_inline(c.strip()) for c in line.split("|")]


def parse_markdown(text: str) -> ParsedDocument:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[RawBlock] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            kind = "list" if _LIST.match(paragraph[0]) else "paragraph"
            blocks.append(RawBlock(kind, "\n".join(plain_inline(p.strip()) for p in paragraph)))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        atx = _ATX.match(line)
        if atx:
            flush()
            blocks.append(RawBlock("heading", plain_inline(atx.group(2)), level=len(atx.group(1))))
            i += 1
            continue
        if _FENCE.match(line):
            flush()
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            body = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append(RawBlock("paragraph", "\n".join(body)))
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]) and not paragraph:
            rows = [" | ".join(_cells(line))]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(" | ".join(_cells(lines[i])))
                i += 1
            blocks.append(RawBlock("table", "\n".join(rows), rows=rows))
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        if paragraph and len(paragraph) == 1 and _SETEXT.match(line) and not _LIST.match(paragraph[0]):
            heading = paragraph.pop()
            blocks.append(RawBlock("heading", plain_inline(heading.strip()), level=1 if line.strip()[0] == "=" else 2))
            i += 1
            continue
        if paragraph and _LIST.match(line) and not _LIST.match(paragraph[0]):
            flush()  # a list right under a paragraph line starts its own block
        paragraph.append(line)
        i += 1
    flush()
    return build_document(blocks, "text/markdown")
