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
import hashlib
import io
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import IO, Any

import numpy as np

from gieok.engine.context import BankContext, Engine, check_bank_name
from gieok.engine.retain.plan import embed_text, reply_context, section_context
from gieok.engine.retain.redact import check_id
from gieok.errors import BankExistsError, BankFileError, BankNotFoundError, InputError
from gieok.ids import MemoryRef, parse_memory_id
from gieok.records import BankImport
from gieok.store._portable import TABLES
from gieok.store.protocol import BankRow, Store

__all__ = ["FORMAT", "VERSION", "RECORDS", "export_lines", "export_bank", "import_bank", "clone_bank", "rename_bank"]

FORMAT = "gieok-bank"
VERSION = 1
RECORDS = ("header", "bank", *TABLES, "end")  # the order of a file's lines
BATCH = 256  # rows written (and facts embedded) at a time
Progress = Callable[[int, int], None]

# fields a record carries beyond its table's columns (``vector`` fields only with_vectors)
_EXTRA = {"fact": {"terms", "context_terms", "has_context_vector", "vector", "context_vector"},
          "observation": {"has_vector", "vector"}}
# each reference field: the record type whose ``id`` it names (None allowed where the column is nullable)
_REFS = {"message": {"source_id": "source"}, "chunk": {"source_id": "source"},
         "fact": {"source_id": "source", "chunk_id": "chunk"}, "entity_key": {"entity_id": "entity"},
         "mention": {"fact_id": "fact", "entity_id": "entity"}, "link": {"from_fact": "fact", "to_fact": "fact"},
         "observation": {"entity_id": "entity"}, "observation_fact": {"observation_id": "observation",
                                                                       "fact_id": "fact"},
         "profile_slot": {"fact_id": "fact"}, "held": {"source_id": "source", "chunk_id": "chunk"}}
_NULLABLE_REFS = {("observation", "entity_id")}
_INTEGERS = {"id", "position", "tokens", "degree", "folded_upto", "folds", "utc_offset", "recall_count",
             "superseded_by", "source_id", "chunk_id", "fact_id", "entity_id", "observation_id", "from_fact", "to_fact"}
_NUMBERS = {"occurred_start", "occurred_end", "mentioned_at", "valid_from", "valid_to", "importance", "expires_at",
            "created_at", "updated_at", "strength", "last_recalled_at", "archived_at", "consolidated_at", "weight",
            "last_seen", "believed_at", "refreshed_at", "said_at", "probability"}
_UNIQUE = {"source": "external_id", "message": "external_id"}  # unique within a bank
_CONFIG_KEPT_OUT = ("imported",)  # this database's own bookkeeping, not the bank's settings


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
    out = {k: v for k, v in config.items() if k not in _CONFIG_KEPT_OUT}
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
               for column, target in _REFS.get(record, {}).items())


def _extras(store: Store, bank: BankRow, record: str, page: list[dict[str, Any]],
            with_vectors: bool) -> list[dict[str, Any]]:
    """What a page of facts or observations carries beside its columns: terms and vectors."""
    ids = [r["id"] for r in page] if record in _EXTRA else []
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


