"""Banks you can take with you: export, import, clone and rename (issue #38).

A bank is written out as JSON Lines in the versioned format of ``docs/guide/portability.md``: a
``header`` line, a ``bank`` line (its settings), then one line per row of each of the bank's tables
in the order of :data:`gieok.store._portable.TABLES`, each table in key order, and an ``end`` line
with the counts. Export is a generator reading a page of rows at a time (``store.portable.pages``),
so a bank of any size streams in constant memory.

Import reads the file twice. The first pass validates every line — its JSON, its record type in the
format's order, its fields, that every reference names a row earlier in the file, the ``end``
counts — and hashes the bytes; a bad line is a :class:`~gieok.errors.BankFileError` naming its
number, and nothing has been written. The second pass writes everything in one transaction, mapping
the file's ids onto the new rows' ids. The facts' keyword terms come from the file and are indexed
through the search area's own hooks, as retain indexes them; their vectors come from the file when
it was exported with vectors of this memory's embedder and dimension, and are embedded again
otherwise (with the texts retain embeds, :mod:`gieok.engine.retain.plan`), as are observations'.
The file's SHA-256 is kept in the bank's configuration (``imported``), so importing the same file
again is a no-op returning the same counts, and another file into a bank that holds memories is
refused (:class:`~gieok.errors.BankExistsError`: import it under another name).
"""

from __future__ import annotations

import base64
import io
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import IO, Any

import numpy as np

from gieok.engine.admin.portable._check import readable, validate
from gieok.engine.admin.portable._format import CONFIG_KEPT_OUT, EXTRA, FORMAT, RECORDS, REFS, VERSION, Progress
from gieok.engine.admin.portable._write import Writer
from gieok.engine.context import Engine, check_bank_name
from gieok.engine.retain.redact import check_id
from gieok.engine.retain.run import index_when_due
from gieok.errors import BankExistsError, BankNotFoundError
from gieok.records import BankImport
from gieok.store._portable import TABLES
from gieok.store.protocol import BankRow, Store

