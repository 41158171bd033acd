"""Plain text into blocks: paragraphs at blank lines; a short line alone above a blank line, with no
sentence punctuation, is not guessed to be a heading — plain text has no structure to trust."""

from __future__ import annotations

import re

from gieok.documents._types import ParsedDocument, RawBlock, build_document

__all__ = ["parse_text"]


def parse_text(text: str) -> ParsedDocument:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = [RawBlock("paragraph", p) for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    return build_document(blocks, "text/plain")