# -- validation (the first pass) ---------------------------------------------------------------------
class _Checker:
    """Checks a file line by line, keeping the ids seen per record type and the counts."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}
        self.config: dict[str, Any] = {}
        self.counts: dict[str, int] = {}
        self.ids: dict[str, set[int]] = {"source": set(), "chunk": set(), "fact": set(), "entity": set(),
                                         "observation": set()}
        self.position = -1
        self.ended = False
        self.replaced_by: list[tuple[int, int]] = []
        self.unique: dict[str, set[Any]] = {}

    def check(self, number: int, raw: bytes) -> None:
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise BankFileError(number, f"not a JSON object in UTF-8 ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("record"), str):
            raise BankFileError(number, 'each line is a JSON object naming its "record" type')
        kind = record["record"]
        if kind not in RECORDS:
            raise BankFileError(number, f"unknown record type {kind!r}: one of {', '.join(RECORDS)}")
        position = RECORDS.index(kind)
        if self.ended or position < self.position or (position == self.position and kind in ("header", "bank")):
            raise BankFileError(number, f"a {kind!r} record out of the format's order ({' → '.join(RECORDS)})")
        if self.position < 0 and kind != "header":
            raise BankFileError(number, "the first line must be the header "
                                        f'{{"record": "header", "format": "{FORMAT}", ...}}')
        self.position = position
        getattr(self, f"_{kind}", self._row)(number, kind, record)
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def _header(self, number: int, kind: str, record: dict[str, Any]) -> None:
        if record.get("format") != FORMAT:
            raise BankFileError(number, f"not a gieok bank file (format {record.get('format')!r}, not {FORMAT!r})")
        if record.get("version") != VERSION:
            raise BankFileError(number, f"format version {record.get('version')!r}: this gieok reads version "
                                        f"{VERSION}; import it with the gieok that exported it, or a newer one")
        for name, kind_of in (("bank", str), ("embedder", str), ("dim", int), ("with_vectors", bool)):
            if not isinstance(record.get(name), kind_of):
                raise BankFileError(number, f"the header's {name!r} must be a {kind_of.__name__}")
        self.header = record

    def _bank(self, number: int, kind: str, record: dict[str, Any]) -> None:
        if not isinstance(record.get("config"), dict):
            raise BankFileError(number, 'the bank record\'s "config" must be an object')
        self.config = record["config"]

    def _end(self, number: int, kind: str, record: dict[str, Any]) -> None:
        expected = {k: v for k, v in self.counts.items() if k != "header"}
        stated = record.get("counts")
        if not isinstance(stated, dict) or {k: v for k, v in stated.items() if v} != \
                {k: v for k, v in expected.items() if v}:
            raise BankFileError(number, f"the end record's counts {stated!r} are not the file's {expected!r}: "
                                        "the file is truncated or was edited")
        self.ended = True

    def _row(self, number: int, kind: str, record: dict[str, Any]) -> None:
        table = TABLES[kind]
        fields = set(record) - {"record"}
        missing = [c for c in table.columns if c not in fields]
        unknown = sorted(fields - set(table.columns) - _EXTRA.get(kind, set()))
        if missing or unknown:
            raise BankFileError(number, f"a {kind!r} record: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(unknown)}"]
                                                                         if unknown else [])))
        for column in table.columns:
            self._scalar(number, kind, column, record[column])
        if kind in _UNIQUE:
            seen = self.unique.setdefault(kind, set())
            if record[_UNIQUE[kind]] in seen:
                raise BankFileError(number, f"a second {kind} with external_id {record[_UNIQUE[kind]]!r}")
            seen.add(record[_UNIQUE[kind]])
        for column, target in _REFS.get(kind, {}).items():
            value = record[column]
            if value is None and (kind, column) in _NULLABLE_REFS:
                continue
            if not isinstance(value, int) or value not in self.ids[target]:
                raise BankFileError(number, f"{column} {value!r} names no {target} earlier in the file")
        if kind == "fact" and record["superseded_by"] is not None:
            if not isinstance(record["superseded_by"], int):
                raise BankFileError(number, "superseded_by must be a fact id or null")
            self.replaced_by.append((number, record["superseded_by"]))
        for name in ("vector", "context_vector"):
            if record.get(name) is not None:
                self._vector(number, record[name])
        if kind in self.ids:
            if not isinstance(record["id"], int) or record["id"] in self.ids[kind]:
                raise BankFileError(number, f"a {kind!r} id must be an integer, once per file")
            self.ids[kind].add(record["id"])

    @staticmethod
    def _scalar(number: int, kind: str, column: str, value: Any) -> None:
        """A column's value is of its type (references are checked apart); null is left to the database."""
        table = TABLES[kind]
        if value is None or column in table.json:
            return
        if column in table.bools:
            expected: tuple[type, ...] = (bool,)
        elif column in _INTEGERS:
            expected = (int,)
        elif column in _NUMBERS and (kind, column) != ("held", "said_at"):  # a held statement's is ISO text
            expected = (int, float)
        else:
            expected = (str,)
        if not isinstance(value, expected) or (bool not in expected and isinstance(value, bool)):
            raise BankFileError(number, f"a {kind!r} record's {column!r} must be "
                                        f"{' or '.join(t.__name__ for t in expected)}, not {value!r}")

    def _vector(self, number: int, value: Any) -> None:
        try:
            size = len(base64.b64decode(value, validate=True))
        except (TypeError, ValueError):
            raise BankFileError(number, "a vector must be base64 of little-endian float32s") from None
        if size != 4 * int(self.header["dim"]):
            raise BankFileError(number, f"a vector of {size // 4} floats in a file whose header says dim "
                                        f"{self.header['dim']}")

    def finish(self, number: int) -> None:
        if not self.header:
            raise BankFileError(max(number, 1), "an empty file: a bank file starts with its header line")
        if not self.ended:
            raise BankFileError(number + 1, 'the file ends without its "end" record: it is truncated')
        for line, fact in self.replaced_by:  # may name a later fact: checked once every fact is seen
            if fact not in self.ids["fact"]:
                raise BankFileError(line, f"superseded_by {fact} names no fact of the file")


