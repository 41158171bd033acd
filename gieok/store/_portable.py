"""``store.portable``: a bank's rows, table by table, for export and import (issue #38).

Export walks each table of a bank in key order, a page at a time (keyset pagination: no cursor or
transaction is held between pages, so a bank of any size streams in constant memory). Import
inserts rows back, table by table, inside the caller's ``with store.write():``; a table with an
``id`` gets new ids (returned in order, so the caller can map the file's ids onto them). What a row
holds is described once, in :data:`TABLES`, and the SQL is written once for both databases through
the dialect (JSON columns decoded, booleans as booleans, text keys ordered byte-wise).

The keyword and vector indexes are not tables here: the facts' indexes are rebuilt through the
search area's own write hooks (:meth:`SQLPortable.index_facts`), as retain writes them, and their
keyword terms are read back by :meth:`gieok.store._search.SQLSearch.indexed_terms`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gieok.store._area import Area

__all__ = ["SQLPortable", "TABLES", "Table"]


@dataclass(frozen=True)
class Table:
    """One table as the portable area reads and writes it."""

    name: str
    columns: tuple[str, ...]  # in file order; ``id`` first for a table with its own ids
    key: tuple[str, ...]  # the order rows are read in (unique)
    json: tuple[str, ...] = ()
    bools: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()  # key columns that are text: compared and ordered byte-wise
    bank: str = "bank_id = ?"  # how a row belongs to a bank (tables without bank_id go through a parent)

    @property
    def has_id(self) -> bool:
        return self.columns[0] == "id"


_FACT_COLUMNS = ("id", "source_id", "chunk_id", "text", "kind", "speaker", "message_ids", "occurred_start",
                 "occurred_end", "mentioned_at", "utc_offset", "valid_from", "valid_to", "importance", "pinned",
                 "decay_class", "expires_at", "embed_hash", "tokens", "created_at", "superseded_by",
                 "supersede_reason", "strength", "recall_count", "last_recalled_at", "archived_at",
                 "consolidated_at", "consolidation_failed", "trust")

# record type -> table, in the order a bank is written out (a row only refers to rows before it,
# but for a fact's superseded_by, set once every fact is in)
TABLES: dict[str, Table] = {
    "source": Table("sources", ("id", "external_id", "kind", "content", "metadata", "user_id", "agent_id",
                                "session_id", "tags", "created_at", "updated_at"), ("id",), ("metadata", "tags")),
    "message": Table("messages", ("id", "source_id", "external_id", "position", "speaker", "text", "timestamp"),
                     ("id",)),
    "chunk": Table("chunks", ("id", "source_id", "position", "sha256", "text", "message_ids", "location"), ("id",),
                   ("message_ids", "location")),
    "fact": Table("facts", _FACT_COLUMNS, ("id",), ("message_ids",), ("pinned", "consolidation_failed")),
    "entity": Table("entities", ("id", "canonical_name", "kind", "aliases", "titles", "cooccurring", "last_seen"),
                    ("id",), ("aliases", "titles", "cooccurring")),
    "entity_key": Table("entity_keys", ("entity_id", "key"), ("entity_id", "key"), texts=("key",)),
    "mention": Table("mentions", ("fact_id", "entity_id", "surface"), ("fact_id", "entity_id"),
                     bank="fact_id IN (SELECT id FROM facts WHERE bank_id = ?)"),
    "link": Table("links", ("from_fact", "to_fact", "type", "weight"), ("from_fact", "to_fact", "type"),
                  texts=("type",)),
    "context_degree": Table("context_degrees", ("key", "degree"), ("key",), texts=("key",)),
    "observation": Table("observations", ("id", "entity_id", "topic", "text", "terms", "tokens", "history",
                                          "believed_at", "created_at", "updated_at", "user_id"), ("id",),
                         ("history",)),
    "observation_fact": Table("observation_facts", ("observation_id", "fact_id"), ("observation_id", "fact_id"),
                              bank="observation_id IN (SELECT id FROM observations WHERE bank_id = ?)"),
    "mental_model": Table("mental_models", ("id", "name", "question", "answer", "based_on", "refreshed_at",
                                            "created_at"), ("id",), ("based_on",)),
    "profile_slot": Table("profile_slots", ("fact_id", "person", "holder", "slot", "value", "relation", "negated",
                                            "said_at"), ("fact_id", "holder", "slot", "value"), (), ("negated",),
                          ("holder", "slot", "value")),
    "session_turn": Table("session_turns", ("session_id", "position", "role", "content", "tokens", "created_at",
                                            "user_id"), ("session_id", "position"), texts=("session_id",)),
    "session_state": Table("session_state", ("session_id", "summary", "folded_upto", "folds", "updated_at"),
                           ("session_id",), texts=("session_id",)),
    "held": Table("quarantine", ("id", "source_id", "chunk_id", "message_id", "speaker", "said_at", "text", "trust",
                                 "reason", "probability", "created_at"), ("id",)),
}


class SQLPortable(Area):
    """A bank's rows out (a page at a time, in key order) and back in (inside ``write()``)."""

    def pages(self, record: str, bank_id: int, page: int = 500) -> Iterator[list[dict[str, Any]]]:
        """The bank's rows of ``record``'s table in key order, ``page`` at a time, each a dict of
        :attr:`Table.columns` (JSON decoded, booleans as bool)."""
        table = TABLES[record]
        bytewise = self._dialect.bytewise
        key = ", ".join(f"{c}{bytewise}" if c in table.texts else c for c in table.key)
        after: tuple[Any, ...] | None = None
        while True:
            where, params = table.bank, [bank_id]
            if after is not None:
                where += f" AND ({key}) > ({', '.join('?' * len(after))})" if len(after) > 1 else f" AND {key} > ?"
                params += list(after)
            rows = self._conn().execute(
                f"SELECT {', '.join(table.columns)} FROM {table.name} WHERE {where} ORDER BY {key} LIMIT ?",
                (*params, int(page))).fetchall()
            if not rows:
                return
            out = [self._decode(table, row) for row in rows]
            yield out
            if len(rows) < page:
                return
            after = tuple(out[-1][c] for c in table.key)

    def _decode(self, table: Table, row: Sequence[Any]) -> dict[str, Any]:
        out = dict(zip(table.columns, row))
        for column in table.json:
            if out[column] is not None:
                out[column] = self._dialect.from_json(out[column])
        for column in table.bools:
            out[column] = bool(out[column])
        return out

    def observation_vectors(self, observation_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vector of each observation that has one."""
        out: dict[int, np.ndarray] = {}
        for ids_in, part in self._dialect.in_parts(observation_ids):
            for observation_id, blob in self._conn().execute(
                    f"SELECT id, embedding FROM observations WHERE embedding IS NOT NULL AND id {ids_in}", part):
                out[int(observation_id)] = np.frombuffer(bytes(blob), dtype=np.float32).copy()
        return out

    def insert(self, record: str, bank_id: int, rows: Sequence[dict[str, Any]]) -> list[int]:
        """Insert ``rows`` (dicts of the table's columns, references already mapped to this database's
        ids) into the bank; for a table with its own ids the file's ``id`` is ignored and the new ids are
        returned in order. A table without ``bank_id`` (mentions, observation facts) takes none."""
        conn = self._require_write()
        table = TABLES[record]
        columns = [c for c in table.columns if c != "id"]
        with_bank = table.bank == "bank_id = ?"
        names = (["bank_id"] if with_bank else []) + columns
        values = [((bank_id,) if with_bank else ()) + tuple(self._encode(table, c, row.get(c)) for c in columns)
                  for row in rows]
        if table.has_id:  # PostgreSQL copies a batch in one stream (Dialect.insert_rows)
            return self._dialect.insert_rows(conn, table.name, names, values)
        self._dialect.copy_rows(conn, table.name, names, values)
        return []

    def _encode(self, table: Table, column: str, value: Any) -> Any:
        if column in table.json and value is not None:
            return json.dumps(value, ensure_ascii=False)
        if column in table.bools:
            return bool(value)
        return value

    def set_superseded(self, pairs: Sequence[tuple[int, int]]) -> None:
        """Set each ``(fact, the fact that replaced it)`` of a bank just inserted."""
        self._require_write().executemany("UPDATE facts SET superseded_by = ? WHERE id = ?",
                                          [(int(new), int(old)) for old, new in pairs])

    def set_observation_vectors(self, rows: Sequence[tuple[int, np.ndarray]]) -> None:
        """Store each observation's vector (float32 bytes, as ``store.observations.save`` does)."""
        self._require_write().executemany(
            "UPDATE observations SET embedding = ? WHERE id = ?",
            [(np.asarray(v, dtype=np.float32).tobytes(), int(i)) for i, v in rows])

    def index_facts(self, bank_id: int,
                    rows: Sequence[tuple[int, Sequence[str], Sequence[str], np.ndarray, np.ndarray | None]]) -> None:
        """Index facts just inserted, as ``store.facts.add`` does: ``(fact id, keyword terms, context
        terms, vector, context vector or None)`` each."""
        conn = self._require_write()
        self._store.search._index_facts(conn, bank_id, self._bank_dim(conn, bank_id), rows)

    def rename(self, bank_id: int, name: str) -> None:
        """Give the bank another name (the caller checked that it is free); its audit log, kept by
        name, follows it."""
        conn = self._require_write()
        old = conn.execute("SELECT name FROM banks WHERE id = ?", (bank_id,)).fetchone()[0]
        conn.execute("UPDATE banks SET name = ? WHERE id = ?", (name, bank_id))
        conn.execute("UPDATE audit_log SET bank = ? WHERE bank = ?", (name, old))
