"""``store.facts``: adding and reading facts, written once for both stores.

Adding facts indexes them through the search area's hook ``_index_facts`` (PostgreSQL copies many
rows in one stream, see ``Dialect.insert_rows``).
What happens to a fact later has its own areas: ``store.versions`` (supersede, decay, TTL),
``store.erasure`` (hard delete), ``store.graph`` (entities and links).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from gieok.records import FactRow, NewFact, ScopeFilter
from gieok.store._area import Area, dumps
from gieok.store._scopes import sources_in_scope

__all__ = ["SQLFacts"]


_FACT_COLUMNS = (
    "f.id, f.bank_id, f.source_id, s.external_id, f.chunk_id, f.text, f.kind, f.speaker, f.message_ids, "
    "f.occurred_start, f.occurred_end, f.mentioned_at, f.utc_offset, f.valid_from, f.valid_to, "
    "f.importance, f.pinned, f.decay_class, f.expires_at, f.tokens, f.superseded_by, f.strength, f.archived_at, "
    "f.created_at, f.recall_count, s.user_id, s.agent_id, s.session_id, s.tags, s.metadata, f.trust"
)
_INSERT_COLUMNS = ("bank_id", "source_id", "chunk_id", "text", "kind", "speaker", "message_ids", "occurred_start",
                   "occurred_end", "mentioned_at", "utc_offset", "valid_from", "importance", "pinned", "decay_class",
                   "expires_at", "embed_hash", "tokens", "created_at", "trust")



class SQLFacts(Area):
    """The facts of a store's banks: add, read, count, walk."""

    def add(self, bank_id: int, source_id: int, chunk_id: int, facts: Sequence[NewFact],
            vectors: np.ndarray, context_vectors: Sequence[np.ndarray | None] | None = None) -> list[int]:
        conn = self._require_write()
        dim = int(conn.execute("SELECT dim FROM banks WHERE id = ?", (bank_id,)).fetchone()[0])
        now = time.time()
        ids = self._dialect.insert_rows(conn, "facts", _INSERT_COLUMNS, [(
            bank_id, source_id, chunk_id, fact.text, fact.kind, fact.speaker, dumps(fact.message_ids),
            fact.occurred_start, fact.occurred_end, fact.mentioned_at, fact.utc_offset, fact.mentioned_at,
            float(fact.importance), bool(fact.pinned), fact.decay_class, fact.expires_at,
            hashlib.sha256(fact.embed_text.encode("utf-8")).hexdigest(), int(fact.tokens), now, fact.trust,
        ) for fact in facts])
        contexts = list(context_vectors) if context_vectors is not None else [None] * len(facts)
        self._store.search._index_facts(conn, bank_id, dim, [
            (fact_id, fact.terms, fact.context_terms, vector, context)
            for fact_id, fact, vector, context in zip(ids, facts, vectors, contexts)])
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

    def get(self, bank_id: int, ids: Sequence[int]) -> list[FactRow]:
        conn = self._conn()
        found: dict[int, FactRow] = {}
        for ids_in, part in self._dialect.in_parts(ids):
            for r in conn.execute(
                f"SELECT {_FACT_COLUMNS} FROM facts f JOIN sources s ON s.id = f.source_id "
                f"WHERE f.bank_id = ? AND f.id {ids_in}", (bank_id, *part),
            ):
                found[int(r[0])] = self._fact_row(r)
        return [found[int(i)] for i in ids if int(i) in found]

    def count(self, bank_id: int) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM facts WHERE bank_id = ?", (bank_id,)).fetchone()[0])

    def last_id(self, bank_id: int) -> int:
        """The bank's greatest fact id (0: none), one read of the ``(bank_id, id)`` index: a watermark,
        so that a later :meth:`newer_than` tells which facts were written since. Per bank, not per
        store: PostgreSQL draws ids from one sequence, so a store-wide maximum could be another bank's
        fact committed while a fact of this bank with a lower id was still being written; writers of
        one bank hold its lock, so none of this bank's facts commits below its maximum."""
        return int(self._conn().execute("SELECT COALESCE(MAX(id), 0) FROM facts WHERE bank_id = ?",
                                        (bank_id,)).fetchone()[0])

    def newer_than(self, bank_id: int, after_id: int) -> list[int]:
        """The bank's facts with an id above ``after_id`` (a :meth:`last_id` read earlier), in id order:
        a range read of the primary key, as long as what was written since."""
        return [int(r[0]) for r in self._conn().execute(
            "SELECT id FROM facts WHERE id > ? AND bank_id = ? ORDER BY id", (int(after_id), bank_id))]

    def ids(self, bank_id: int) -> Iterator[int]:
        # keyset pages: lazy, without holding a cursor or a transaction open between pages
        after = 0
        while True:
            page = [int(r[0]) for r in self._conn().execute(
                "SELECT id FROM facts WHERE bank_id = ? AND id > ? ORDER BY id LIMIT 1000", (bank_id, after))]
            yield from page
            if len(page) < 1000:
                return
            after = page[-1]

    def recent_of_source(self, source_id: int, limit: int) -> list[tuple[int, float | None]]:
        rows = self._conn().execute(
            "SELECT id, mentioned_at FROM facts WHERE source_id = ? ORDER BY id DESC LIMIT ?", (source_id, limit)
        ).fetchall()
        return [(int(r[0]), r[1]) for r in rows]

    def in_range(self, bank_id: int, start: float, end: float, limit: int,
                 scope: ScopeFilter | None = None) -> list[tuple[int, float, float]]:
        """Facts (in ``scope``) whose occurred range (or, without one, the time they were said) overlaps
        [start, end); returns (fact id, range start, range end)."""
        in_scope, scope_params = sources_in_scope(scope, bank_id, "source_id")
        rows = self._conn().execute(
            "SELECT id, COALESCE(occurred_start, mentioned_at), COALESCE(occurred_end, occurred_start, mentioned_at) "
            "FROM facts WHERE bank_id = ? AND COALESCE(occurred_start, mentioned_at) < ? "
            f"AND COALESCE(occurred_end, occurred_start, mentioned_at) >= ?{in_scope} "
            "ORDER BY occurred_start IS NOT NULL, occurred_start, id LIMIT ?",
            (bank_id, float(end), float(start), *scope_params, int(limit)),
        ).fetchall()
        return [(int(r[0]), float(r[1]), float(r[2])) for r in rows]
