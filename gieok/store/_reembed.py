"""``store.reembed``: re-embedding a bank into another embedder, written once for both stores
(see :mod:`gieok.engine.jobs.reembed`).

While a bank is re-embedded it keeps serving recall from its live vectors; the new ones are staged
beside them (``reembed_facts``: a fact's own vector and a reply's context vector; and
``reembed_observations``, with the hash of the text each embeds), in batches each committed on its
own, so a job stopped midway resumes at the first fact without a staged row. ``reembeds`` names the
bank's target (embedder and dimension): staging for another target starts from nothing.

What is staged never outlives its source: a staged row goes with its fact or observation (``ON DELETE
CASCADE``), a reply whose context was erased loses its staged context vector too
(``store.search.clear_context``), and :meth:`SQLReembed.stage_facts` stages nothing for a fact erased meanwhile,
nor a context vector its fact no longer has. :meth:`SQLReembed.swap` then, in one transaction, moves
the staged vectors into the live tables (the search area's hook ``_swap_fact_vectors``: sqlite-vec's
tables or pgvector's), sets the bank's embedder and dimension, and clears the staging.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from gieok.records import Message
from gieok.store._area import Area

__all__ = ["SQLReembed"]


class SQLReembed(Area):
    """Re-embedding a bank: staged vectors and the swap."""

    def target(self, bank_id: int) -> tuple[str, int] | None:
        """The embedder and dimension the bank's vectors are being staged for, or None."""
        row = self._conn().execute("SELECT embedder, dim FROM reembeds WHERE bank_id = ?", (bank_id,)).fetchone()
        return (str(row[0]), int(row[1])) if row else None

    def start(self, bank_id: int, embedder: str, dim: int) -> int:
        """In a write: make ``embedder`` (of ``dim``) the bank's target. What was staged for the same
        target is kept (a resumed job skips it), for another one dropped. Returns the facts staged."""
        conn = self._require_write()
        if self.target(bank_id) != (embedder, int(dim)):
            self.clear(bank_id)
            conn.execute("INSERT INTO reembeds (bank_id, embedder, dim, started_at) VALUES (?, ?, ?, ?)",
                         (bank_id, embedder, int(dim), time.time()))
        return self.count_staged(bank_id)

    def clear(self, bank_id: int) -> int:
        """In a write: drop the bank's target and everything staged for it; returns the facts dropped."""
        conn = self._require_write()
        dropped = int(conn.execute("DELETE FROM reembed_facts WHERE bank_id = ?", (bank_id,)).rowcount)
        conn.execute("DELETE FROM reembed_observations WHERE bank_id = ?", (bank_id,))
        conn.execute("DELETE FROM reembeds WHERE bank_id = ?", (bank_id,))
        return dropped

    def count_staged(self, bank_id: int) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM reembed_facts WHERE bank_id = ?",
                                        (bank_id,)).fetchone()[0])

    def unstaged_facts(self, bank_id: int, after: int, limit: int) -> list[tuple[int, str]]:
        """Up to ``limit`` facts after id ``after`` that have no staged vector yet, by id, each with
        its ``embed_hash`` (the SHA-256 of the text retain embedded)."""
        rows = self._conn().execute(
            "SELECT f.id, f.embed_hash FROM facts f WHERE f.bank_id = ? AND f.id > ? AND NOT EXISTS "
            "(SELECT 1 FROM reembed_facts r WHERE r.bank_id = f.bank_id AND r.fact_id = f.id) ORDER BY f.id LIMIT ?",
            (bank_id, int(after), int(limit))).fetchall()
        return [(int(r[0]), str(r[1])) for r in rows]

    def previous_messages(self, bank_id: int, message_ids: Sequence[str]) -> dict[str, Message]:
        """For each message id, the message stored right before it in its conversation (the one a
        reply answers: retain embedded a short reply with it); ids without one are left out."""
        out: dict[str, Message] = {}
        conn = self._conn()
        for ids_in, part in self._dialect.in_parts(message_ids, text=True):
            for ext, *previous in conn.execute(
                    "SELECT m.external_id, p.external_id, p.speaker, p.text, p.timestamp FROM messages m "
                    "JOIN messages p ON p.source_id = m.source_id AND p.position = (SELECT MAX(q.position) "
                    "FROM messages q WHERE q.source_id = m.source_id AND q.position < m.position) "
                    f"WHERE m.bank_id = ? AND m.external_id {ids_in}", (bank_id, *part)):
                out[str(ext)] = Message(previous[0], previous[1] or "", previous[2], previous[3])
        return out

    def chunk_texts(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """Each chunk's text, by chunk id."""
        out: dict[int, str] = {}
        for ids_in, part in self._dialect.in_parts(chunk_ids):
            for chunk_id, text in self._conn().execute(f"SELECT id, text FROM chunks WHERE id {ids_in}", part):
                out[int(chunk_id)] = str(text)
        return out

    def stage_facts(self, bank_id: int, rows: Sequence[tuple[int, np.ndarray, np.ndarray | None]]) -> int:
        """In a write: stage ``(fact id, vector, context vector or None)`` for the bank's target. A
        fact erased since it was read is skipped, and so is a context vector its fact no longer has
        (the message it answered was erased). Returns the facts staged."""
        conn = self._require_write()
        live_context = self._store.search.vectors_of(
            self._bank_dim(conn, bank_id), [r[0] for r in rows if r[2] is not None], "context")
        vector, staged = self._dialect.vector, 0
        for fact_id, own, context in rows:
            keep = context if int(fact_id) in live_context else None
            staged += int(conn.execute(
                f"INSERT INTO reembed_facts (bank_id, fact_id, embedding, context_embedding) SELECT ?, f.id, {vector}, "
                f"{vector} FROM facts f WHERE f.id = ? AND f.bank_id = ? ON CONFLICT (bank_id, fact_id) DO UPDATE "
                "SET embedding = excluded.embedding, context_embedding = excluded.context_embedding",
                (bank_id, self._dialect.vector_value(own), self._dialect.vector_value(keep), int(fact_id),
                 bank_id)).rowcount)
        return staged

    def observation_hashes(self, bank_id: int) -> dict[int, str | None]:
        """Every observation of the bank with the text hash of its staged vector (None: not staged)."""
        rows = self._conn().execute(
            "SELECT o.id, r.text_hash FROM observations o LEFT JOIN reembed_observations r ON r.bank_id = o.bank_id "
            "AND r.observation_id = o.id WHERE o.bank_id = ? ORDER BY o.id", (bank_id,)).fetchall()
        return {int(r[0]): (str(r[1]) if r[1] is not None else None) for r in rows}

    def stage_observations(self, bank_id: int, rows: Sequence[tuple[int, str, np.ndarray]]) -> int:
        """In a write: stage ``(observation id, hash of the text embedded, vector)``; an observation
        deleted since it was read is skipped. Returns the observations staged."""
        conn = self._require_write()
        staged = 0
        for observation_id, text_hash, vector in rows:
            staged += int(conn.execute(
                "INSERT INTO reembed_observations (bank_id, observation_id, text_hash, embedding) SELECT ?, o.id, ?, ? "
                "FROM observations o WHERE o.id = ? AND o.bank_id = ? ON CONFLICT (bank_id, observation_id) DO UPDATE "
                "SET text_hash = excluded.text_hash, embedding = excluded.embedding",
                (bank_id, text_hash, np.asarray(vector, dtype=np.float32).tobytes(), int(observation_id),
                 bank_id)).rowcount)
        return staged

    def swap(self, bank_id: int, embedder: str, dim: int) -> dict[str, int]:
        """In a write: the staged vectors become the bank's — the old ones are deleted, the staged
        ones moved into the live tables of ``dim`` (the store's approximate index reset and, for a
        large bank, trained again), every observation takes its staged vector (one without gets none),
        the bank's embedder and dimension are set and the staging is cleared. The caller stages every
        fact and observation first (:func:`gieok.engine.jobs.reembed`). Returns what moved."""
        conn = self._require_write()
        old_dim = self._bank_dim(conn, bank_id)
        counts = self._store.search._swap_fact_vectors(conn, bank_id, old_dim, int(dim))
        counts["observations"] = int(conn.execute(
            "UPDATE observations SET embedding = (SELECT r.embedding FROM reembed_observations r WHERE r.bank_id = "
            "observations.bank_id AND r.observation_id = observations.id) WHERE bank_id = ?", (bank_id,)).rowcount)
        conn.execute("UPDATE banks SET embedder = ?, dim = ? WHERE id = ?", (embedder, int(dim), bank_id))
        self.clear(bank_id)
        return counts
