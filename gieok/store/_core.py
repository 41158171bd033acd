"""Banks, meta and audit, sources, messages, chunks and facts: written once for both stores.

The SQL is SQLite's, with ``?`` placeholders; the few dialect differences go through
``self._dialect`` (see :mod:`gieok.store._dialect`). A bank's keyword and vector indexes are the
store's own (FTS5 and sqlite-vec tables per bank, or PostgreSQL's shared keyword and vector
tables), so creating a bank, adding facts and deleting chunks call the store's index hooks.

Where a caller can see an order, the query states it, so both stores give the same answer.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from gieok.records import UNSCOPED, BankInfo, FactRow, Message, NewFact, Scope, SourceInfo
from gieok.store._dialect import StoreQueries

__all__ = ["Bank", "Chunk", "CoreQueries"]

_FACT_COLUMNS = (
    "f.id, f.bank_id, f.source_id, s.external_id, f.chunk_id, f.text, f.kind, f.speaker, f.message_ids, "
    "f.occurred_start, f.occurred_end, f.mentioned_at, f.utc_offset, f.valid_from, f.valid_to, "
    "f.importance, f.pinned, f.decay_class, f.expires_at, f.tokens, f.superseded_by, f.strength, f.archived_at, "
    "f.created_at, f.recall_count, s.user_id, s.agent_id, s.session_id, s.tags, s.metadata, f.trust"
)
_SOURCE_COLUMNS = ("id, external_id, kind, {content}, metadata, created_at, updated_at, user_id, agent_id, session_id, "
                   "tags")


@dataclass(frozen=True)
class Bank:
    id: int
    name: str
    embedder: str
    dim: int


@dataclass(frozen=True)
class Chunk:
    id: int
    position: int
    sha256: str


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class CoreQueries(StoreQueries):
    """The core tables of :class:`gieok.store.protocol.Store`."""

    # -- banks -------------------------------------------------------------------------------
    def get_bank(self, name: str) -> Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE name = ?", (name,)).fetchone()
        return Bank(*row) if row else None

    def bank_by_id(self, bank_id: int) -> Bank | None:
        row = self._conn().execute("SELECT id, name, embedder, dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return Bank(*row) if row else None

    def bank_rows(self) -> list[Bank]:
        """Every bank's row (id, name, embedder, dim), by name."""
        rows = self._conn().execute(
            f"SELECT id, name, embedder, dim FROM banks ORDER BY name{self._dialect.bytewise}").fetchall()
        return [Bank(*r) for r in rows]

    def create_bank(self, name: str, embedder: str, dim: int) -> Bank:
        conn = self._require_write()
        bank_id = self._dialect.insert_id(
            conn, "INSERT INTO banks (name, embedder, dim, created_at) VALUES (?, ?, ?, ?)",
            (name, embedder, int(dim), time.time()))
        self._create_bank_indexes(conn, bank_id, int(dim))
        return Bank(bank_id, name, embedder, int(dim))

    def list_banks(self) -> list[BankInfo]:
        rows = self._conn().execute(
            "SELECT b.name, b.embedder, b.dim, b.created_at, "
            "(SELECT COUNT(*) FROM sources s WHERE s.bank_id = b.id), "
            "(SELECT COUNT(*) FROM facts f WHERE f.bank_id = b.id) "
            f"FROM banks b ORDER BY b.name{self._dialect.bytewise}"
        ).fetchall()
        return [BankInfo(r[0], r[1], r[2], _dt(r[3]), int(r[4]), int(r[5])) for r in rows]

    def delete_bank(self, bank_id: int) -> dict[str, int]:
        conn = self._require_write()
        bank = conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()
        if bank is None:
            return {}
        counts = {
            table: int(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE bank_id = ?", (bank_id,)).fetchone()[0])
            for table in ("facts", "chunks", "messages", "sources")
        }
        self._drop_bank_indexes(conn, bank_id, int(bank[0]))
        conn.execute("DELETE FROM banks WHERE id = ?", (bank_id,))  # cascades to the rest
        return counts

    def delete_bank_if_empty(self, bank_id: int) -> bool:
        """Delete the bank only when nothing was ever written into it: no source, fact, entity,
        job, observation, mental model, metered LLM spend or configuration. True when it went."""
        conn = self._require_write()
        row = conn.execute("SELECT config FROM banks WHERE id = ?", (bank_id,)).fetchone()
        if row is None or self._dialect.from_json(row[0]):
            return False
        for table in ("sources", "facts", "entities", "jobs", "observations", "mental_models", "llm_usage",
                      "session_turns"):
            if conn.execute(f"SELECT 1 FROM {table} WHERE bank_id = ? LIMIT 1", (bank_id,)).fetchone():
                return False
        self.delete_bank(bank_id)
        return True

    def bank_config(self, bank_id: int) -> dict[str, Any]:
        row = self._conn().execute("SELECT config FROM banks WHERE id = ?", (bank_id,)).fetchone()
        return dict(self._dialect.from_json(row[0])) if row else {}

    def set_bank_config(self, bank_id: int, config: dict[str, Any]) -> None:
        self._require_write().execute("UPDATE banks SET config = ? WHERE id = ?", (_dumps(config), bank_id))

    # -- meta and audit ----------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def claim_meta(self, key: str, value: str) -> str:
        """Set a meta row unless one is there (inside a write); the value that stands, whoever set it."""
        conn = self._require_write()
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value))
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0])

    def delete_meta(self, key: str) -> bool:
        """Remove a meta row (inside a write); True when there was one."""
        cursor = self._require_write().execute("DELETE FROM meta WHERE key = ?", (key,))
        return bool(cursor.rowcount)

    def add_audit(self, entries: Sequence[dict[str, Any]]) -> None:
        """Append audit entries: ids, types, positions, counts and fingerprints — never values."""
        conn = self._require_write()
        now = time.time()
        for e in entries:
            conn.execute(
                'INSERT INTO audit_log (bank, at, operation, source_id, item_id, type, start, "end", length, '
                "fingerprint, action, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e["bank"], now, e["operation"], e.get("source_id"), e.get("item_id"), e["type"], e.get("start"),
                 e.get("end"), e.get("length"), e.get("fingerprint"), e["action"], e.get("count", 1)),
            )

    def audit_log(self, bank: str, limit: int = 1000) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            'SELECT at, operation, source_id, item_id, type, start, "end", length, fingerprint, action, count '
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
                      metadata: dict[str, Any] | None, scope: Scope = UNSCOPED) -> int:
        """Insert a source with its ``scope``, or update an existing one's content and (unless
        ``metadata`` is None) its metadata. A source's scope is set once, when it is created: the
        engine refuses a retain into a source of another scope (ScopeConflictError) before it writes."""
        # an upsert, so two processes retaining the same source id cannot both insert it
        conn = self._require_write()
        now = time.time()
        keep = metadata is None
        conn.execute(
            "INSERT INTO sources (bank_id, external_id, kind, content, metadata, created_at, updated_at, user_id, "
            "agent_id, session_id, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (bank_id, external_id) DO UPDATE SET content = excluded.content, "
            f"{'' if keep else 'metadata = excluded.metadata, '}updated_at = excluded.updated_at",
            (bank_id, external_id, kind, content, _dumps(metadata or {}), now, now, scope.user_id, scope.agent_id,
             scope.session_id, _dumps(list(scope.tags))),
        )
        row = conn.execute("SELECT id FROM sources WHERE bank_id = ? AND external_id = ?", (bank_id, external_id))
        source_id = int(row.fetchone()[0])
        conn.executemany("INSERT INTO source_tags (bank_id, source_id, tag) VALUES (?, ?, ?) "
                         "ON CONFLICT (bank_id, source_id, tag) DO NOTHING",
                         [(bank_id, source_id, tag) for tag in dict.fromkeys(scope.tags)])
        return source_id

    def _scope(self, user_id: Any, agent_id: Any, session_id: Any, tags: Any) -> Scope:
        return Scope(user_id, agent_id, session_id, tuple(self._dialect.from_json(tags) or ()))

    def source_scopes(self, source_ids: Sequence[int]) -> dict[int, Scope]:
        """The scope of each source, by row id."""
        out: dict[int, Scope] = {}
        for ids_in, part in self._dialect.in_parts(source_ids):
            for source_id, *scope in self._conn().execute(
                    f"SELECT id, user_id, agent_id, session_id, tags FROM sources WHERE id {ids_in}", part):
                out[int(source_id)] = self._scope(*scope)
        return out

    def sources_of_user(self, bank_id: int, user_id: str) -> list[int]:
        """The row ids of the bank's sources retained for ``user_id`` (``sources_user`` index)."""
        return [int(r[0]) for r in self._conn().execute(
            "SELECT id FROM sources WHERE bank_id = ? AND user_id = ? ORDER BY id", (bank_id, user_id))]

    def _source_info(self, row: Any, bank_name: str, with_content: bool) -> SourceInfo:
        source_id, external_id, kind, content, metadata, created, updated, *scope = row
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
            messages=messages, text=content if with_content else None,
            metadata=dict(self._dialect.from_json(metadata)), scope=self._scope(*scope),
        )

    def get_source(self, bank_id: int, bank_name: str, external_id: str) -> SourceInfo | None:
        row = self._conn().execute(
            f"SELECT {_SOURCE_COLUMNS.format(content='content')} FROM sources WHERE bank_id = ? AND external_id = ?",
            (bank_id, external_id),
        ).fetchone()
        return self._source_info(row, bank_name, True) if row else None

    def list_sources(self, bank_id: int, bank_name: str) -> list[SourceInfo]:
        rows = self._conn().execute(
            f"SELECT {_SOURCE_COLUMNS.format(content='NULL')} FROM sources WHERE bank_id = ? ORDER BY created_at, id",
            (bank_id,),
        ).fetchall()
        return [self._source_info(r, bank_name, False) for r in rows]

    # -- messages ----------------------------------------------------------------------------
    def existing_messages(self, bank_id: int, external_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        out: dict[str, tuple[int, str]] = {}
        conn = self._conn()
        for ids_in, part in self._dialect.in_parts(external_ids, text=True):
            for ext, source_id, text in conn.execute(
                f"SELECT external_id, source_id, text FROM messages WHERE bank_id = ? AND external_id {ids_in}",
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
        row = self._conn().execute("SELECT COALESCE(MAX(position), -1) FROM messages WHERE source_id = ?",
                                   (source_id,)).fetchone()
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
    def retire_chunks(self, bank_id: int, chunk_ids: Sequence[int], at: float, reason: str) -> int:
        """A new version of a document left these chunks out: their facts are closed at ``at`` with
        ``reason`` (kept as the document's history) and the chunks leave the document's order
        (position -1, never matched again). Returns the facts closed."""
        conn = self._require_write()
        closed = 0
        for ids_in, part in self._dialect.in_parts(chunk_ids):
            closed += int(conn.execute(
                f"UPDATE facts SET valid_to = ?, supersede_reason = ? WHERE bank_id = ? AND chunk_id {ids_in} "
                "AND valid_to IS NULL", (at, reason, bank_id, *part)).rowcount)
            conn.execute(f"UPDATE chunks SET position = -1 WHERE bank_id = ? AND id {ids_in}", (bank_id, *part))
        return closed

    def chunks_of(self, source_id: int) -> list[Chunk]:
        rows = self._conn().execute(
            "SELECT id, position, sha256 FROM chunks WHERE source_id = ? ORDER BY position, id", (source_id,)
        ).fetchall()
        return [Chunk(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    def set_chunk_position(self, chunk_id: int, position: int, location: dict[str, Any] | None = None) -> None:
        """Move a kept chunk; ``location`` (an ingested document's) replaces the stored one when given."""
        if location is None:
            self._require_write().execute("UPDATE chunks SET position = ? WHERE id = ?", (position, chunk_id))
        else:
            self._require_write().execute("UPDATE chunks SET position = ?, location = ? WHERE id = ?",
                                          (position, _dumps(location), chunk_id))

    def chunk_locations(self, chunk_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The location of each chunk that has one (an ingested document's), by chunk id."""
        out: dict[int, dict[str, Any]] = {}
        for ids_in, part in self._dialect.in_parts(chunk_ids):
            for chunk_id, location in self._conn().execute(
                    f"SELECT id, location FROM chunks WHERE id {ids_in} AND location IS NOT NULL", part):
                out[int(chunk_id)] = dict(self._dialect.from_json(location))
        return out

    def chunk_ids_for_message(self, bank_id: int, source_id: int, message_id: str) -> list[int]:
        rows = self._conn().execute(
            f"SELECT id FROM chunks WHERE source_id = ? AND {self._dialect.json_has('message_ids')} "
            "ORDER BY position, id", (source_id, message_id),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def add_chunk(self, bank_id: int, source_id: int, position: int, sha256: str, text: str,
                  message_ids: list[str], location: dict[str, Any] | None = None) -> int:
        return self._dialect.insert_id(
            self._require_write(),
            "INSERT INTO chunks (bank_id, source_id, position, sha256, text, message_ids, location) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (bank_id, source_id, position, sha256, text, _dumps(message_ids),
             None if location is None else _dumps(location)),
        )

    def delete_chunks(self, bank_id: int, chunk_ids: Sequence[int]) -> int:
        """Delete chunks and every fact, index row and vector derived from them; returns facts removed."""
        conn = self._require_write()
        if not chunk_ids:
            return 0
        dim = int(conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0])
        parts = list(self._dialect.in_parts(chunk_ids))
        fact_ids = [int(r[0]) for ids_in, part in parts
                    for r in conn.execute(f"SELECT id FROM facts WHERE chunk_id {ids_in}", part)]
        # the versions these facts closed hold again, and lose the reason that quoted them (a
        # corrected message's old value would live on in "Springfield → Quixoteville")
        for ids_in, part in self._dialect.in_parts(fact_ids):
            conn.execute("UPDATE facts SET valid_to = NULL, superseded_by = NULL, supersede_reason = NULL "
                         f"WHERE superseded_by {ids_in}", part)
        self._drop_fact_indexes(conn, bank_id, dim, fact_ids)
        for ids_in, part in parts:
            conn.execute(f"DELETE FROM facts WHERE chunk_id {ids_in}", part)
            conn.execute(f"DELETE FROM chunks WHERE id {ids_in}", part)
        self.delete_orphan_entities(bank_id)
        return len(fact_ids)

    # -- facts -------------------------------------------------------------------------------
    def add_facts(self, bank_id: int, source_id: int, chunk_id: int, facts: Sequence[NewFact],
                  vectors: np.ndarray, context_vectors: Sequence[np.ndarray | None] | None = None) -> list[int]:
        conn = self._require_write()
        dim = int(conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0])
        ids = []
        now = time.time()
        contexts = list(context_vectors) if context_vectors is not None else [None] * len(facts)
        for fact, vector, context_vector in zip(facts, vectors, contexts):
            fact_id = self._dialect.insert_id(
                conn,
                "INSERT INTO facts (bank_id, source_id, chunk_id, text, kind, speaker, message_ids, occurred_start, "
                "occurred_end, mentioned_at, utc_offset, valid_from, importance, pinned, decay_class, expires_at, "
                "embed_hash, tokens, created_at, trust) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    bank_id, source_id, chunk_id, fact.text, fact.kind, fact.speaker, _dumps(fact.message_ids),
                    fact.occurred_start, fact.occurred_end, fact.mentioned_at, fact.utc_offset, fact.mentioned_at,
                    float(fact.importance), bool(fact.pinned), fact.decay_class, fact.expires_at,
                    hashlib.sha256(fact.embed_text.encode("utf-8")).hexdigest(), int(fact.tokens), now, fact.trust,
                ),
            )
            self._index_fact(conn, bank_id, dim, fact_id, fact.terms, fact.context_terms, vector, context_vector)
            ids.append(fact_id)
        if ids:
            self._facts_indexed(conn, bank_id, dim, len(ids))
        return ids

    def _fact_row(self, r: Any) -> FactRow:
        return FactRow(
            id=int(r[0]), bank_id=int(r[1]), source_id=int(r[2]), source_external_id=r[3], chunk_id=int(r[4]),
            text=r[5], kind=r[6], speaker=r[7], message_ids=list(self._dialect.from_json(r[8])),
            occurred_start=r[9], occurred_end=r[10], mentioned_at=r[11], utc_offset=r[12], valid_from=r[13],
            valid_to=r[14], importance=float(r[15]), pinned=bool(r[16]), decay_class=r[17], expires_at=r[18],
            tokens=int(r[19]), superseded_by=r[20], strength=float(r[21]), archived_at=r[22],
            created_at=float(r[23]), recall_count=int(r[24]), scope=self._scope(r[25], r[26], r[27], r[28]),
            metadata=dict(self._dialect.from_json(r[29])), trust=r[30],
        )

    def get_facts(self, bank_id: int, ids: Sequence[int]) -> list[FactRow]:
        conn = self._conn()
        found: dict[int, FactRow] = {}
        for ids_in, part in self._dialect.in_parts(ids):
            for r in conn.execute(
                f"SELECT {_FACT_COLUMNS} FROM facts f JOIN sources s ON s.id = f.source_id "
                f"WHERE f.bank_id = ? AND f.id {ids_in}", (bank_id, *part),
            ):
                found[int(r[0])] = self._fact_row(r)
        return [found[int(i)] for i in ids if int(i) in found]

    def bank_bytes(self, bank_id: int, dim: int) -> int:
        """About what a bank holds, in bytes: its messages', chunks' and facts' text (UTF-8) and one
        float32 vector per fact (indexes and a reply's second vector come on top)."""
        conn, total = self._conn(), 0
        for table in ("messages", "chunks", "facts"):
            size = self._dialect.octets.format("text")
            total += int(conn.execute(f"SELECT COALESCE(SUM({size}), 0) FROM {table} WHERE bank_id = ?",
                                      (bank_id,)).fetchone()[0])
        return total + self.count_facts(bank_id) * dim * 4

    def count_facts(self, bank_id: int) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM facts WHERE bank_id = ?", (bank_id,)).fetchone()[0])

    def iter_fact_ids(self, bank_id: int) -> Iterator[int]:
        # keyset pages: lazy, without holding a cursor or a transaction open between pages
        after = 0
        while True:
            page = [int(r[0]) for r in self._conn().execute(
                "SELECT id FROM facts WHERE bank_id = ? AND id > ? ORDER BY id LIMIT 1000", (bank_id, after))]
            yield from page
            if len(page) < 1000:
                return
            after = page[-1]
