"""PDF text layers with pypdfium2 (PDFium, the engine in Chrome): page by page, paragraphs at blank lines.

A truncated file (no ``%%EOF`` near its end) and a file PDFium cannot open are CorruptDocumentError;
a password is EncryptedDocumentError. A page with no text but an image is a scan: ScannedPageError
names every such page (gieok does no OCR). Blank pages are skipped. Page numbers are 1-based, as a
reader counts them; a chunk never spans two pages, so a citation names one page exactly.
"""

from __future__ import annotations

import re
from typing import Any

from gieok.documents._types import ParsedDocument, Progress, RawBlock, build_document, need_extra
from gieok.errors import CorruptDocumentError, EmptyDocumentError, EncryptedDocumentError, ScannedPageError

__all__ = ["parse_pdf"]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _open(data: bytes, name: str) -> Any:
    try:
        import pypdfium2 as pdfium  # the optional extra gieok[documents]
    except ImportError:
        raise need_extra("pypdfium2", "PDF") from None

    if b"%%EOF" not in data[-2048:]:
        raise CorruptDocumentError(name, "is truncated (no %%EOF at its end): download or export it again")
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise EncryptedDocumentError(name, "is password-protected: remove the password (e.g. `qpdf --decrypt "
                                               "--password=... in.pdf out.pdf`) and ingest the copy") from None
        raise CorruptDocumentError(name, f"cannot be opened as PDF ({exc}): export or download it again") from None


def _has_image(page: Any) -> bool:
    import pypdfium2.raw as raw

    return any(True for _ in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=2))


def parse_pdf(data: bytes, name: str, progress: Progress = None) -> ParsedDocument:
    pdf = _open(data, name)
    try:
        blocks: list[RawBlock] = []
        scanned: list[int] = []
        total = len(pdf)
        for index in range(total):
            page = pdf[index]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
                finally:
                    textpage.close()
                if not text.strip():
                    if _has_image(page):
                        scanned.append(index + 1)
                    continue
            finally:
                page.close()
            blocks += [RawBlock("paragraph", p, page=index + 1) for p in _PARAGRAPH_BREAK.split(text) if p.strip()]
            if progress:
                progress(index + 1, total)
    finally:
        pdf.close()
    if scanned:
        raise ScannedPageError(name, scanned)
    if not blocks:
        raise EmptyDocumentError(name, f"its {total} page{'s have' if total != 1 else ' has'} no text: "
                                       "nothing to ingest")
    return build_document(blocks, "application/pdf", pages=total)