def _validate(handle: IO[bytes]) -> tuple[_Checker, str, int]:
    """The first pass: every line checked, the bytes hashed. Returns the checker, the hash, the lines."""
    checker, digest, number = _Checker(), hashlib.sha256(), 0
    for number, raw in enumerate(handle, 1):
        digest.update(raw)
        if raw.strip():
            checker.check(number, raw)
    checker.finish(number)
    return checker, digest.hexdigest(), number


@contextmanager
def _readable(src: str | os.PathLike[str] | bytes | IO[Any]) -> Iterator[IO[bytes]]:
    """``src`` as a seekable binary file (a text or unseekable stream is spooled to a temporary file)."""
    if isinstance(src, (str, os.PathLike)):
        with open(src, "rb") as handle:
            yield handle
        return
    if isinstance(src, bytes):
        yield io.BytesIO(src)
        return
    if not isinstance(src, io.TextIOBase) and getattr(src, "seekable", lambda: False)():
        yield src
        return
    with tempfile.SpooledTemporaryFile(max_size=32 << 20) as spool:
        for chunk in iter(lambda: src.read(1 << 20), "" if isinstance(src, io.TextIOBase) else b""):
            spool.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        spool.seek(0)
        yield spool


# -- import (the second pass) ----------------------------------------------------------------------
def import_bank(engine: Engine, src: str | os.PathLike[str] | bytes | IO[Any], bank: str | None = None, *,
                progress: Progress | None = None) -> BankImport:
    """Import a bank file (see the module docstring) into ``bank`` (default: the name in its header)."""
    started = time.monotonic()
    with _readable(src) as handle:
        checker, digest, lines = _validate(handle)
        name = check_bank_name(bank if bank is not None else checker.header["bank"])
        counts = {k: checker.counts.get(k, 0) for k in RECORDS[1:-1]}
        existing = engine.find_bank(name)
        if existing is not None:
            imported = engine.store.banks.config(existing.id).get("imported") or {}
            if imported.get("sha256") == digest:
                return BankImport(name, dict(imported.get("counts", counts)), digest, unchanged=True)
            if engine.store.sources.all(existing.id, name):
                raise BankExistsError(f"bank {name!r} already holds memories: import the file under another "
                                      "name (import_bank(..., bank='new-name'), gieok bank import FILE --as NEW)")
        else:
            check_id(name, "the bank name", engine.policy_from(None))
        handle.seek(0)
        with engine.store.write():
            ctx = engine.created_bank(name)
            writer = _Writer(ctx, checker.header, lines, progress)
            writer.run(handle)
            marker = {"sha256": digest, "counts": counts, "from": checker.header["bank"]}
            config = {**checker.config, "imported": marker}
            engine.store.banks.set_config(ctx.bank.id, config)
    return BankImport(name, counts, digest, reembedded=writer.reembedded, seconds=time.monotonic() - started)