__all__ = ["FORMAT", "VERSION", "RECORDS", "export_lines", "export_bank", "import_bank", "clone_bank", "rename_bank"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gieok")
    except PackageNotFoundError:  # a source checkout that was never installed
        return "0+unknown"


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def _b64(vector: np.ndarray | None) -> str | None:
    return None if vector is None else base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _settings(config: dict[str, Any]) -> dict[str, Any]:
    """The bank's settings as exported: never a key (an LLM's is named by its env variable only)."""
    out = {k: v for k, v in config.items() if k not in CONFIG_KEPT_OUT}
    if isinstance(out.get("llm"), dict):
        out["llm"] = {k: v for k, v in out["llm"].items() if k == "api_key_env" or "key" not in k}
    return out


# -- export ---------------------------------------------------------------------------------------
def export_lines(engine: Engine, bank: str, *, with_vectors: bool = False) -> Iterator[str]:
    """The bank as the lines of its file (see the module docstring), read a page at a time."""
    store = engine.store
    row = store.banks.get(check_bank_name(bank))
    if row is None:
        raise BankNotFoundError(bank)
    yield _line({"record": "header", "format": FORMAT, "version": VERSION, "bank": row.name,
                 "embedder": row.embedder, "dim": int(row.dim),
                 "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "gieok_version": _version(), "with_vectors": bool(with_vectors)})
    yield _line({"record": "bank", "config": _settings(store.banks.config(row.id))})
    counts = {"bank": 1}
    newest: dict[str, int] = {}  # the highest id written out per record type
    for record in TABLES:
        counts[record] = 0
        for page in store.portable.pages(record, row.id):
            page = [r for r in page if _written_before(record, r, newest)]
            extras = _extras(store, row, record, page, with_vectors)
            for r, extra in zip(page, extras):
                yield _line({"record": record, **r, **extra})
            counts[record] += len(page)
            if page and "id" in page[-1]:
                newest[record] = page[-1]["id"]
    yield _line({"record": "end", "counts": counts})


def _written_before(record: str, row: dict[str, Any], newest: dict[str, int]) -> bool:
    """Whether every row ``row`` refers to is in the file already. The tables are read one after the
    other, not in one snapshot: a row written meanwhile (a retain, a consolidation) may refer to rows
    newer than those written out; it is left out, as if the export had been taken a moment earlier.
    (A fact's ``superseded_by`` names a newer fact, written later in the same walk.)"""
    return all(row[column] is None or row[column] <= newest.get(target, 0)
               for column, target in REFS.get(record, {}).items())


def _extras(store: Store, bank: BankRow, record: str, page: list[dict[str, Any]],
            with_vectors: bool) -> list[dict[str, Any]]:
    """What a page of facts or observations carries beside its columns: terms and vectors."""
    ids = [r["id"] for r in page] if record in EXTRA else []
    if record == "fact":
        terms = store.search.indexed_terms(bank.id, ids)
        contexts = store.search.vectors_of(bank.dim, ids, "context")
        own = store.search.vectors_of(bank.dim, ids, "fact") if with_vectors else {}
        out = []
        for i in ids:
            words, context_words = terms.get(i, ([], []))
            extra: dict[str, Any] = {"terms": words, "context_terms": context_words,
                                     "has_context_vector": i in contexts}
            if with_vectors:
                extra |= {"vector": _b64(own.get(i)), "context_vector": _b64(contexts.get(i))}
            out.append(extra)
        return out
    if record == "observation":
        vectors = store.portable.observation_vectors(ids)
        return [{"has_vector": i in vectors, **({"vector": _b64(vectors.get(i))} if with_vectors else {})}
                for i in ids]
    return [{} for _ in page]


def export_bank(engine: Engine, bank: str, dest: str | os.PathLike[str] | IO[Any], *,
                with_vectors: bool = False) -> int:
    """Write the bank's file to ``dest`` (a path, or a binary or text file object); returns its lines."""
    lines = export_lines(engine, bank, with_vectors=with_vectors)
    first = next(lines)  # the bank is checked before a file is created
    written = 1
    with _writable(dest) as out:
        out(first)
        for line in lines:
            out(line)
            written += 1
    return written


@contextmanager
def _writable(dest: str | os.PathLike[str] | IO[Any]) -> Iterator[Callable[[str], Any]]:
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "w", encoding="utf-8", newline="\n") as handle:
            yield handle.write
    elif isinstance(dest, io.TextIOBase):
        yield dest.write
    else:
        yield lambda line: dest.write(line.encode("utf-8"))


# -- import (the second pass) ----------------------------------------------------------------------
def import_bank(engine: Engine, src: str | os.PathLike[str] | bytes | IO[Any], bank: str | None = None, *,
                progress: Progress | None = None) -> BankImport:
    """Import a bank file (see the module docstring) into ``bank`` (default: the name in its header)."""
    started = time.monotonic()
    with readable(src) as handle:
        checker, digest, lines = validate(handle)
        name = check_bank_name(bank if bank is not None else checker.header["bank"])
        counts = {k: checker.counts.get(k, 0) for k in RECORDS[1:-1]}
        existing = engine.find_bank(name)
        if existing is not None:
            imported = engine.store.banks.config(existing.id).get("imported") or {}
            if imported.get("sha256") == digest:
                return BankImport(name, dict(imported.get("counts", counts)), digest, unchanged=True)
            if next(engine.store.portable.pages("source", existing.id, 1), None) is not None:
                raise BankExistsError(f"bank {name!r} already holds memories: import the file under another "
                                      "name (import_bank(..., bank='new-name'), gieok bank import FILE --as NEW)")
        else:
            check_id(name, "the bank name", engine.policy_from(None))
        handle.seek(0)
        with engine.store.write():
            ctx = engine.created_bank(name)
            # a database that holds no other bank's vectors builds its vector index once, afterwards
            engine.store.search.suspend_index(ctx.bank.id, ctx.bank.dim)
            writer = Writer(ctx, checker.header, lines, progress)
            writer.run(handle)
            marker = {"sha256": digest, "counts": counts, "from": checker.header["bank"]}
            config = {**checker.config, "imported": marker}
            engine.store.banks.set_config(ctx.bank.id, config)
    index_when_due(engine.store, ctx.bank.id, ctx.bank.dim)  # a large bank's ANN index, as after a retain
    return BankImport(name, counts, digest, reembedded=writer.reembedded, seconds=time.monotonic() - started)


# -- clone and rename -------------------------------------------------------------------------------
def _free_name(engine: Engine, new: str) -> str:
    name = check_bank_name(new)
    if engine.store.banks.get(name) is not None:
        raise BankExistsError(f"a bank named {name!r} exists already: pick another name (mem.banks.delete frees one)")
    check_id(name, "the bank name", engine.policy_from(None))
    return name


def clone_bank(engine: Engine, bank: str, new: str, *, progress: Progress | None = None) -> BankImport:
    """A copy of ``bank`` named ``new``, independent of it: its export (with vectors) imported in-process."""
    if engine.store.banks.get(check_bank_name(bank)) is None:
        raise BankNotFoundError(bank)
    engine.bank(bank)  # a bank of another embedder cannot be cloned by this memory (EmbedderMismatchError)
    name = _free_name(engine, new)
    with tempfile.SpooledTemporaryFile(max_size=32 << 20) as spool:
        export_bank(engine, bank, spool, with_vectors=True)
        spool.seek(0)
        return import_bank(engine, spool, name, progress=progress)


def rename_bank(engine: Engine, bank: str, new: str) -> str:
    """Give ``bank`` the name ``new`` (checked like any bank name; an existing name is refused)."""
    row = engine.store.banks.get(check_bank_name(bank))
    if row is None:
        raise BankNotFoundError(bank)
    name = _free_name(engine, new)  # the bank's own name too: it is taken
    with engine.store.write():
        engine.store.lock_bank(row.id)
        if engine.store.banks.get(name) is not None:  # taken meanwhile by another process
            raise BankExistsError(f"a bank named {name!r} exists already: pick another name")
        engine.store.portable.rename(row.id, name)
    return name
