"""Structure-aware chunking: the document's own boundaries, not a fixed window.

* A heading starts a chunk and is part of it (headings in a row stay together with what follows).
* A FAQ question stays with its answer, even past the target size (up to twice it).
* A table stays whole when it fits; a longer one is split by rows, each piece led by the header row.
* A paragraph longer than the target is cut at sentence boundaries (Korean by Kiwi, English by rule).
* A PDF chunk never spans two pages, so its citation names one page.

Every chunk carries its location: ``page`` (PDF), ``section`` (the heading path above it, when the
document has headings) and ``start``/``end``, its span in the extracted text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gieok.documents._types import Block, DocumentChunk, ParsedDocument
from gieok.text.sentences import split_sentences

__all__ = ["chunk_blocks"]


@dataclass
class _Open:
    """The chunk being filled: contiguous blocks from ``start`` to ``end``."""

    start: int
    end: int
    page: int | None
    blocks: list[Block] = field(default_factory=list)

    @property
    def headings_only(self) -> bool:
        return all(b.kind == "heading" for b in self.blocks)


def _location(blocks: list[Block], page: int | None, start: int, end: int) -> dict[str, object]:
    content = next((b for b in blocks if b.kind != "heading"), blocks[-1] if blocks else None)
    location: dict[str, object] = {}
    if page is not None:
        location["page"] = page
    if content is not None and content.section:
        location["section"] = list(content.section)
    location["start"], location["end"] = start, end
    return location


def _units(blocks: tuple[Block, ...]) -> list[list[Block]]:
    """Blocks grouped so that a FAQ question and its answer are one unit."""
    units: list[list[Block]] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if block.question and block.kind != "heading" and nxt is not None and nxt.kind != "heading" \
                and not nxt.question and nxt.page == block.page:
            units.append([block, nxt])
            i += 2
        else:
            units.append([block])
            i += 1
    return units


def chunk_blocks(document: ParsedDocument, target_chars: int) -> list[DocumentChunk]:
    """The chunks of ``document``, in order, each at most about ``target_chars`` (see the module docstring)."""
    text = document.text
    chunks: list[DocumentChunk] = []
    current: _Open | None = None

    def close() -> None:
        nonlocal current
        if current is not None and current.blocks:
            chunks.append(DocumentChunk(text[current.start:current.end], current.start, current.end,
                                        _location(current.blocks, current.page, current.start, current.end)))
        current = None

    def add(blocks: list[Block], start: int, end: int) -> None:
        nonlocal current
        if current is None:
            current = _Open(start, end, blocks[0].page)
        current.end = end
        current.blocks += blocks

    for unit in _units(document.blocks):
        first, last = unit[0], unit[-1]
        size = last.end - first.start
        if current is not None and (first.page != current.page
                                    or (first.kind == "heading" and not current.headings_only)
                                    or (not current.headings_only and last.end - current.start > target_chars)):
            close()
        fits = size <= target_chars or (len(unit) > 1 and size <= 2 * target_chars)
        if fits or first.kind == "heading":
            add(unit, first.start, last.end)
            continue
        if first.kind == "table" and len(unit) == 1 and len(first.rows) > 1:
            _split_table(first, text, target_chars, current, chunks)
            current = None
            continue
        # a paragraph (or an oversized question and answer) longer than the target: sentence groups
        for block in unit:
            for a, b in _sentence_groups(text, block.start, block.end, target_chars):
                if current is not None and not current.headings_only and b - current.start > target_chars:
                    close()
                if current is None:
                    current = _Open(a, b, block.page, [block])
                else:
                    _extend(current, block, b)
    close()
    return chunks


def _extend(current: _Open, block: Block, end: int) -> None:
    current.end = end
    if not current.blocks or current.blocks[-1] is not block:
        current.blocks.append(block)


def _sentence_groups(text: str, start: int, end: int, target: int) -> list[tuple[int, int]]:
    groups: list[tuple[int, int]] = []
    for a, b in split_sentences(text[start:end]):
        a, b = start + a, start + b
        if groups and b - groups[-1][0] <= target:
            groups[-1] = (groups[-1][0], b)
        else:
            groups.append((a, b))
    return groups


def _split_table(table: Block, text: str, target: int, current: _Open | None, chunks: list[DocumentChunk]) -> None:
    """Pieces of a long table: rows up to the target, each piece after the first led by the header row
    (its span covers its own rows; the header is repeated so every piece reads on its own)."""
    header_start, header_end = table.rows[0]
    header = text[header_start:header_end]
    lead = current.blocks if current is not None and current.headings_only else []
    start = current.start if lead and current is not None else header_start
    piece_start, piece_end = start, header_end
    first = True
    for row_start, row_end in table.rows[1:]:
        length = row_end - (piece_start if first else piece_start - len(header) - 1)
        if piece_end > header_end and length > target:
            body = text[piece_start:piece_end]
            chunks.append(DocumentChunk(body if first else f"{header}\n{body}", piece_start, piece_end,
                                        _location([*lead, table], table.page, piece_start, piece_end)))
            first = False
            piece_start = row_start
        piece_end = row_end
    body = text[piece_start:piece_end]
    chunks.append(DocumentChunk(body if first else f"{header}\n{body}", piece_start, piece_end,
                                _location([*lead, table], table.page, piece_start, piece_end)))
