"""``store.sources``: sources, their messages and their chunks, written once for both stores.

A source is one conversation or document retained into a bank, with the scope (user, agent,
session, tags) it was retained for; its messages and the chunks cut from it hang off it. Deleting
chunks deletes the facts derived from them, through the search area's index hooks and the graph
area's orphan sweep. Where a caller can see an order, the query states it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gieok.records import UNSCOPED, Message, Scope, SourceInfo
from gieok.store._area import Area, dumps, utc

__all__ = ["SQLSources", "Chunk"]


_SOURCE_COLUMNS = ("id, external_id, kind, {content}, metadata, created_at, updated_at, user_id, agent_id, session_id, "
                   "tags")


@dataclass(frozen=True)
class Chunk:
    id: int
    position: int
    sha256: str




class SQLSources(Area):
    """Sources, messages and chunks of a store's banks."""

    def row(self, bank_id: int, external_id: str) -> tuple[int, str] | None:
        row = self._conn().execute(
            "SELECT id, kind FROM sources WHERE bank_id = ? AND external_id = ?", (bank_id, external_id)
        ).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def upsert(self, bank_id: int, external_id: str, kind: str, content: str | None,
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
            (bank_id, external_id, kind, content, dumps(metadata or {}), now, now, scope.user_id, scope.agent_id,
             scope.session_id, dumps(list(scope.tags))),
        )
        row = conn.execute("SELECT id FROM sources WHERE bank_id = ? AND external_id = ?", (bank_id, external_id))
        source_id = int(row.fetchone()[0])
        conn.executemany("INSERT INTO source_tags (bank_id, source_id, tag) VALUES (?, ?, ?) "
                         "ON CONFLICT (bank_id, source_id, tag) DO NOTHING",
                         [(bank_id, source_id, tag) for tag in dict.fromkeys(scope.tags)])
        return source_id

    def scopes(self, source_ids: Sequence[int]) -> dict[int, Scope]:
        """The scope of each source, by row id."""
        out: dict[int, Scope] = {}
        for ids_in, part in self._dialect.in_parts(source_ids):
            for source_id, *scope in self._conn().execute(
                    f"SELECT id, user_id, agent_id, session_id, tags FROM sources WHERE id {ids_in}", part):
                out[int(source_id)] = self._scope(*scope)
        return out

    def of_user(self, bank_id: int, user_id: str) -> list[int]:
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
            id=external_id, bank=bank_name, kind=kind, created_at=utc(created), updated_at=utc(updated),
            messages=messages, text=content if with_content else None,
            metadata=dict(self._dialect.from_json(metadata)), scope=self._scope(*scope),
        )

    def get(self, bank_id: int, bank_name: str, external_id: str) -> SourceInfo | None:
        row = self._conn().execute(
            f"SELECT {_SOURCE_COLUMNS.format(content='content')} FROM sources WHERE bank_id = ? AND external_id = ?",
            (bank_id, external_id),
        ).fetchone()
        return self._source_info(row, bank_name, True) if row else None

    def all(self, bank_id: int, bank_name: str) -> list[SourceInfo]:
        rows = self._conn().execute(
            f"SELECT {_SOURCE_COLUMNS.format(content='NULL')} FROM sources WHERE bank_id = ? ORDER BY created_at, id",
            (bank_id,),
        ).fetchall()
        return [self._source_info(r, bank_name, False) for r in rows]

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

    def next_position(self, source_id: int) -> int:
        row = self._conn().execute("SELECT COALESCE(MAX(position), -1) FROM messages WHERE source_id = ?",
                                   (source_id,)).fetchone()
        return int(row[0]) + 1

    def add_message(self, bank_id: int, source_id: int, message: Message, position: int) -> None:
        self._require_write().execute(
            "INSERT INTO messages (bank_id, source_id, external_id, position, speaker, text, timestamp) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (bank_id, source_id, message.id, position, message.speaker, message.text, message.timestamp),
        )

    def set_message_text(self, bank_id: int, external_id: str, text: str) -> None:
        self._require_write().execute(
            "UPDATE messages SET text = ? WHERE bank_id = ? AND external_id = ?", (text, bank_id, external_id)
        )

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

    def chunks(self, source_id: int) -> list[Chunk]:
        rows = self._conn().execute(
            "SELECT id, position, sha256 FROM chunks WHERE source_id = ? ORDER BY position, id", (source_id,)
        ).fetchall()
        return [Chunk(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    def move_chunk(self, chunk_id: int, position: int, location: dict[str, Any] | None = None) -> None:
        """Move a kept chunk; ``location`` (an ingested document's) replaces the stored one when given."""
        if location is None:
            self._require_write().execute("UPDATE chunks SET position = ? WHERE id = ?", (position, chunk_id))
        else:
            self._require_write().execute("UPDATE chunks SET position = ?, location = ? WHERE id = ?",
                                          (position, dumps(location), chunk_id))

    def chunk_locations(self, chunk_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The location of each chunk that has one (an ingested document's), by chunk id."""
        out: dict[int, dict[str, Any]] = {}
        for ids_in, part in self._dialect.in_parts(chunk_ids):
            for chunk_id, location in self._conn().execute(
                    f"SELECT id, location FROM chunks WHERE id {ids_in} AND location IS NOT NULL", part):
                out[int(chunk_id)] = dict(self._dialect.from_json(location))
        return out

    def chunks_of_message(self, bank_id: int, source_id: int, message_id: str) -> list[int]:
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
            (bank_id, source_id, position, sha256, text, dumps(message_ids),
             None if location is None else dumps(location)),
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
        self._store.search._drop_fact_indexes(conn, bank_id, dim, fact_ids)
        for ids_in, part in parts:
            conn.execute(f"DELETE FROM facts WHERE chunk_id {ids_in}", part)
            conn.execute(f"DELETE FROM chunks WHERE id {ids_in}", part)
        self._store.graph.delete_orphans(bank_id)
        return len(fact_ids)
