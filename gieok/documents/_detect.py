"""Which format a file is: its first bytes decide, its name or ``media_type`` must agree.

Binary formats are recognised by their magic bytes (``%PDF``, a zip holding ``word/document.xml``,
an OLE compound file — an old ``.doc`` or a password-protected ``.docx``); a name or media type that
says PDF over bytes that are not, or the other way round, is a FormatMismatchError rather than a
guess. Text is UTF-8; HTML is told from Markdown by the name, the media type or a leading tag.
"""

from __future__ import annotations

import re

from gieok.errors import EncryptedDocumentError, FormatMismatchError, UnsupportedFormatError

__all__ = ["MEDIA_TYPES", "detect_format"]

PDF, DOCX, HTML, MARKDOWN, TEXT = "pdf", "docx", "html", "markdown", "text"
MEDIA_TYPES = {
    "application/pdf": PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": DOCX,
    "text/html": HTML, "application/xhtml+xml": HTML,
    "text/markdown": MARKDOWN, "text/x-markdown": MARKDOWN,
    "text/plain": TEXT,
}
_EXTENSIONS = {".pdf": PDF, ".docx": DOCX, ".html": HTML, ".htm": HTML, ".xhtml": HTML, ".md": MARKDOWN,
               ".markdown": MARKDOWN, ".mdown": MARKDOWN, ".txt": TEXT, ".text": TEXT, "": TEXT}
_OTHER_BINARY = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
                 (b"\x1f\x8b", "a gzip archive"), (b"Rar!", "a RAR archive"), (b"7z\xbc\xaf", "a 7z archive"))
_HTML_START = re.compile(rb"^\s*(?:<!doctype\s+html|<html|<head|<body|<main|<article)", re.IGNORECASE)


def _declared(name: str, media_type: str | None) -> str | None:
    """The format the caller's media type, else the file's extension, names (None: no opinion)."""
    if media_type is not None:
        base = media_type.split(";", 1)[0].strip().lower()
        if base not in MEDIA_TYPES:
            raise UnsupportedFormatError(name, f"media_type {media_type!r} is not one gieok reads: use one of "
                                               + ", ".join(sorted(MEDIA_TYPES)))
        return MEDIA_TYPES[base]
    dot = name.rfind(".")
    extension = name[dot:].lower() if dot > 0 and "/" not in name[dot:] else ""
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension] if extension else None
    if extension in (".doc", ".rtf", ".odt", ".pages", ".hwp", ".hwpx", ".pptx", ".xlsx", ".epub"):
        raise UnsupportedFormatError(name, f"{extension} files are not read: save it as PDF or DOCX, or export "
                                           "its text, and ingest that")
    return None


def detect_format(data: bytes, name: str, media_type: str | None = None) -> str:
    """``pdf`` / ``docx`` / ``html`` / ``markdown`` / ``text`` for ``data``, or a typed error that says why not."""
    declared = _declared(name, media_type)
    if data.startswith(b"%PDF"):
        found = PDF
    elif data.startswith(b"PK\x03\x04"):
        found = DOCX  # the container check tells a Word zip from other zips
    elif data.startswith(b"\xd0\xcf\x11\xe0"):
        raise EncryptedDocumentError(name, "is an OLE compound file: a password-protected DOCX or an old Word .doc; "
                                           "remove the password, or save it as .docx, and ingest that")
    else:
        for magic, kind in _OTHER_BINARY:
            if data.startswith(magic):
                raise UnsupportedFormatError(name, f"is {kind}, not a document gieok reads (PDF, DOCX, HTML, "
                                                   "Markdown, text); images need OCR first")
        if b"\x00" in data[:8192]:
            raise UnsupportedFormatError(name, "is a binary file of an unknown kind: give PDF, DOCX, HTML, "
                                               "Markdown or UTF-8 text")
        found = declared if declared in (HTML, MARKDOWN, TEXT) else HTML if _HTML_START.match(data[:1024]) else TEXT
    if declared is not None and declared != found and not (declared in (MARKDOWN, TEXT) and found in (MARKDOWN,
                                                                                                          TEXT)):
        raise FormatMismatchError(name, f"is named or typed as {declared.upper()} but its content is "
                                        f"{found.upper()}: rename the file or pass the right media_type")
    return found
