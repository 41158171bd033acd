"""DOCX into blocks with python-docx, after the container is checked without unpacking it.

The zip's directory is read first: encrypted entries, a missing ``word/document.xml`` and a total
uncompressed size above the limit (a zip bomb unpacks 1 MB into gigabytes) are refused before any
XML is parsed. Paragraph styles ``Heading 1``–``Heading 9`` and ``Title`` (or an outline level) make
headings; ``List …`` styles list items; tables are read row by row, header first.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from gieok.documents._types import Limits, ParsedDocument, RawBlock, build_document, need_extra
from gieok.errors import CorruptDocumentError, DocumentTooLargeError, EncryptedDocumentError, FormatMismatchError

__all__ = ["parse_docx", "check_container"]

_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.IGNORECASE)


def check_container(data: bytes, name: str, limits: Limits) -> None:
    """Refuse a DOCX that is not a Word zip, is encrypted, or would unpack above ``max_unpacked_bytes``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CorruptDocumentError(name, "is not a readable zip container (a truncated or damaged DOCX): "
                                         "open and re-save it in Word or LibreOffice") from None
    with archive:
        entries = archive.infolist()
        if any(e.flag_bits & 0x1 for e in entries):
            raise EncryptedDocumentError(name, "has encrypted zip entries: save it again without a password")
        if "word/document.xml" not in {e.filename for e in entries}:
            raise FormatMismatchError(name, "is a zip archive but not a Word document (no word/document.xml); "
                                            "ingest .docx files only, or extract the archive first")
        unpacked = sum(e.file_size for e in entries)
        if unpacked > limits.max_unpacked_bytes:
            raise DocumentTooLargeError(
                name, f"unpacks to {unpacked:,} bytes, over max_document_unpacked_bytes "
                      f"({limits.max_unpacked_bytes:,}); it may be a zip bomb; if it is a real document raise "
                      "the setting (Memory(..., max_document_unpacked_bytes=...))")


def _heading_level(paragraph: Any) -> int | None:
    style = paragraph.style.name if paragraph.style is not None else ""
    if style.casefold() == "title":
        return 1
    match = _HEADING_STYLE.match(style.strip())
    if match:
        return int(match.group(1))
    outline = paragraph._p.find(".//{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl")
    if outline is not None:
        value = outline.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val")
        if value is not None and value.isdigit() and int(value) < 9:
            return int(value) + 1
    return None


def parse_docx(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    check_container(data, name, limits)
    try:
        import docx  # the optional extra gieok[documents]
        from docx.table import Table
        from docx.text.paragraph import Paragraph
    except ImportError:
        raise need_extra("python-docx", "DOCX") from None

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors on damaged parts
        raise CorruptDocumentError(name, f"cannot be read as DOCX ({type(exc).__name__}): open and re-save it "
                                         "in Word or LibreOffice") from None
    blocks: list[RawBlock] = []
    items: list[str] = []

    def flush_list() -> None:
        if items:
            blocks.append(RawBlock("list", "\n".join(items)))
            items.clear()

    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(element, document)
            text = paragraph.text.strip()
            if not text:
                continue
            level = _heading_level(paragraph)
            style = (paragraph.style.name if paragraph.style is not None else "").casefold()
            if level is None and (style.startswith("list") or element.find(
                    ".//{http://schemas.openxmlformats.org/wordprocessingml/2006/main}numPr") is not None):
                items.append(f"- {text}")
                continue
            flush_list()
            blocks.append(RawBlock("heading", text, level=level) if level else RawBlock("paragraph", text))
        elif tag == "tbl":
            flush_list()
            rows = []
            for row in Table(element, document).rows:
                cells: list[str] = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    if not cells or cells[-1] != value:  # a merged cell repeats across the span
                        cells.append(value)
                if any(cells):
                    rows.append(" | ".join(cells))
            if rows:
                blocks.append(RawBlock("table", "\n".join(rows), rows=rows))
    flush_list()
    return build_document(blocks, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
