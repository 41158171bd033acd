"""Import a chat export (KakaoTalk, ChatGPT, OpenAI JSONL) as conversations, through retain.

The whole file is read and every conversation validated and redacted (:func:`screen`) before the
first one is written, so a file with an unreadable line, a message retain would refuse or a
"block" finding stores nothing — unless the caller asks to leave the bad lines out
(``skip_bad``); the error lists the lines with their numbers. Each conversation is then one
retain transaction (its own source). Message ids are stable, so an import that stopped half-way
(a killed process) is finished by running it again: what was stored is skipped, not doubled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from zoneinfo import ZoneInfo

from gieok.engine.context import Engine
from gieok.engine.retain.run import NO_OVERRIDES, FactOptions, screen, write_screened
from gieok.engine.sources.documents import Source, read_source
from gieok.errors import FileFormatError, InputError
from gieok.importers import FORMATS, parse_export
from gieok.records import UNSCOPED, ImportResult, Scope

__all__ = ["import_chat"]

_SHOWN_BAD = 10  # bad lines named in the error; the count says how many more


def _refuse_bad(name: str, bad: list[str]) -> FileFormatError:
    listed = "; ".join(bad[:_SHOWN_BAD]) + (f"; and {len(bad) - _SHOWN_BAD} more" if len(bad) > _SHOWN_BAD else "")
    return FileFormatError(f"{name}: {len(bad)} line(s) could not be read, so nothing was imported — {listed}. "
                           "Fix them, or import the rest with skip_bad=True (CLI: --skip-bad)")


def import_chat(engine: Engine, bank: str, source: Source, format: str, *, name: str | None = None,
                skip_bad: bool = False, timezone: str = "Asia/Seoul", options: FactOptions = NO_OVERRIDES,
                progress: Callable[[int, int], None] | None = None, scope: Scope = UNSCOPED) -> ImportResult:
    """Read ``source`` (a path or bytes) as ``format`` and retain each conversation in it (each with
    ``scope``). ``name`` (default: the file's name; ``upload`` for bytes) names a KakaoTalk or JSONL
    conversation."""
    started = time.perf_counter()
    if format not in FORMATS:
        raise InputError(f"unknown import format {format!r}: use one of {', '.join(FORMATS)}")
    try:
        ZoneInfo(timezone)
    except (LookupError, ValueError) as exc:
        raise InputError(f"timezone {timezone!r} is not a time zone name (e.g. Asia/Seoul, UTC)") from exc
    data, file_name = read_source(source, int(engine.settings.max_document_bytes))
    name = name or ("upload" if file_name == "<bytes>" else file_name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileFormatError(f"{name}: not UTF-8 text; KakaoTalk, ChatGPT and JSONL exports are UTF-8 — "
                              "convert it with `iconv -t UTF-8`") from None
    parsed = parse_export(text, format, name, timezone=timezone)
    bad = [str(b) for b in parsed.bad]
    if bad and not skip_bad:
        raise _refuse_bad(name, bad)
    if not parsed.conversations:
        raise FileFormatError(f"{name}: no {format} messages found — is it {FORMATS[format]}?")
    screened = [screen(engine, bank, chat.messages, document_id=chat.document_id,
                       metadata={"imported_from": format, "file_name": name, "title": chat.title}, scope=scope)
                for chat in parsed.conversations]
    added, redactions, source_ids = 0, 0, []
    for done, item in enumerate(screened, start=1):
        result = write_screened(engine, item, options, audit_operation="import")
        added += result.facts_added
        redactions += result.redactions
        source_ids.append(result.source_id)
        if progress is not None:
            progress(done, len(screened))
    messages = sum(len(chat.messages) for chat in parsed.conversations)
    return ImportResult(bank, format, name, len(parsed.conversations), messages, added, source_ids,
                        parsed.skipped, bad, redactions, round(time.perf_counter() - started, 4))
