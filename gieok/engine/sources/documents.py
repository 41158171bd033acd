"""Ingest: a file (PDF, Markdown, HTML, DOCX, text) in, a located document out.

Reads the file (its size is checked before it is read), parses and chunks it with
:mod:`gieok.documents` — structure-aware chunks that keep their page or heading path — and retains
the chunks as one document through retain's own pipeline (:func:`gieok.engine.retain.run.screen` and
:func:`~gieok.engine.retain.run.write_screened`): redaction, planning outside the lock, one write
transaction. So everything retain promises holds: a bad file raises a typed error before anything is
written, re-ingesting a changed file re-processes only its changed chunks (and removes the facts of
chunks that are gone), and the facts are class ``document`` — reference text that does not decay and
whose sections never supersede one another.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gieok.documents import Limits, chunk_blocks, parse_document
from gieok.engine._time import TimeLike
from gieok.engine.context import Engine
from gieok.engine.retain.run import NO_OVERRIDES, FactOptions, screen, write_screened
from gieok.errors import DocumentTooLargeError, FileFormatError, InputError
from gieok.records import UNSCOPED, IngestResult, Scope

__all__ = ["ingest", "read_source"]

PageProgress = Callable[[int, int], None] | None
Source = str | os.PathLike[str] | bytes | bytearray | memoryview


def read_source(source: Source, max_bytes: int) -> tuple[bytes, str]:
    """The bytes and file name of ``source`` (a path, or the bytes themselves: named ``<bytes>``)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > max_bytes:
            raise DocumentTooLargeError("<bytes>", f"is {len(data):,} bytes, over max_document_bytes "
                                                   f"({max_bytes:,}): split it, or raise the setting")
        return data, "<bytes>"
    if not isinstance(source, (str, os.PathLike)):
        raise InputError(f"ingest takes a file path or bytes, not {type(source).__name__}")
    path = Path(source)
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise FileFormatError(f"{path}: is a folder; give a file (the CLI `gieok ingest` walks folders)")
        if size > max_bytes:
            raise DocumentTooLargeError(path.name, f"is {size:,} bytes, over max_document_bytes ({max_bytes:,}): "
                                                   "split it, or raise the setting (Memory(..., "
                                                   "max_document_bytes=...) / --set max_document_bytes=...)")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # a file that grew since stat() is still refused
    except FileNotFoundError:
        raise FileFormatError(f"{path}: no such file") from None
    except PermissionError:
        raise FileFormatError(f"{path}: cannot be read (permission denied)") from None
    if len(data) > max_bytes:
        raise DocumentTooLargeError(path.name, f"is over max_document_bytes ({max_bytes:,})")
    return data, path.name


def ingest(engine: Engine, bank: str, source: Source, *, document_id: str | None = None,
           media_type: str | None = None, timestamp: TimeLike | None = None,
           metadata: Mapping[str, Any] | None = None, progress: PageProgress = None,
           options: FactOptions = NO_OVERRIDES, scope: Scope = UNSCOPED, trust: str | None = None) -> IngestResult:
    """Parse, chunk and retain one file as the document ``document_id`` (default: the file's name, or a
    hash of the bytes). ``progress(done, total)`` is called as pages are read."""
    started = time.perf_counter()
    settings = engine.settings
    limits = Limits(int(settings.max_document_bytes), int(settings.max_document_unpacked_bytes))
    data, name = read_source(source, limits.max_bytes)
    # bytes have no file name: the document id's extension ("refund.md") says what a file's would
    label = document_id if name == "<bytes>" and document_id else name
    parsed = parse_document(data, label, media_type, limits=limits, progress=progress)
    chunks = chunk_blocks(parsed, int(settings.chunk_chars))
    if document_id is None:
        document_id = name if name != "<bytes>" else "doc-" + hashlib.sha256(data).hexdigest()[:16]
    meta: dict[str, Any] = {"file_name": name, "media_type": parsed.media_type}
    if parsed.pages is not None:
        meta["pages"] = parsed.pages
    if parsed.title:
        meta["title"] = parsed.title
    meta.update(metadata or {})
    screened = screen(engine, bank, text=parsed.text, document_id=document_id, timestamp=timestamp, metadata=meta,
                      layout=[(c.text, c.location) for c in chunks], scope=scope, trust=trust)
    result = write_screened(engine, screened, options, audit_operation="ingest")
    return IngestResult(result.bank, result.source_id, name, parsed.media_type, parsed.pages, len(parsed.text),
                        result.facts_added, result.facts_removed, result.chunks_total, result.chunks_skipped,
                        screened.redacted.count, result.quarantined, round(time.perf_counter() - started, 4))
