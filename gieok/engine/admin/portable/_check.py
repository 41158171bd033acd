"""The first pass of an import: every line of a bank file checked, and its bytes hashed, before anything
is written. A line that is not the format is a :class:`~gieok.errors.BankFileError` naming its number."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from gieok.engine.admin.portable._format import (
    EXTRA,
    FORMAT,
    INTEGERS,
    NULLABLE_REFS,
    NUMBERS,
    RECORDS,
    REFS,
    UNIQUE,
    VERSION,
)
from gieok.errors import BankFileError
from gieok.store._portable import TABLES

__all__ = ["Checker", "validate", "readable"]


class Checker:
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
        unknown = sorted(fields - set(table.columns) - EXTRA.get(kind, set()))
        if missing or unknown:
            raise BankFileError(number, f"a {kind!r} record: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(unknown)}"]
                                                                         if unknown else [])))
        for column in table.columns:
            self._scalar(number, kind, column, record[column])
        if kind in UNIQUE:
            seen = self.unique.setdefault(kind, set())
            if record[UNIQUE[kind]] in seen:
                raise BankFileError(number, f"a second {kind} with external_id {record[UNIQUE[kind]]!r}")
            seen.add(record[UNIQUE[kind]])
        for column, target in REFS.get(kind, {}).items():
            value = record[column]
            if value is None and (kind, column) in NULLABLE_REFS:
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
        elif column in INTEGERS:
            expected = (int,)
        elif column in NUMBERS and (kind, column) != ("held", "said_at"):  # a held statement's is ISO text
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


def validate(handle: IO[bytes]) -> tuple[Checker, str, int]:
    """The first pass: every line checked, the bytes hashed. Returns the checker, the hash, the lines."""
    checker, digest, number = Checker(), hashlib.sha256(), 0
    for number, raw in enumerate(handle, 1):
        digest.update(raw)
        if raw.strip():
            checker.check(number, raw)
    checker.finish(number)
    return checker, digest.hexdigest(), number


@contextmanager
def readable(src: str | os.PathLike[str] | bytes | IO[Any]) -> Iterator[IO[bytes]]:
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
