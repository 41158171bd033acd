"""Versions, decay, TTL and erasure queries of the PostgreSQL store (mixed into PostgresStore).

Erasure has the semantics of :mod:`gieok.store._lifecycle`: a hard delete of the facts with
everything derived from them (keyword rows, vectors, mentions and links go by ``ON DELETE
CASCADE``), the observations they supported, the jobs that name them, the mental-model answers that
cited them, and their text cut out of the verbatim evidence. The evidence is cut with the SQLite
store's own helper, so both stores leave the same ``[erased]`` marks.

The proof differs in one respect. ``scan_for`` searches every text, JSON and bytea column of every
table in the store's schema; ``vacuum`` runs ``VACUUM (FULL)`` on those tables, which rewrites them
without the dead rows. ``file_contains`` returns nothing: a server's data files, its write-ahead log
and its base backups are not this process's to read, so the PostgreSQL proof covers the tables,
not the raw files (WAL retention and backups are the operator's erasure policy).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gieok.errors import StoreError
from gieok.store._lifecycle import ERASED, _cut
from gieok.store._pg_connect import ints

__all__ = ["PgLifecycleQueries"]

_SCANNED_TYPES = ("text", "varchar", "bpchar", "json", "jsonb", "bytea")


class PgLifecycleQueries:
    """Needs ``_conn()``, ``_require_write()`` and ``delete_orphan_entities`` from the store."""

    _write_lock: Any
    _local: Any

    def _conn(self) -> Any: ...
    def _require_write(self) -> Any: ...
    def _writer_connection(self) -> Any: ...
    def delete_orphan_entities(self, bank_id: int) -> int:
        raise NotImplementedError  # provided by PgGraphQueries

    # -- versions ----------------------------------------------------------------------------
    def supersede(self, old_fact: int, new_fact: int, valid_to: float, reason: str) -> None:
        """Close ``old_fact`` at ``valid_to``: ``new_fact`` holds from then on. Nothing is deleted."""
        self._require_write().execute(
            "UPDATE facts SET valid_to = %s, superseded_by = %s, supersede_reason = %s WHERE id = %s",
            (valid_to, new_fact, reason, old_fact),
        )

    def version_chain(self, fact_id: int) -> list[int]:
        """Every version of the fact's statement, oldest first (following ``superseded_by``)."""
        conn = self._conn()
        chain = [fact_id]
        seen = {fact_id}
        current = fact_id
        while True:  # back: facts this one superseded
            row = conn.execute("SELECT id FROM facts WHERE superseded_by = %s "
                               "ORDER BY mentioned_at DESC NULLS LAST, id DESC LIMIT 1", (current,)).fetchone()
            if row is None or row[0] in seen:
                break
            current = int(row[0])
            seen.add(current)
            chain.insert(0, current)
        current = fact_id
        while True:  # forward: the fact that superseded this one
            row = conn.execute("SELECT superseded_by FROM facts WHERE id = %s", (current,)).fetchone()
            if row is None or row[0] is None or row[0] in seen:
                break
            current = int(row[0])
            seen.add(current)
            chain.append(current)
        return chain

    def lifecycle_of(self, fact_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Per fact: superseded_by, supersede_reason, strength, recall_count, last_recalled_at, archived_at,
        and ``supersedes`` (the ids it superseded)."""
        out: dict[int, dict[str, Any]] = {}
        if not fact_ids:
            return out
        conn = self._conn()
        ids = ints(fact_ids)
        for r in conn.execute(
            "SELECT id, superseded_by, supersede_reason, strength, recall_count, last_recalled_at, archived_at "
            "FROM facts WHERE id = ANY(%s::bigint[])", (ids,),
        ):
            out[int(r[0])] = {"superseded_by": r[1], "supersede_reason": r[2], "strength": float(r[3]),
                              "recall_count": int(r[4]), "last_recalled_at": r[5], "archived_at": r[6],
                              "supersedes": []}
        for old, new in conn.execute(
                "SELECT id, superseded_by FROM facts WHERE superseded_by = ANY(%s::bigint[]) ORDER BY id", (ids,)):
            out[int(new)]["supersedes"].append(int(old))
        return out

    # -- decay -------------------------------------------------------------------------------
    def touch_recalled(self, fact_ids: Sequence[int], at: float) -> None:
        """A recall used these facts: refresh their strength's clock."""
        conn = self._require_write()
        if fact_ids:
            conn.execute(
                "UPDATE facts SET recall_count = recall_count + 1, last_recalled_at = %s, strength = 1.0 "
                "WHERE id = ANY(%s::bigint[]) AND archived_at IS NULL", (float(at), ints(fact_ids)),
            )

    def decay_rows(self, bank_id: int, after_id: int, limit: int) -> list[tuple[int, str, bool, float | None, float, int, float | None]]:
        """(id, decay_class, pinned, mentioned_at, created_at, recall_count, last_recalled_at) of unarchived facts."""
        rows = self._conn().execute(
            "SELECT id, decay_class, pinned, mentioned_at, created_at, recall_count, last_recalled_at FROM facts "
            "WHERE bank_id = %s AND id > %s AND archived_at IS NULL ORDER BY id LIMIT %s", (bank_id, after_id, limit),
        ).fetchall()
        return [(int(r[0]), str(r[1]), bool(r[2]), r[3], float(r[4]), int(r[5]), r[6]) for r in rows]

    def set_strengths(self, updates: Sequence[tuple[int, float, float | None]]) -> None:
        """(fact id, strength, archived_at or None) for each fact."""
        conn = self._require_write()
        if updates:
            conn.execute(
                "UPDATE facts SET strength = u.s, archived_at = u.a FROM "
                "unnest(%s::bigint[], %s::float8[], %s::float8[]) AS u(i, s, a) WHERE facts.id = u.i",
                (ints([u[0] for u in updates]), [float(u[1]) for u in updates],
                 [None if u[2] is None else float(u[2]) for u in updates]),
            )

    def set_fact_class(self, fact_ids: Sequence[int], decay_class: str, importance: float, pinned: bool) -> None:
        conn = self._require_write()
        if fact_ids:
            conn.execute(
                "UPDATE facts SET decay_class = %s, importance = %s, pinned = %s, strength = 1.0, archived_at = NULL "
                "WHERE id = ANY(%s::bigint[])", (decay_class, float(importance), bool(pinned), ints(fact_ids)),
            )

    def expired_fact_ids(self, bank_id: int, now: float) -> list[int]:
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = %s AND expires_at IS NOT NULL AND expires_at <= %s ORDER BY id",
            (bank_id, float(now)),
        ).fetchall()
        return [int(r[0]) for r in rows]

    # -- selecting what to erase -------------------------------------------------------------
    def fact_ids_where(self, bank_id: int, *, source_row: int | None = None, message_id: str | None = None,
                       entity_ids: Sequence[int] = (), before: float | None = None) -> list[int]:
        conn = self._conn()
        ids: set[int] = set()
        if source_row is not None:
            ids |= {int(r[0]) for r in conn.execute("SELECT id FROM facts WHERE source_id = %s", (source_row,))}
        if message_id is not None:
            ids |= {int(r[0]) for r in conn.execute(
                "SELECT id FROM facts WHERE bank_id = %s AND message_ids @> jsonb_build_array(%s::text)",
                (bank_id, message_id))}
        if entity_ids:
            ids |= {int(r[0]) for r in conn.execute(
                "SELECT fact_id FROM mentions WHERE entity_id = ANY(%s::bigint[])", (ints(entity_ids),))}
        if before is not None:
            ids |= {int(r[0]) for r in conn.execute(
                "SELECT id FROM facts WHERE bank_id = %s AND COALESCE(mentioned_at, created_at) < %s",
                (bank_id, float(before)))}
        return sorted(ids)

    def message_rows_where(self, bank_id: int, *, message_id: str | None = None,
                           before_iso: str | None = None) -> list[tuple[int, int, str]]:
        """(message row id, source row id, external id) of messages named by id or said before a time."""
        conn = self._conn()
        rows: list[Any] = []
        if message_id is not None:
            rows += conn.execute("SELECT id, source_id, external_id FROM messages WHERE bank_id = %s AND external_id = %s",
                                 (bank_id, message_id)).fetchall()
        if before_iso is not None:
            # message timestamps are stored as ISO 8601; compare as instants (see gieok_instant)
            rows += conn.execute(
                "SELECT id, source_id, external_id FROM messages WHERE bank_id = %s AND timestamp IS NOT NULL "
                "AND gieok_instant(timestamp) < gieok_instant(%s)", (bank_id, before_iso)).fetchall()
        return sorted({(int(a), int(b), str(c)) for a, b, c in rows})

    def following_message_facts(self, message_rows: Sequence[int]) -> list[int]:
        """Facts of the message right after each given one in its conversation (their embedding and
        keyword context were built from the message before them)."""
        out: set[int] = set()
        conn = self._conn()
        for row_id in message_rows:
            nxt = conn.execute(
                "SELECT n.external_id, n.source_id FROM messages m JOIN messages n ON n.source_id = m.source_id "
                "AND n.position > m.position WHERE m.id = %s ORDER BY n.position LIMIT 1", (row_id,),
            ).fetchone()
            if nxt:
                out |= {int(r[0]) for r in conn.execute(
                    "SELECT id FROM facts WHERE source_id = %s AND message_ids @> jsonb_build_array(%s::text)",
                    (nxt[1], nxt[0]))}
        return sorted(out)

    def message_texts(self, message_rows: Sequence[int]) -> list[str]:
        if not message_rows:
            return []
        return [str(r[0]) for r in self._conn().execute(
            "SELECT text FROM messages WHERE id = ANY(%s::bigint[]) ORDER BY id", (ints(message_rows),))]

    def source_texts(self, source_rows: Sequence[int]) -> list[str]:
        """Document text and message texts of whole sources."""
        out: list[str] = []
        conn = self._conn()
        for source_id in source_rows:
            row = conn.execute("SELECT content FROM sources WHERE id = %s", (source_id,)).fetchone()
            if row and row[0]:
                out.append(str(row[0]))
            out += [str(r[0]) for r in conn.execute(
                "SELECT text FROM messages WHERE source_id = %s ORDER BY position", (source_id,))]
        return out

    # -- erasing -----------------------------------------------------------------------------
    def erase_facts(self, bank_id: int, dim: int, fact_ids: Sequence[int],
                    message_rows: Sequence[int] = (), source_rows: Sequence[int] = ()) -> dict[str, int]:
        """Hard-delete facts (and named messages and sources) with everything derived from them."""
        conn = self._require_write()
        counts = {"facts": 0, "messages": 0, "chunks": 0, "sources": 0, "observations": 0, "jobs": 0,
                  "mental_models": 0, "versions_reopened": 0, "entities": 0}
        facts = conn.execute(
            "SELECT id, source_id, chunk_id, text FROM facts WHERE bank_id = %s AND id = ANY(%s::bigint[]) ORDER BY id",
            (bank_id, sorted({int(i) for i in fact_ids}))).fetchall()
        ids = [int(f[0]) for f in facts]
        dropped_observations: set[str] = set()
        if ids:
            # observations built on an erased fact go too (their text quotes it); the rest of their
            # support is queued for consolidation again
            obs = [int(r[0]) for r in conn.execute(
                "SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id = ANY(%s::bigint[]) "
                "ORDER BY observation_id", (ids,))]
            dropped_observations = {f"o-{o}" for o in obs}
            if obs:
                conn.execute("UPDATE facts SET consolidated_at = NULL WHERE id IN "
                             "(SELECT fact_id FROM observation_facts WHERE observation_id = ANY(%s::bigint[]))", (obs,))
                counts["observations"] = conn.execute(
                    "DELETE FROM observations WHERE id = ANY(%s::bigint[])", (obs,)).rowcount
            counts["versions_reopened"] = conn.execute(
                "UPDATE facts SET valid_to = NULL, superseded_by = NULL, supersede_reason = NULL "
                "WHERE superseded_by = ANY(%s::bigint[])", (ids,)).rowcount
            # keyword rows, vectors, mentions, links and observation links go by ON DELETE CASCADE
            conn.execute("DELETE FROM facts WHERE id = ANY(%s::bigint[])", (ids,))
        counts["facts"] = len(ids)
        counts["jobs"] = self._drop_jobs_naming(conn, bank_id, set(ids))
        counts["mental_models"] = self._clear_models_citing(conn, bank_id, {f"f-{i}" for i in ids} | dropped_observations)
        # the evidence: cut the erased facts' text out of chunks, messages and documents
        by_chunk: dict[int, list[str]] = {}
        by_source: dict[int, list[str]] = {}
        for _id, source, chunk, text in facts:
            by_chunk.setdefault(int(chunk), []).append(str(text))
            by_source.setdefault(int(source), []).append(str(text))
        for chunk_id, texts in by_chunk.items():
            counts["chunks"] += self._cut_from_chunk(conn, chunk_id, texts)
        for source_id, texts in by_source.items():
            row = conn.execute("SELECT content FROM sources WHERE id = %s", (source_id,)).fetchone()
            if row and row[0]:
                conn.execute("UPDATE sources SET content = %s WHERE id = %s", (_cut(row[0], texts), source_id))
        for row_id in message_rows:
            conn.execute("DELETE FROM chunks c USING messages m WHERE m.id = %s AND c.source_id = m.source_id "
                         "AND c.message_ids @> jsonb_build_array(m.external_id)", (row_id,))
            counts["messages"] += conn.execute("DELETE FROM messages WHERE id = %s", (row_id,)).rowcount
        for source_id in source_rows:
            counts["chunks"] += conn.execute("SELECT COUNT(*) FROM chunks WHERE source_id = %s", (source_id,)).fetchone()[0]
            counts["messages"] += conn.execute("SELECT COUNT(*) FROM messages WHERE source_id = %s",
                                               (source_id,)).fetchone()[0]
            counts["sources"] += conn.execute("DELETE FROM sources WHERE id = %s", (source_id,)).rowcount
        for source_id in set(by_source) - set(source_rows):
            empty = conn.execute(
                "SELECT NOT EXISTS (SELECT 1 FROM messages WHERE source_id = %s) AND NOT EXISTS "
                "(SELECT 1 FROM chunks WHERE source_id = %s)", (source_id, source_id)).fetchone()[0]
            if empty:
                counts["sources"] += conn.execute("DELETE FROM sources WHERE id = %s", (source_id,)).rowcount
        counts["entities"] = self.delete_orphan_entities(bank_id)
        return counts

    def _cut_from_chunk(self, conn: Any, chunk_id: int, texts: list[str]) -> int:
        """Cut ``texts`` out of a chunk and its messages; delete what is left empty. Returns chunks deleted."""
        row = conn.execute("SELECT text, message_ids, source_id FROM chunks WHERE id = %s", (chunk_id,)).fetchone()
        if row is None:
            return 0
        text, message_ids, source_id = row
        remaining = conn.execute("SELECT COUNT(*) FROM facts WHERE chunk_id = %s", (chunk_id,)).fetchone()[0]
        cut = _cut(text, texts)
        empty = remaining == 0 and not cut.replace(ERASED, "").strip(" \n\t.,!?")
        for message in message_ids:
            mrow = conn.execute("SELECT id, text FROM messages WHERE source_id = %s AND external_id = %s",
                                (source_id, message)).fetchone()
            if mrow is None:
                continue
            if empty:
                conn.execute("DELETE FROM messages WHERE id = %s", (mrow[0],))
            else:
                conn.execute("UPDATE messages SET text = %s WHERE id = %s", (_cut(mrow[1], texts), mrow[0]))
        if empty:
            conn.execute("DELETE FROM chunks WHERE id = %s", (chunk_id,))
            return 1
        conn.execute("UPDATE chunks SET text = %s WHERE id = %s", (cut, chunk_id))
        return 0

    def _drop_jobs_naming(self, conn: Any, bank_id: int, fact_ids: set[int]) -> int:
        dropped = 0
        if not fact_ids:
            return 0
        for job_id, payload in conn.execute(
            "SELECT id, payload FROM jobs WHERE bank_id = %s AND status IN ('queued', 'running', 'failed') ORDER BY id",
            (bank_id,),
        ).fetchall():
            named = set(payload.get("fact_ids", []))
            if named & fact_ids:
                left = sorted(named - fact_ids)
                if left:
                    conn.execute("UPDATE jobs SET payload = %s::json WHERE id = %s",
                                 (json.dumps({**payload, "fact_ids": left}), job_id))
                else:
                    conn.execute("DELETE FROM jobs WHERE id = %s", (job_id,))
                dropped += 1
        return dropped

    def clear_models_citing(self, bank_id: int, memory_ids: set[str]) -> int:
        return self._clear_models_citing(self._require_write(), bank_id, memory_ids)

    def _clear_models_citing(self, conn: Any, bank_id: int, memory_ids: set[str]) -> int:
        cleared = 0
        for model_id, based_on in conn.execute(
            "SELECT id, based_on FROM mental_models WHERE bank_id = %s AND answer IS NOT NULL ORDER BY id", (bank_id,)
        ).fetchall():
            if set(based_on) & memory_ids:
                conn.execute("UPDATE mental_models SET answer = NULL, based_on = '[]', refreshed_at = NULL WHERE id = %s",
                             (model_id,))
                cleared += 1
        return cleared

    def scrub_context_keys(self, bank_id: int, keys: Sequence[str]) -> None:
        """Remove names of erased entities from other entities' co-occurrence counts."""
        if not keys:
            return
        conn = self._require_write()
        doomed = set(keys)
        for entity_id, counts in conn.execute(
                "SELECT id, cooccurring FROM entities WHERE bank_id = %s ORDER BY id", (bank_id,)).fetchall():
            kept = {k: v for k, v in counts.items() if k not in doomed and k.split(" ")[0] not in doomed}
            if len(kept) != len(counts):
                conn.execute("UPDATE entities SET cooccurring = %s::json WHERE id = %s",
                             (json.dumps(kept, ensure_ascii=False), entity_id))
        conn.execute("DELETE FROM context_degrees WHERE bank_id = %s AND key = ANY(%s::text[])", (bank_id, list(keys)))

    # -- proof -------------------------------------------------------------------------------
    def _scanned_columns(self, conn: Any) -> list[tuple[str, str, str]]:
        """(table, column, type) of every text, JSON and bytea column of the schema's tables."""
        rows = conn.execute(
            "SELECT c.relname, a.attname, t.typname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid "
            "JOIN pg_type t ON t.oid = a.atttypid "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'm') AND a.attnum > 0 "
            "AND NOT a.attisdropped AND t.typname = ANY(%s::text[]) ORDER BY c.relname, a.attnum",
            (list(_SCANNED_TYPES),),
        ).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]

    def scan_for(self, needles: Sequence[str]) -> list[dict[str, Any]]:
        """Where any needle still appears: every text, JSON and bytea column (as UTF-8 bytes) of every
        table in the store's schema, keyword and vector tables included. Returns [{needle, table, column, rows}]."""
        from psycopg import sql

        needles = list(needles)
        if not needles:
            return []
        conn = self._conn()
        found: list[dict[str, Any]] = []
        for table, column, typ in self._scanned_columns(conn):
            col = sql.Identifier(column)
            if typ == "bytea":
                test = sql.SQL("position(convert_to({n}, 'UTF8') IN {c}) > 0")
            else:
                test = sql.SQL("strpos({c}::text, {n}) > 0")
            counts = sql.SQL(", ").join(
                sql.SQL("count(*) FILTER (WHERE {})").format(test.format(c=col, n=sql.Literal(n))) for n in needles)
            row = conn.execute(sql.SQL("SELECT {} FROM {}").format(counts, sql.Identifier(table))).fetchone()
            for needle, n in zip(needles, row):
                if n:
                    found.append({"needle": needle, "table": table, "column": column, "rows": int(n)})
        return found

    def vacuum(self) -> None:
        """``VACUUM (FULL)`` every table of the schema: rewritten without dead rows, so erased text is
        no longer in the table files. Runs outside any transaction, on the write connection."""
        from psycopg import sql

        with self._write_lock:
            if getattr(self._local, "in_write", False):
                raise StoreError("vacuum cannot run inside `with store.write():`")
            conn = self._writer_connection()
            tables = [str(r[0]) for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname")]
            if tables:
                conn.execute(sql.SQL("VACUUM (FULL) {}").format(sql.SQL(", ").join(map(sql.Identifier, tables))))

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        """Always empty: the PostgreSQL proof covers the tables (:meth:`scan_for` after :meth:`vacuum`),
        not the server's raw data files or WAL, which this process cannot read."""
        return []
