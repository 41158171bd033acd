"""The server store: PostgreSQL with pgvector, many processes sharing one database.

Same protocol, semantics and record types as :class:`gieok.store.sqlite.SQLiteStore`, and the same
shape: in each process, writes go through one connection guarded by a lock (``with store.write():``
is one transaction; nested blocks join the outer one); reads use one autocommit connection per
thread, except inside a write block, where the writer's own connection is used so the block sees
its own rows. Across processes PostgreSQL's row locks do what SQLite's file lock does.

The schema lives in the DSN's current schema (the first of its ``search_path``), so one database can
hold several gieok stores side by side. Migrations: :mod:`gieok.store._pg_migrations`; keyword BM25
and vectors: :mod:`gieok.store._pg_search`; erasure and its proof: :mod:`gieok.store._pg_lifecycle`.

    >>> from gieok import Memory                                   # doctest: +SKIP
    >>> mem = Memory(store=PostgresStore("postgresql://gieok@db/gieok"))
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import numpy as np

from gieok.errors import StoreError
from gieok.records import BankInfo, FactRow, Message, NewFact, SourceInfo
from gieok.store._pg_connect import connect, display_dsn, ints
from gieok.store._pg_derived import PgDerivedQueries
from gieok.store._pg_graph import PgGraphQueries
from gieok.store._pg_lifecycle import PgLifecycleQueries
from gieok.store._pg_migrations import migrate
from gieok.store._pg_search import SearchIndexes

# the SQLite store's record types, so both stores return equal values
from gieok.store.sqlite import _Bank, _Chunk

__all__ = ["PostgresStore"]

_FACT_COLUMNS = (
    "f.id, f.bank_id, f.source_id, s.external_id, f.chunk_id, f.text, f.kind, f.speaker, f.message_ids, "
    "f.occurred_start, f.occurred_end, f.mentioned_at, f.utc_offset, f.valid_from, f.valid_to, "
    "f.importance, f.pinned, f.decay_class, f.expires_at, f.tokens, f.superseded_by, f.strength, f.archived_at, "
    "f.created_at, f.recall_count"
)


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def _fact(r: Any) -> FactRow:
    return FactRow(
        id=int(r[0]), bank_id=int(r[1]), source_id=int(r[2]), source_external_id=r[3], chunk_id=int(r[4]), text=r[5],
        kind=r[6], speaker=r[7], message_ids=list(r[8]), occurred_start=r[9], occurred_end=r[10], mentioned_at=r[11],
        utc_offset=r[12], valid_from=r[13], valid_to=r[14], importance=float(r[15]), pinned=bool(r[16]),
        decay_class=r[17], expires_at=r[18], tokens=int(r[19]), superseded_by=r[20], strength=float(r[21]),
        archived_at=r[22], created_at=float(r[23]), recall_count=int(r[24]),
    )


def _rollback(conn: Any) -> None:
    import psycopg

    try:
        conn.execute("ROLLBACK")
    except psycopg.Error:
        # the connection died with the block: its transaction is gone with it, and the block's
        # own exception is the one to report; the next write reconnects
        conn.close()


class PostgresStore(SearchIndexes, PgGraphQueries, PgLifecycleQueries, PgDerivedQueries):
    """The PostgreSQL implementation of :class:`gieok.store.protocol.Store`.

    ``dsn`` is a libpq connection string or URI. ``path`` is that DSN without its password."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.path = display_dsn(dsn)
        self.file_backed = False  # the erasure proof covers tables; the server's files are not ours to scan
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[Any] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._writer = connect(dsn)
        try:
            migrate(self._writer)
            self.server_version = str(self._writer.execute("SHOW server_version").fetchone()[0])
        except BaseException:
            self._writer.close()
            raise

    # -- connections -------------------------------------------------------------------------
    def _conn(self) -> Any:
        if self._closed:
            raise StoreError("the store is closed; open a new Memory")
        if getattr(self._local, "in_write", False):
            return self._writer
        conn = getattr(self._local, "reader", None)
        if conn is None or conn.closed:
            conn = connect(self._dsn)
            self._local.reader = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def _writer_connection(self) -> Any:
        """The write connection, reopened if the server dropped it (a restart, an idle timeout)."""
        if self._closed:
            raise StoreError("the store is closed; open a new Memory")
        if self._writer.closed or self._writer.broken:
            self._writer.close()
            self._writer = connect(self._dsn)
        return self._writer

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction on the single write path; nested blocks join the outer one."""
        with self._write_lock:
            if getattr(self._local, "in_write", False):
                yield
                return
            conn = self._writer_connection()
            conn.execute("BEGIN")
            self._local.in_write = True
            try:
                yield
            except BaseException:
                self._local.in_write = False
                _rollback(conn)
                raise
            self._local.in_write = False
            conn.execute("COMMIT")

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
            self._writer.close()

    def _require_write(self) -> Any:
        if not getattr(self._local, "in_write", False):
            raise StoreError("store writes must run inside `with store.write():`")
        return self._writer

    # -- banks -------------------------------------------------------------------------------
    def get_bank(self, name: str) -> _Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE name = %s", (name,)).fetchone()
        return _Bank(*row) if row else None

    def bank_by_id(self, bank_id: int) -> _Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE id = %s", (bank_id,)).fetchone()
        return _Bank(*row) if row else None

    def create_bank(self, name: str, embedder: str, dim: int) -> _Bank:
        # nothing per bank to create: keyword and vector tables are shared, filtered by bank_id
        bank_id = int(self._require_write().execute(
            "INSERT INTO banks (name, embedder, dim, created_at) VALUES (%s, %s, %s, %s) RETURNING id",
            (name, embedder, int(dim), time.time()),
        ).fetchone()[0])
        return _Bank(bank_id, name, embedder, int(dim))

    def list_banks(self) -> list[BankInfo]:
        rows = self._conn().execute(
            "SELECT b.name, b.embedder, b.dim, b.created_at, "
            "(SELECT COUNT(*) FROM sources s WHERE s.bank_id = b.id), "
            "(SELECT COUNT(*) FROM facts f WHERE f.bank_id = b.id) FROM banks b ORDER BY b.name COLLATE \"C\""
        ).fetchall()
        return [BankInfo(r[0], r[1], r[2], _dt(r[3]), int(r[4]), int(r[5])) for r in rows]

    def delete_bank(self, bank_id: int) -> dict[str, int]:
        conn = self._require_write()
        if conn.execute("SELECT 1 FROM banks WHERE id = %s", (bank_id,)).fetchone() is None:
            return {}
        counts = {
            table: int(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE bank_id = %s", (bank_id,)).fetchone()[0])
            for table in ("facts", "chunks", "messages", "sources")
        }
        conn.execute("DELETE FROM banks WHERE id = %s", (bank_id,))  # cascades to the rest, indexes included
        return counts

    def bank_config(self, bank_id: int) -> dict[str, Any]:
        row = self._conn().execute("SELECT config FROM banks WHERE id = %s", (bank_id,)).fetchone()
        return dict(row[0]) if row else {}

    def set_bank_config(self, bank_id: int, config: dict[str, Any]) -> None:
        self._require_write().execute(
            "UPDATE banks SET config = %s::json WHERE id = %s", (json.dumps(config, ensure_ascii=False), bank_id)
        )

    # -- meta and audit ----------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return str(row[0]) if row else None

    def add_audit(self, entries: Sequence[dict[str, Any]]) -> None:
        """Append audit entries: ids, types, positions, counts and fingerprints — never values."""
        conn = self._require_write()
        now = time.time()
        for e in entries:
            conn.execute(
                'INSERT INTO audit_log (bank, at, operation, source_id, item_id, type, start, "end", length, '
                "fingerprint, action, count) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (e["bank"], now, e["operation"], e.get("source_id"), e.get("item_id"), e["type"], e.get("start"),
                 e.get("end"), e.get("length"), e.get("fingerprint"), e["action"], e.get("count", 1)),
            )

    def audit_log(self, bank: str, limit: int = 1000) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            'SELECT at, operation, source_id, item_id, type, start, "end", length, fingerprint, action, count '
            "FROM audit_log WHERE bank = %s ORDER BY id DESC LIMIT %s", (bank, limit),
        )
        names = [d.name for d in cur.description]
        return [{**dict(zip(names, row)), "at": _dt(row[0]).isoformat()} for row in cur.fetchall()]

    # -- sources -----------------------------------------------------------------------------
    def get_source_row(self, bank_id: int, external_id: str) -> tuple[int, str] | None:
        row = self._conn().execute(
            "SELECT id, kind FROM sources WHERE bank_id = %s AND external_id = %s", (bank_id, external_id)
        ).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def upsert_source(self, bank_id: int, external_id: str, kind: str, content: str | None,
                      metadata: dict[str, Any]) -> int:
        # one statement, so two processes retaining the same source id cannot both insert it
        now = time.time()
        return int(self._require_write().execute(
            "INSERT INTO sources (bank_id, external_id, kind, content, metadata, created_at, updated_at) "
            "VALUES (%s, %s, %s, %s, %s::json, %s, %s) ON CONFLICT (bank_id, external_id) DO UPDATE "
            "SET content = EXCLUDED.content, metadata = EXCLUDED.metadata, updated_at = EXCLUDED.updated_at RETURNING id",
            (bank_id, external_id, kind, content, json.dumps(metadata, ensure_ascii=False), now, now),
        ).fetchone()[0])

    def _source_info(self, row: Any, bank_name: str, with_content: bool) -> SourceInfo:
        source_id, external_id, kind, content, metadata, created, updated = row
        messages: list[Message] = []
        if with_content and kind == "conversation":
            messages = [
                Message(r[0], r[1] or "", r[2], r[3])
                for r in self._conn().execute(
                    "SELECT external_id, speaker, text, timestamp FROM messages WHERE source_id = %s ORDER BY position",
                    (source_id,),
                )
            ]
        return SourceInfo(
            id=external_id, bank=bank_name, kind=kind, created_at=_dt(created), updated_at=_dt(updated),
            messages=messages, text=content if with_content else None, metadata=dict(metadata),
        )

    def get_source(self, bank_id: int, bank_name: str, external_id: str) -> SourceInfo | None:
        row = self._conn().execute(
            "SELECT id, external_id, kind, content, metadata, created_at, updated_at FROM sources "
            "WHERE bank_id = %s AND external_id = %s", (bank_id, external_id),
        ).fetchone()
        return self._source_info(row, bank_name, True) if row else None

    def list_sources(self, bank_id: int, bank_name: str) -> list[SourceInfo]:
        rows = self._conn().execute(
            "SELECT id, external_id, kind, NULL, metadata, created_at, updated_at FROM sources "
            "WHERE bank_id = %s ORDER BY created_at, id", (bank_id,),
        ).fetchall()
        return [self._source_info(r, bank_name, False) for r in rows]

    # -- messages ----------------------------------------------------------------------------
    def existing_messages(self, bank_id: int, external_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        if not external_ids:
            return {}
        rows = self._conn().execute(
            "SELECT external_id, source_id, text FROM messages WHERE bank_id = %s AND external_id = ANY(%s::text[])",
            (bank_id, list(external_ids)),
        )
        return {ext: (int(source_id), text) for ext, source_id, text in rows}

    def last_message(self, bank_id: int, source_external_id: str) -> Message | None:
        row = self._conn().execute(
            "SELECT m.external_id, m.speaker, m.text, m.timestamp FROM messages m JOIN sources s ON s.id = m.source_id "
            "WHERE s.bank_id = %s AND s.external_id = %s ORDER BY m.position DESC LIMIT 1",
            (bank_id, source_external_id),
        ).fetchone()
        return Message(row[0], row[1] or "", row[2], row[3]) if row else None

    def next_message_position(self, source_id: int) -> int:
        row = self._conn().execute(
            "SELECT COALESCE(MAX(position), -1) FROM messages WHERE source_id = %s", (source_id,)).fetchone()
        return int(row[0]) + 1

    def add_message(self, bank_id: int, source_id: int, message: Message, position: int) -> None:
        self._require_write().execute(
            "INSERT INTO messages (bank_id, source_id, external_id, position, speaker, text, timestamp) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (bank_id, source_id, message.id, position, message.speaker, message.text, message.timestamp),
        )

    def update_message_text(self, bank_id: int, external_id: str, text: str) -> None:
        self._require_write().execute(
            "UPDATE messages SET text = %s WHERE bank_id = %s AND external_id = %s", (text, bank_id, external_id)
        )

    # -- chunks ------------------------------------------------------------------------------
    def chunks_of(self, source_id: int) -> list[_Chunk]:
        rows = self._conn().execute(
            "SELECT id, position, sha256 FROM chunks WHERE source_id = %s ORDER BY position, id", (source_id,)
        ).fetchall()
        return [_Chunk(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    def set_chunk_position(self, chunk_id: int, position: int) -> None:
        self._require_write().execute("UPDATE chunks SET position = %s WHERE id = %s", (position, chunk_id))

    def chunk_ids_for_message(self, bank_id: int, source_id: int, message_id: str) -> list[int]:
        rows = self._conn().execute(
            "SELECT id FROM chunks WHERE source_id = %s AND message_ids @> jsonb_build_array(%s::text) ORDER BY id",
            (source_id, message_id),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def add_chunk(self, bank_id: int, source_id: int, position: int, sha256: str, text: str,
                  message_ids: list[str]) -> int:
        return int(self._require_write().execute(
            "INSERT INTO chunks (bank_id, source_id, position, sha256, text, message_ids) "
            "VALUES (%s, %s, %s, %s, %s, %s::jsonb) RETURNING id",
            (bank_id, source_id, position, sha256, text, json.dumps(message_ids, ensure_ascii=False)),
        ).fetchone()[0])

    def delete_chunks(self, bank_id: int, chunk_ids: Sequence[int]) -> int:
        """Delete chunks and every fact, index row and vector derived from them; returns facts removed."""
        conn = self._require_write()
        if not chunk_ids:
            return 0
        removed = conn.execute("DELETE FROM facts WHERE chunk_id = ANY(%s::bigint[])", (ints(chunk_ids),)).rowcount
        conn.execute("DELETE FROM chunks WHERE id = ANY(%s::bigint[])", (ints(chunk_ids),))
        self.delete_orphan_entities(bank_id)
        return int(removed)

    # -- facts -------------------------------------------------------------------------------
    def add_facts(self, bank_id: int, source_id: int, chunk_id: int, facts: Sequence[NewFact],
                  vectors: np.ndarray) -> list[int]:
        conn = self._require_write()
        dim = int(conn.execute("SELECT dim FROM banks WHERE id = %s", (bank_id,)).fetchone()[0])
        ids = []
        now = time.time()
        for fact, vector in zip(facts, vectors):
            fact_id = int(conn.execute(
                "INSERT INTO facts (bank_id, source_id, chunk_id, text, kind, speaker, message_ids, occurred_start, "
                "occurred_end, mentioned_at, utc_offset, valid_from, importance, pinned, decay_class, expires_at, "
                "embed_hash, tokens, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s, %s, %s, %s) RETURNING id",
                (
                    bank_id, source_id, chunk_id, fact.text, fact.kind, fact.speaker,
                    json.dumps(fact.message_ids, ensure_ascii=False), fact.occurred_start, fact.occurred_end,
                    fact.mentioned_at, fact.utc_offset, fact.mentioned_at, float(fact.importance), bool(fact.pinned),
                    fact.decay_class, fact.expires_at,
                    hashlib.sha256(fact.embed_text.encode("utf-8")).hexdigest(), int(fact.tokens), now,
                ),
            ).fetchone()[0])
            self._index_keywords(conn, bank_id, fact_id, fact.terms, fact.context_terms)
            self._index_vector(conn, bank_id, dim, fact_id, vector)
            ids.append(fact_id)
        return ids

    def get_facts(self, bank_id: int, ids: Sequence[int]) -> list[FactRow]:
        if not ids:
            return []
        id_list = ints(ids)
        found = {
            int(r[0]): _fact(r)
            for r in self._conn().execute(
                f"SELECT {_FACT_COLUMNS} FROM facts f JOIN sources s ON s.id = f.source_id "
                "WHERE f.bank_id = %s AND f.id = ANY(%s::bigint[])", (bank_id, id_list),
            )
        }
        return [found[i] for i in id_list if i in found]

    def count_facts(self, bank_id: int) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM facts WHERE bank_id = %s", (bank_id,)).fetchone()[0])

    def iter_fact_ids(self, bank_id: int) -> Iterator[int]:
        # keyset pages: lazy like SQLite's cursor, without holding a transaction open between pages
        after = 0
        while True:
            page = [int(r[0]) for r in self._conn().execute(
                "SELECT id FROM facts WHERE bank_id = %s AND id > %s ORDER BY id LIMIT 1000", (bank_id, after))]
            yield from page
            if len(page) < 1000:
                return
            after = page[-1]