class _Writer:
    """Writes a validated file's rows into a bank, a batch of one record type at a time."""

    def __init__(self, ctx: BankContext, header: dict[str, Any], lines: int, progress: Progress | None) -> None:
        self.ctx, self.store, self.bank = ctx, ctx.store, ctx.bank
        self.embedder = ctx.embedder
        self.same_vectors = bool(header["with_vectors"]) and header["embedder"] == self.bank.embedder \
            and int(header["dim"]) == int(self.bank.dim)
        self.ids: dict[str, dict[int, int]] = {k: {} for k in ("source", "chunk", "fact", "entity", "observation")}
        self.superseded: list[tuple[int, int]] = []
        self.reembedded = 0
        self.lines, self.done, self.progress = lines, 0, progress

    def run(self, handle: IO[bytes]) -> None:
        kind, batch = "", list[dict[str, Any]]()
        for raw in handle:
            if not raw.strip():
                continue
            record = json.loads(raw)
            if record["record"] != kind or len(batch) >= BATCH:
                self.flush(kind, batch)
                kind, batch = record["record"], []
            batch.append(record)
        self.flush(kind, batch)
        self.store.portable.set_superseded([(self.ids["fact"][old], self.ids["fact"][new])
                                            for old, new in self.superseded if new in self.ids["fact"]])

    def flush(self, kind: str, batch: list[dict[str, Any]]) -> None:
        if kind in TABLES and batch:
            rows = [self._mapped(kind, r) for r in batch]
            new_ids = self.store.portable.insert(kind, self.bank.id, rows)
            if kind in self.ids:
                self.ids[kind].update((r["id"], i) for r, i in zip(batch, new_ids))
            if kind == "fact":
                self._index_facts(batch, new_ids)
            elif kind == "observation":
                self._observation_vectors(batch, new_ids)
        self.done += len(batch)
        if self.progress is not None and batch:
            self.progress(self.done, self.lines)

    def _mapped(self, kind: str, record: dict[str, Any]) -> dict[str, Any]:
        row = {c: record[c] for c in TABLES[kind].columns}
        for column, target in _REFS.get(kind, {}).items():
            if row[column] is not None:
                row[column] = self.ids[target][row[column]]
        if kind == "fact":
            if row["superseded_by"] is not None:
                self.superseded.append((record["id"], row["superseded_by"]))
            row["superseded_by"] = None
        elif kind == "observation":
            row["history"] = [self._history_entry(e) for e in row["history"] or []]
        elif kind == "mental_model":
            row["based_on"] = [self._memory_id(m) for m in row["based_on"] or []]
        return row

    def _history_entry(self, entry: Any) -> Any:
        if not isinstance(entry, dict):
            return entry
        facts = self.ids["fact"]
        return {k: [facts.get(int(i), i) if isinstance(i, int) else i for i in v]
                if k in ("added", "based_on", "removed") and isinstance(v, list) else v for k, v in entry.items()}

    def _memory_id(self, memory_id: Any) -> Any:
        ref = parse_memory_id(memory_id)
        table = {"fact": "fact", "observation": "observation"}.get(ref.kind) if ref is not None else None
        if ref is None or table is None or ref.number not in self.ids[table]:
            return memory_id
        return str(MemoryRef(ref.kind, self.ids[table][ref.number]))

    def _vector(self, value: Any) -> np.ndarray | None:
        if not self.same_vectors or value is None:
            return None
        return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float32)

    def _index_facts(self, batch: list[dict[str, Any]], new_ids: Sequence[int]) -> None:
        own = [self._vector(r.get("vector")) for r in batch]
        context = [self._vector(r.get("context_vector")) if r["has_context_vector"] else None for r in batch]
        missing_own = [k for k, v in enumerate(own) if v is None]
        missing_context = [k for k, r in enumerate(batch) if r["has_context_vector"] and context[k] is None]
        if missing_own or missing_context:
            texts = self._contexts(batch, new_ids, missing_context)
            inputs = [embed_text(batch[k]["text"], batch[k]["speaker"]) for k in missing_own] + \
                     [embed_text(batch[k]["text"], batch[k]["speaker"], texts.get(k)) for k in missing_context]
            vectors = iter(self.embedder.embed(inputs, "document"))
            for k in missing_own:
                own[k] = next(vectors)
            for k in missing_context:
                context[k] = next(vectors)
            self.reembedded += len(missing_own)
        rows = []
        for k, (r, fact_id) in enumerate(zip(batch, new_ids)):
            vector = own[k]
            assert vector is not None
            rows.append((fact_id, list(r["terms"]), list(r["context_terms"]), vector, context[k]))
        self.store.portable.index_facts(self.bank.id, rows)

    def _contexts(self, batch: list[dict[str, Any]], new_ids: Sequence[int], which: list[int]) -> dict[int, str]:
        """The context retain embedded a fact's second vector with (as the reembed job rebuilds it): the
        message stored before its own, or its chunk's heading path."""
        replies = [k for k in which if batch[k]["message_ids"]]
        previous = self.store.reembed.previous_messages(self.bank.id, [batch[k]["message_ids"][0] for k in replies])
        pieces = [k for k in which if not batch[k]["message_ids"]]
        chunk_ids = [self.ids["chunk"][batch[k]["chunk_id"]] for k in pieces]
        chunk_texts = self.store.reembed.chunk_texts(chunk_ids)
        locations = self.store.sources.chunk_locations(chunk_ids)
        out: dict[int, str] = {}
        for k in replies:
            before = previous.get(batch[k]["message_ids"][0])
            if before is not None:
                out[k] = reply_context(before)
        for k, chunk_id in zip(pieces, chunk_ids):
            found = section_context(chunk_texts.get(chunk_id, ""), locations.get(chunk_id))
            if found:
                out[k] = found
        return out

    def _observation_vectors(self, batch: list[dict[str, Any]], new_ids: Sequence[int]) -> None:
        rows: list[tuple[int, np.ndarray]] = []
        todo = []
        for r, observation_id in zip(batch, new_ids):
            if not r["has_vector"]:
                continue
            vector = self._vector(r.get("vector"))
            if vector is None:
                todo.append((observation_id, r["text"]))
            else:
                rows.append((observation_id, vector))
        if todo:
            vectors = self.embedder.embed([text for _, text in todo], "document")
            rows += [(i, v) for (i, _), v in zip(todo, vectors)]
            self.reembedded += len(todo)
        self.store.portable.set_observation_vectors(rows)


# -- clone and rename -------------------------------------------------------------------------------
def _free_name(engine: Engine, new: str) -> str:
    name = check_bank_name(new)
    if engine.store.banks.get(name) is not None:
        raise BankExistsError(f"a bank named {name!r} exists already: pick another name (delete_bank frees one)")
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
    name = _free_name(engine, new)
    if name == row.name:
        raise InputError(f"bank {name!r} has that name already")
    with engine.store.write():
        engine.store.lock_bank(row.id)
        if engine.store.banks.get(name) is not None:  # taken meanwhile by another process
            raise BankExistsError(f"a bank named {name!r} exists already: pick another name")
        engine.store.portable.rename(row.id, name)
    return name
