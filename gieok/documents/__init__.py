"""Documents: PDF, Markdown, HTML, DOCX and plain text into located, structure-aware chunks.

A component (it does not import the engine): :func:`parse_document` turns a file's bytes into its
extracted text and blocks (headings, paragraphs, lists, tables, each with its span, heading path and
PDF page); :func:`chunk_blocks` cuts those into chunks that keep their location. The engine's
``ingest`` (gieok.engine.sources.documents) retains the chunks as one document.

Libraries: PDF text layers through ``pypdfium2`` (PDFium; Apache-2.0 / BSD-3-Clause), DOCX through
``python-docx`` (MIT), both in the optional extra ``gieok[documents]`` and imported only when such a
file is read; HTML with the standard library's ``html.parser``; Markdown and text by small readers
here. Every failure is a typed :class:`gieok.errors.DocumentError` whose message says how to fix it.
"""

from __future__ import annotations

from gieok.documents._chunk import chunk_blocks
from gieok.documents._detect import MEDIA_TYPES, detect_format
from gieok.documents._location import SECTION_SEPARATOR, format_location
from gieok.documents._types import Block, DocumentChunk, Limits, ParsedDocument, Progress
from gieok.errors import CorruptDocumentError, DocumentTooLargeError, EmptyDocumentError

__all__ = ["Block", "DocumentChunk", "Limits", "MEDIA_TYPES", "ParsedDocument", "SECTION_SEPARATOR", "chunk_blocks",
           "detect_format", "format_location", "parse_document"]


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CorruptDocumentError(name, "is not UTF-8 text (another encoding or a damaged file): convert it "
                                         "with `iconv -t UTF-8`") from None


_DEFAULT_LIMITS = Limits()


def parse_document(data: bytes, name: str = "document", media_type: str | None = None, *,
                   limits: Limits = _DEFAULT_LIMITS, progress: Progress = None) -> ParsedDocument:
    """The text and blocks of one file's ``data``; ``name`` (its file name) and ``media_type`` must agree
    with the content. Raises a :class:`gieok.errors.DocumentError` subclass for anything it cannot read."""
    if len(data) > limits.max_bytes:
        raise DocumentTooLargeError(name, f"is {len(data):,} bytes, over max_document_bytes ({limits.max_bytes:,}): "
                                          "split it, or raise the setting (Memory(..., max_document_bytes=...))")
    if not data.strip():
        raise EmptyDocumentError(name, "is empty: nothing to ingest")
    kind = detect_format(data, name, media_type)
    if kind == "pdf":
        from gieok.documents._pdf import parse_pdf

        parsed = parse_pdf(data, name, progress)
    elif kind == "docx":
        from gieok.documents._docx import parse_docx

        parsed = parse_docx(data, name, limits)
    elif kind == "html":
        from gieok.documents._html import decode_html, parse_html

        try:
            parsed = parse_html(decode_html(data))
        except UnicodeDecodeError:
            raise CorruptDocumentError(name, "is not UTF-8 HTML and names no charset it is in") from None
    elif kind == "markdown":
        from gieok.documents._markdown import parse_markdown

        parsed = parse_markdown(_decode(data, name))
    else:
        from gieok.documents._text import parse_text

        parsed = parse_text(_decode(data, name))
    if not parsed.text.strip():
        raise EmptyDocumentError(name, "has no text once parsed (only markup, navigation or empty pages)")
    if progress and parsed.pages is None:
        progress(1, 1)
    return parsed
