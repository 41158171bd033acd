"""The embedded store: one SQLite file, WAL, one write path, FTS5 BM25 and sqlite-vec KNN.

Writes go through a single connection guarded by a lock, in ``BEGIN IMMEDIATE`` transactions
(``with store.write(): ...``). Reads use one connection per thread (WAL lets them run beside a
writer); inside a write block the writer's own connection is used so the block sees its own rows.

Each bank gets its own FTS5 table (``fts_bank_<id>``) so BM25's document frequencies and average
length are that bank's, not the whole file's. Vectors live in ``vec_<dim>`` tables partitioned by
bank, rowid = fact id, cosine distance.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from gieok.errors import StoreError
from gieok.records import BankInfo, FactRow, Message, NewFact, SourceInfo
from gieok.store._connect import open_connection, sqlite_module
from gieok.store._derived import DerivedQueries
from gieok.store._graph import GraphQueries
from gieok.store._lifecycle import LifecycleQueries
from gieok.store.migrations import migrate

__all__ = ["SQLiteStore"]

_FACT_COLUMNS = (
    "f.id, f.bank_id, f.source_id, s.external_id, f.chunk_id, f.text, f.kind, f.speaker, f.message_ids, "
    "f.occurred_start, f.occurred_end, f.mentioned_at, f.utc_offset, f.valid_from, f.valid_to, "
    "f.importance, f.pinned, f.decay_class, f.expires_at, f.tokens, f.superseded_by, f.strength, f.archived_at, "
    "f.created_at, f.recall_count"
)


@dataclass(frozen=True)
class _Bank:
    id: int
    name: str
    embedder: str
    dim: int


@dataclass(frozen=True)
class _Chunk:
    id: int
    position: int
    sha256: str


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def _fts_table(bank_id: int) -> str:
    return f"fts_bank_{int(bank_id)}"


def _vec_table(dim: int) -> str:
    return f"vec_{int(dim)}"


def _fts_query(terms: Sequence[str]) -> str:
    # every term quoted (FTS5 syntax characters in user text must not become operators), OR-ed
    unique = dict.fromkeys(t for t in terms if t)
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)


class SQLiteStore(GraphQueries, LifecycleQueries, DerivedQueries):
    """The SQLite implementation of :class:`gieok.store.protocol.Store`."""

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self._memory = self.path == ":memory:" or self.path.startswith("file::memory:")
        self.file_backed = not self._memory
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[Any] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._writer = open_connection(self.path)
        try:
            if not self._memory:
                self._writer.execute("PRAGMA journal_mode = WAL")
                self._writer.execute("PRAGMA synchronous = NORMAL")
            migrate(self._writer)
        except Exception:
            self._writer.close()
            raise
        self.sqlite_version = sqlite_module().sqlite_version

    # -- connections -------------------------------------------------------------------------
    def _conn(self) -> Any:
        if self._closed:
            raise StoreError("the store is closed; open a new Memory")
        if self._memory or getattr(self._local, "in_write", False):
            return self._writer
        conn = getattr(self._local, "reader", None)
        if conn is None:
            conn = open_connection(self.path)
            self._local.reader = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction on the single write path; nested blocks join the outer one."""
        with self._write_lock:
            if getattr(self._local, "in_write", False):
                yield
                return
            if self._closed:
                raise StoreError("the store is closed; open a new Memory")
            self._writer.execute("BEGIN IMMEDIATE")
            self._local.in_write = True
            try:
                yield
            except BaseException:
                self._local.in_write = False
                self._writer.execute("ROLLBACK")
                raise
            self._local.in_write = False
            self._writer.execute("COMMIT")

    @contextmanager
    def try_write(self) -> Iterator[bool]:
        """Like :meth:`write` when the write path is free (yields True); yields False at once when
        another thread holds it, for bookkeeping that may wait (a recall's "used" marks)."""
        if not self._write_lock.acquire(blocking=False):
            yield False
            return
        try:
            with self.write():
                yield True
        finally:
            self._write_lock.release()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self._write_lock:
            if not self._memory:
                try:
                    self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except Exception:  # a checkpoint is an optimisation; closing must still happen
                    pass
            self._writer.close()

    def _fts_name(self, bank_id: int) -> str:
        return _fts_table(bank_id)

    def _vec_name(self, dim: int) -> str:
        return _vec_table(dim)

    def vacuum(self) -> None:
        """Checkpoint the WAL into the file, rebuild the file without free pages, truncate the WAL."""
        with self._write_lock:
            if getattr(self._local, "in_write", False):
                raise StoreError("vacuum cannot run inside `with store.write():`")
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._writer.execute("VACUUM")
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Which needles appear as UTF-8 bytes in the database file or its WAL."""
        if self._memory:
            return []
        blobs = []
        for suffix in ("", "-wal"):
            if os.path.exists(self.path + suffix):
                with open(self.path + suffix, "rb") as handle:
                    blobs.append(handle.read())
        return [n for n in needles if any(n.encode("utf-8") in blob for blob in blobs)]

    def _require_write(self) -> Any:
        if not getattr(self._local, "in_write", False):
            raise StoreError("store writes must run inside `with store.write():`")
        return self._writer

    # -- banks -------------------------------------------------------------------------------
    def get_bank(self, name: str) -> _Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE name = ?", (name,)).fetchone()
        return _Bank(*row) if row else None

    def bank_by_id(self, bank_id: int) -> _Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return _Bank(*row) if row else None

    def create_bank(self, name: str, embedder: str, dim: int) -> _Bank:
        conn = self._require_write()
        cur = conn.execute(
            "INSERT INTO banks (name, embedder, dim, created_at) VALUES (?, ?, ?, ?)",
            (name, embedder, dim, time.time()),
        )
        bank_id = int(cur.lastrowid)
        conn.execute(f"CREATE VIRTUAL TABLE {_fts_table(bank_id)} USING fts5(terms, context, tokenize='unicode61 remove_diacritics 0')")
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {_vec_table(dim)} USING vec0("
            f"bank_id integer partition key, embedding float[{int(dim)}] distance_metric=cosine)"
        )
        return _Bank(bank_id, name, embedder, dim)

    def list_banks(self) -> list[BankInfo]:
        rows = self._conn().execute(
            "SELECT b.name, b.embedder, b.dim, b.created_at, "
            "(SELECT COUNT(*) FROM sources s WHERE s.bank_id = b.id), "
            "(SELECT COUNT(*) FROM facts f WHERE f.bank_id = b.id) FROM banks b ORDER BY b.name"
        ).fetchall()
        return [BankInfo(r[0], r[1], r[2], _dt(r[3]), r[4], r[5]) for r in rows]

    def delete_bank(self, bank_id: int) -> dict[str, int]:
        conn = self._require_write()
        bank = conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        if bank is None:
            return {}
        counts = {
            table: conn.execute(f"SELECT COUNT(*) FROM {table} WHERE bank_id = ?", (bank_id,)).fetchone()[0]
            for table in ("facts", "chunks", "messages", "sources")
        }
        conn.execute(f"DELETE FROM {_vec_table(bank[0])} WHERE bank_id = ?", (bank_id,))
        conn.execute(f"DROP TABLE IF EXISTS {_fts_table(bank_id)}")
        conn.execute("DELETE FROM banks WHERE id = ?", (bank_id,))  # cascades to the rest
        return counts

    def bank_config(self, bank_id: int) -> dict[str, Any]:
        row = self._conn().execute("SELECT config FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def set_bank_config(self, bank_id: int, config: dict[str, Any]) -> None:
        self._require_write().execute(
            "UPDATE banks SET config = ? WHERE id = ?", (json.dumps(config, ensure_ascii=False), bank_id)
        )

    # -- meta and audit ----------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def add_audit(self, entries: Sequence[dict[str, Any]]) -> None:
        """Append audit entries: ids, types, positions, counts and fingerprints — never values."""
        conn = self._require_write()
        now = time.time()
        for e in entries:
            conn.execute(
                "INSERT INTO audit_log (bank, at, operation, source_id, item_id, type, start, end, length, "
                "fingerprint, action, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e["bank"], now, e["operation"], e.get("source_id"), e.get("item_id"), e["type"], e.get("start"),
                 e.get("end"), e.get("length"), e.get("fingerprint"), e["action"], e.get("count", 1)),
            )

    def audit_log(self, bank: str, limit: int = 1000) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            "SELECT at, operation, source_id, item_id, type, start, end, length, fingerprint, action, count "
            "FROM audit_log WHERE bank = ? ORDER BY id DESC LIMIT ?", (bank, limit),
        )
        names = [d[0] for d in cur.description]
        return [{**dict(zip(names, row)), "at": _dt(row[0]).isoformat()} for row in cur.fetchall()]

    # -- sources -----------------------------------------------------------------------------
    def get_source_row(self, bank_id: int, external_id: str) -> tuple[int, str] | None:
        row = self._conn().execute(
            "SELECT id, kind FROM sources WHERE bank_id = ? AND external_id = ?", (bank_id, external_id)
        ).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def upsert_source(self, bank_id: int, external_id: str, kind: str, content: str | None,
                      metadata: dict[str, Any]) -> int:
        conn = self._require_write()
        now = time.time()
        row = conn.execute(
            "SELECT id FROM sources WHERE bank_id = ? AND external_id = ?", (bank_id, external_id)
        ).fetchone()
        if row:
            conn.execute(
                "UPDATE sources SET content = ?, metadata = ?, updated_at = ? WHERE id = ?",
                (content, json.dumps(metadata, ensure_ascii=False), now, row[0]),
            )
            return int(row[0])
        cur = conn.execute(
            "INSERT INTO sources (bank_id, external_id, kind, content, metadata, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (bank_id, external_id, kind, content, json.dumps(metadata, ensure_ascii=False), now, now),
        )
        return int(cur.lastrowid)

    def _source_info(self, row: Any, bank_name: str, with_content: bool) -> SourceInfo:
        source_id, external_id, kind, content, metadata, created, updated = row
        messages: list[Message] = []
        if with_content and kind == "conversation":
            messages = [
                Message(r[0], r[1] or "", r[2], r[3])
                for r in self._conn().execute(
                    "SELECT external_id, speaker, text, timestamp FROM messages WHERE source_id = ? ORDER BY position",
                    (source_id,),
                )
            ]
        return SourceInfo(
            id=external_id, bank=bank_name, kind=kind, created_at=_dt(created), updated_at=_dt(updated),
            messages=messages, text=content if with_content else None, metadata=json.loads(metadata),
        )

    def get_source(self, bank_id: int, bank_name: str, external_id: str) -> SourceInfo | None:
        row = self._conn().execute(
            "SELECT id, external_id, kind, content, metadata, created_at, updated_at FROM sources "
            "WHERE bank_id = ? AND external_id = ?", (bank_id, external_id),
        ).fetchone()
        return self._source_info(row, bank_name, True) if row else None

    def list_sources(self, bank_id: int, bank_name: str) -> list[SourceInfo]:
        rows = self._conn().execute(
            "SELECT id, external_id, kind, NULL, metadata, created_at, updated_at FROM sources "
            "WHERE bank_id = ? ORDER BY created_at, id", (bank_id,),
        ).fetchall()
        return [self._source_info(r, bank_name, False) for r in rows]

    # -- messages ----------------------------------------------------------------------------
    def existing_messages(self, bank_id: int, external_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        out: dict[str, tuple[int, str]] = {}
        conn = self._conn()
        ids = list(external_ids)
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            for ext, source_id, text in conn.execute(
                f"SELECT external_id, source_id, text FROM messages WHERE bank_id = ? AND external_id IN ({marks})",
                (bank_id, *part),
            ):
                out[ext] = (int(source_id), text)
        return out

    def last_message(self, bank_id: int, source_external_id: str) -> Message | None:
        row = self._conn().execute(
            "SELECT m.external_id, m.speaker, m.text, m.timestamp FROM messages m JOIN sources s ON s.id = m.source_id "
            "WHERE s.bank_id = ? AND s.external_id = ? ORDER BY m.position DESC LIMIT 1",
            (bank_id, source_external_id),
        ).fetchone()
        return Message(row[0], row[1] or "", row[2], row[3]) if row else None

    def next_message_position(self, source_id: int) -> int:
        row = self._conn().execute("SELECT COALESCE(MAX(position), -1) FROM messages WHERE source_id = ?", (source_id,)).fetchone()
        return int(row[0]) + 1

    def add_message(self, bank_id: int, source_id: int, message: Message, position: int) -> None:
        self._require_write().execute(
            "INSERT INTO messages (bank_id, source_id, external_id, position, speaker, text, timestamp) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (bank_id, source_id, message.id, position, message.speaker, message.text, message.timestamp),
        )

    def update_message_text(self, bank_id: int, external_id: str, text: str) -> None:
        self._require_write().execute(
            "UPDATE messages SET text = ? WHERE bank_id = ? AND external_id = ?", (text, bank_id, external_id)
        )

    # -- chunks ------------------------------------------------------------------------------
    def chunks_of(self, source_id: int) -> list[_Chunk]:
        rows = self._conn().execute(
            "SELECT id, position, sha256 FROM chunks WHERE source_id = ? ORDER BY position", (source_id,)
        ).fetchall()
        return [_Chunk(*r) for r in rows]

    def set_chunk_position(self, chunk_id: int, position: int) -> None:
        self._require_write().execute("UPDATE chunks SET position = ? WHERE id = ?", (position, chunk_id))

    def chunk_ids_for_message(self, bank_id: int, source_id: int, message_id: str) -> list[int]:
        rows = self._conn().execute(
            "SELECT c.id FROM chunks c, json_each(c.message_ids) j WHERE c.source_id = ? AND j.value = ?",
            (source_id, message_id),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def add_chunk(self, bank_id: int, source_id: int, position: int, sha256: str, text: str,
                  message_ids: list[str]) -> int:
        cur = self._require_write().execute(
            "INSERT INTO chunks (bank_id, source_id, position, sha256, text, message_ids) VALUES (?, ?, ?, ?, ?, ?)",
            (bank_id, source_id, position, sha256, text, json.dumps(message_ids, ensure_ascii=False)),
        )
        return int(cur.lastrowid)

    def delete_chunks(self, bank_id: int, chunk_ids: Sequence[int]) -> int:
        """Delete chunks and every fact, index row and vector derived from them; returns facts removed."""
        conn = self._require_write()
        if not chunk_ids:
            return 0
        dim = conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0]
        marks = ",".join("?" * len(chunk_ids))
        fact_ids = [r[0] for r in conn.execute(f"SELECT id FROM facts WHERE chunk_id IN ({marks})", tuple(chunk_ids))]
        self._delete_fact_indexes(conn, bank_id, dim, fact_ids)
        conn.execute(f"DELETE FROM facts WHERE chunk_id IN ({marks})", tuple(chunk_ids))
        conn.execute(f"DELETE FROM chunks WHERE id IN ({marks})", tuple(chunk_ids))
        self.delete_orphan_entities(bank_id)
        return len(fact_ids)

    def _delete_fact_indexes(self, conn: Any, bank_id: int, dim: int, fact_ids: Sequence[int]) -> None:
        for i in range(0, len(fact_ids), 500):
            part = list(fact_ids[i : i + 500])
            marks = ",".join("?" * len(part))
            conn.execute(f"DELETE FROM {_fts_table(bank_id)} WHERE rowid IN ({marks})", part)
            conn.execute(f"DELETE FROM {_vec_table(dim)} WHERE rowid IN ({marks})", part)

    # -- facts -------------------------------------------------------------------------------
    def add_facts(self, bank_id: int, source_id: int, chunk_id: int, facts: Sequence[NewFact],
                  vectors: np.ndarray) -> list[int]:
        conn = self._require_write()
        dim = conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0]
        ids = []
        now = time.time()
        for fact, vector in zip(facts, vectors):
            cur = conn.execute(
                "INSERT INTO facts (bank_id, source_id, chunk_id, text, kind, speaker, message_ids, occurred_start, "
                "occurred_end, mentioned_at, utc_offset, valid_from, importance, pinned, decay_class, expires_at, "
                "embed_hash, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    bank_id, source_id, chunk_id, fact.text, fact.kind, fact.speaker,
                    json.dumps(fact.message_ids, ensure_ascii=False), fact.occurred_start, fact.occurred_end,
                    fact.mentioned_at, fact.utc_offset, fact.mentioned_at, fact.importance, int(fact.pinned),
                    fact.decay_class, fact.expires_at,
                    hashlib.sha256(fact.embed_text.encode("utf-8")).hexdigest(), fact.tokens, now,
                ),
            )
            fact_id = int(cur.lastrowid)
            conn.execute(
                f"INSERT INTO {_fts_table(bank_id)} (rowid, terms, context) VALUES (?, ?, ?)",
                (fact_id, " ".join(fact.terms), " ".join(fact.context_terms)),
            )
            conn.execute(
                f"INSERT INTO {_vec_table(dim)} (rowid, bank_id, embedding) VALUES (?, ?, ?)",
                (fact_id, bank_id, np.asarray(vector, dtype=np.float32).tobytes()),
            )
            ids.append(fact_id)
        return ids

    def get_facts(self, bank_id: int, ids: Sequence[int]) -> list[FactRow]:
        if not ids:
            return []
        conn = self._conn()
        found: dict[int, FactRow] = {}
        id_list = [int(i) for i in ids]
        for i in range(0, len(id_list), 500):
            part = id_list[i : i + 500]
            marks = ",".join("?" * len(part))
            for r in conn.execute(
                f"SELECT {_FACT_COLUMNS} FROM facts f JOIN sources s ON s.id = f.source_id "
                f"WHERE f.bank_id = ? AND f.id IN ({marks})", (bank_id, *part),
            ):
                found[r[0]] = FactRow(
                    id=r[0], bank_id=r[1], source_id=r[2], source_external_id=r[3], chunk_id=r[4], text=r[5],
                    kind=r[6], speaker=r[7], message_ids=json.loads(r[8]), occurred_start=r[9],
                    occurred_end=r[10], mentioned_at=r[11], utc_offset=r[12], valid_from=r[13], valid_to=r[14],
                    importance=r[15], pinned=bool(r[16]), decay_class=r[17], expires_at=r[18], tokens=r[19],
                    superseded_by=r[20], strength=float(r[21]), archived_at=r[22], created_at=float(r[23]),
                    recall_count=int(r[24]),
                )
        return [found[i] for i in id_list if i in found]

    def count_facts(self, bank_id: int) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM facts WHERE bank_id = ?", (bank_id,)).fetchone()[0])

    def iter_fact_ids(self, bank_id: int) -> Iterator[int]:
        for (fact_id,) in self._conn().execute("SELECT id FROM facts WHERE bank_id = ? ORDER BY id", (bank_id,)):
            yield int(fact_id)

    # -- channels ----------------------------------------------------------------------------
    def keyword_search(self, bank_id: int, terms: Sequence[str], limit: int,
                       context_weight: float = 0.0) -> list[tuple[int, float]]:
        """Okapi BM25 (FTS5 ``bm25()``), best first; scores returned positive (higher = better).

        The ``context`` column (terms of the message a fact answers) counts ``context_weight`` times
        as much as the fact's own terms; at 0 it is not searched at all."""
        query = _fts_query(terms)
        if not query:
            return []
        table = _fts_table(bank_id)
        if context_weight <= 0:
            query = "terms : (" + query + ")"
        rows = self._conn().execute(
            f"SELECT rowid, bm25({table}, 1.0, ?) AS s FROM {table} WHERE {table} MATCH ? ORDER BY s LIMIT ?",
            (float(context_weight), query, limit),
        ).fetchall()
        return [(int(r[0]), -float(r[1])) for r in rows]

    def vector_search(self, bank_id: int, dim: int, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Cosine KNN within the bank's partition; returns (fact id, cosine similarity), best first."""
        rows = self._conn().execute(
            f"SELECT rowid, distance FROM {_vec_table(dim)} WHERE embedding MATCH ? AND k = ? AND bank_id = ? "
            "ORDER BY distance",
            (np.asarray(vector, dtype=np.float32).tobytes(), int(limit), bank_id),
        ).fetchall()
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]
