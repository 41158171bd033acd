"""``store.erasure``: selecting what to erase and erasing it, written once for both stores.

Erasure is a hard delete with cascade. :meth:`SQLErasure.erase` removes the facts, their keyword
and vector index rows (the search area's ``_drop_fact_indexes`` hook; PostgreSQL's go by ``ON
DELETE CASCADE``), mentions and links (foreign keys), the observations they supported, the jobs that
name them, the mental-model answers that cited them, and cuts their text out of the verbatim
evidence (message, chunk and document text) — or deletes that evidence outright when nothing else
is left in it. Both stores leave the same ``[erased]`` marks.

What makes the deleted bytes go away, and the proof that they did (``scan``, ``vacuum``,
``checkpoint``, ``file_contains``), is each store's own subclass: SQLite zeroes freed pages
(``PRAGMA secure_delete``), merges FTS segments and scans every column and the file
(:mod:`gieok.store._sqlite_erasure`); PostgreSQL rewrites its tables and scans them
(:mod:`gieok.store._pg_erasure`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from gieok.ids import fact_memory_id, observation_memory_id
from gieok.store._area import Area

__all__ = ["SQLErasure", "ERASED"]


ERASED = "[erased]"


# columns whose values the store or engine chooses (never the caller's text)
_OWN_WORD_COLUMNS = (("schema_migrations", "name"), ("banks", "embedder"), ("sources", "kind"), ("facts", "kind"),
                     ("facts", "decay_class"), ("meta", "key"), ("audit_log", "operation"), ("audit_log", "type"),
                     ("audit_log", "action"), ("entities", "kind"), ("links", "type"), ("jobs", "kind"),
                     ("jobs", "status"), ("jobs", "claimed_by"), ("llm_usage", "operation"),
                     ("llm_usage", "provider"), ("llm_usage", "model"), ("api_keys", "role"))


def _json_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(map(str, value)) | {k for v in value.values() for k in _json_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _json_keys(v)}
    return set()


def _cut(text: str, pieces: Sequence[str]) -> str:
    for piece in sorted(pieces, key=len, reverse=True):
        if piece:
            text = text.replace(piece, ERASED)
    return text


class SQLErasure(Area):
    """Selecting what to erase, erasing it, and (in each store's subclass) proving it is gone."""

    def fact_ids(self, bank_id: int, *, source_row: int | None = None, message_id: str | None = None,
                 entity_ids: Sequence[int] = (), before: float | None = None) -> list[int]:
        conn = self._conn()
        ids: set[int] = set()
        if source_row is not None:
            ids |= {int(r[0]) for r in conn.execute("SELECT id FROM facts WHERE source_id = ?", (source_row,))}
        if message_id is not None:
            ids |= {int(r[0]) for r in conn.execute(
                f"SELECT id FROM facts WHERE bank_id = ? AND {self._dialect.json_has('message_ids')}",
                (bank_id, message_id))}
        for ids_in, part in self._dialect.in_parts(entity_ids):
            ids |= {int(r[0]) for r in conn.execute(f"SELECT fact_id FROM mentions WHERE entity_id {ids_in}", part)}
        if before is not None:
            ids |= {int(r[0]) for r in conn.execute(
                "SELECT id FROM facts WHERE bank_id = ? AND COALESCE(mentioned_at, created_at) < ?",
                (bank_id, float(before)))}
        return sorted(ids)

    def message_rows(self, bank_id: int, *, message_id: str | None = None,
                     before_iso: str | None = None) -> list[tuple[int, int, str]]:
        """(message row id, source row id, external id) of messages named by id or said before a time."""
        conn = self._conn()
        rows: list[Any] = []
        if message_id is not None:
            rows += conn.execute("SELECT id, source_id, external_id FROM messages "
                                 "WHERE bank_id = ? AND external_id = ?", (bank_id, message_id)).fetchall()
        if before_iso is not None:
            # message timestamps are stored as ISO 8601; compare them as instants
            instant = self._dialect.instant
            rows += conn.execute(
                "SELECT id, source_id, external_id FROM messages WHERE bank_id = ? AND timestamp IS NOT NULL "
                f"AND {instant}(timestamp) < {instant}(?)", (bank_id, before_iso)).fetchall()
        return sorted({(int(a), int(b), str(c)) for a, b, c in rows})

    def following_facts(self, message_rows: Sequence[int]) -> list[int]:
        """Facts of the message right after each given one in its conversation (their embedding and
        keyword context were built from the message before them)."""
        out: set[int] = set()
        conn = self._conn()
        for row_id in message_rows:
            nxt = conn.execute(
                "SELECT n.external_id, n.source_id FROM messages m JOIN messages n ON n.source_id = m.source_id "
                "AND n.position > m.position WHERE m.id = ? ORDER BY n.position LIMIT 1", (row_id,),
            ).fetchone()
            if nxt:
                out |= {int(r[0]) for r in conn.execute(
                    f"SELECT id FROM facts WHERE source_id = ? AND {self._dialect.json_has('message_ids')}",
                    (nxt[1], nxt[0]))}
        return sorted(out)

    def message_texts(self, message_rows: Sequence[int]) -> list[str]:
        out: list[str] = []
        for ids_in, part in self._dialect.in_parts(message_rows):
            out += [str(r[0]) for r in self._conn().execute(
                f"SELECT text FROM messages WHERE id {ids_in} ORDER BY id", part)]
        return out

    def source_texts(self, source_rows: Sequence[int]) -> list[str]:
        """Document text and message texts of whole sources."""
        out: list[str] = []
        conn = self._conn()
        for source_id in source_rows:
            row = conn.execute("SELECT content FROM sources WHERE id = ?", (source_id,)).fetchone()
            if row and row[0]:
                out.append(str(row[0]))
            out += [str(r[0]) for r in conn.execute(
                "SELECT text FROM messages WHERE source_id = ? ORDER BY position", (source_id,))]
        return out

    def erase(self, bank_id: int, dim: int, fact_ids: Sequence[int],
              message_rows: Sequence[int] = (), source_rows: Sequence[int] = ()) -> dict[str, int]:
        """Hard-delete facts (and named messages and sources) with everything derived from them."""
        conn = self._require_write()
        in_parts = self._dialect.in_parts
        counts = {"facts": 0, "messages": 0, "chunks": 0, "sources": 0, "observations": 0, "jobs": 0,
                  "mental_models": 0, "versions_reopened": 0, "entities": 0}
        facts: list[Any] = []
        for ids_in, part in in_parts(sorted({int(i) for i in fact_ids})):
            facts += conn.execute(
                f"SELECT id, source_id, chunk_id, text FROM facts WHERE bank_id = ? AND id {ids_in} ORDER BY id",
                (bank_id, *part)).fetchall()
        ids = [int(f[0]) for f in facts]
        touched_sources = self._source_external_ids(
            conn, {int(f[1]) for f in facts} | {int(s) for s in source_rows}
            | {int(r[0]) for row_id in message_rows
               for r in conn.execute("SELECT source_id FROM messages WHERE id = ?", (row_id,))})
        whole_sources = self._source_external_ids(conn, {int(s) for s in source_rows})
        # observations built on an erased fact go too (their text quotes it, or was rewritten from a
        # text that did); the rest of their support is queued for consolidation again
        obs: set[int] = self._observations_resting_on(conn, bank_id, set(ids), [str(f[3]) for f in facts])
        for ids_in, part in in_parts(ids):
            obs |= {int(r[0]) for r in conn.execute(
                f"SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id {ids_in}", part)}
        dropped_observations = {observation_memory_id(o) for o in obs}
        for obs_in, obs_part in in_parts(sorted(obs)):
            conn.execute("UPDATE facts SET consolidated_at = NULL WHERE id IN "
                         f"(SELECT fact_id FROM observation_facts WHERE observation_id {obs_in})", obs_part)
            counts["observations"] += conn.execute(f"DELETE FROM observations WHERE id {obs_in}", obs_part).rowcount
        for ids_in, part in in_parts(ids):
            counts["versions_reopened"] += conn.execute(
                "UPDATE facts SET valid_to = NULL, superseded_by = NULL, supersede_reason = NULL "
                f"WHERE superseded_by {ids_in}", part).rowcount
        # the dimension the bank has now: a reembed may have swapped it since the caller read the row
        self._store.search._drop_fact_indexes(conn, bank_id, self._bank_dim(conn, bank_id), ids)
        for ids_in, part in in_parts(ids):  # mentions, links, observation links, staged vectors go by cascade
            conn.execute(f"DELETE FROM facts WHERE id {ids_in}", part)
        counts["facts"] = len(ids)
        counts["jobs"] = self._drop_jobs_naming(conn, bank_id, set(ids))
        counts["jobs"] += self._drop_retain_payloads(conn, bank_id, touched_sources, whole_sources)
        counts["mental_models"] = self._store.models._clear_citing(conn, bank_id,
                                                            {fact_memory_id(i) for i in ids} | dropped_observations)
        # the evidence: cut the erased facts' text out of chunks, messages and documents
        by_chunk: dict[int, list[str]] = {}
        by_source: dict[int, list[str]] = {}
        for _id, source, chunk, text in facts:
            by_chunk.setdefault(int(chunk), []).append(str(text))
            by_source.setdefault(int(source), []).append(str(text))
        for chunk_id, texts in by_chunk.items():
            counts["chunks"] += self._cut_from_chunk(conn, chunk_id, texts)
        for source_id, texts in by_source.items():
            row = conn.execute("SELECT content FROM sources WHERE id = ?", (source_id,)).fetchone()
            if row and row[0]:
                conn.execute("UPDATE sources SET content = ? WHERE id = ?", (_cut(row[0], texts), source_id))
        names_message = self._dialect.json_has("c.message_ids", "m.external_id")
        for row_id in message_rows:
            conn.execute("DELETE FROM chunks WHERE id IN (SELECT c.id FROM chunks c, messages m "
                         f"WHERE m.id = ? AND c.source_id = m.source_id AND {names_message})", (row_id,))
            counts["messages"] += conn.execute("DELETE FROM messages WHERE id = ?", (row_id,)).rowcount
        for source_id in source_rows:
            for table in ("chunks", "messages"):
                counts[table] += int(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE source_id = ?",
                                                  (source_id,)).fetchone()[0])
            counts["sources"] += conn.execute("DELETE FROM sources WHERE id = ?", (source_id,)).rowcount
        for source_id in set(by_source) - set(source_rows):
            empty = conn.execute(
                "SELECT NOT EXISTS (SELECT 1 FROM messages WHERE source_id = ?) AND NOT EXISTS "
                "(SELECT 1 FROM chunks WHERE source_id = ?)", (source_id, source_id)).fetchone()[0]
            if empty:
                counts["sources"] += conn.execute("DELETE FROM sources WHERE id = ?", (source_id,)).rowcount
        counts["entities"] = self._store.graph.delete_orphans(bank_id)
        return counts

    def _cut_from_chunk(self, conn: Any, chunk_id: int, texts: list[str]) -> int:
        """Cut ``texts`` out of a chunk and its messages; delete what is left empty. Returns chunks deleted."""
        row = conn.execute("SELECT text, message_ids, source_id FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        if row is None:
            return 0
        text, message_ids, source_id = row
        remaining = conn.execute("SELECT COUNT(*) FROM facts WHERE chunk_id = ?", (chunk_id,)).fetchone()[0]
        cut = _cut(text, texts)
        empty = remaining == 0 and not cut.replace(ERASED, "").strip(" \n\t.,!?")
        for message in self._dialect.from_json(message_ids):
            mrow = conn.execute("SELECT id, text FROM messages WHERE source_id = ? AND external_id = ?",
                                (source_id, message)).fetchone()
            if mrow is None:
                continue
            if empty:
                conn.execute("DELETE FROM messages WHERE id = ?", (mrow[0],))
            else:
                conn.execute("UPDATE messages SET text = ? WHERE id = ?", (_cut(mrow[1], texts), mrow[0]))
        if empty:
            conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
            return 1
        conn.execute("UPDATE chunks SET text = ? WHERE id = ?", (cut, chunk_id))
        return 0

    def _source_external_ids(self, conn: Any, source_rows: set[int]) -> set[str]:
        out: set[str] = set()
        for ids_in, part in self._dialect.in_parts(sorted(source_rows)):
            out |= {str(r[0]) for r in conn.execute(f"SELECT external_id FROM sources WHERE id {ids_in}", part)}
        return out

    def _observations_resting_on(self, conn: Any, bank_id: int, fact_ids: set[int], texts: list[str]) -> set[int]:
        """Observations whose history rests on an erased fact: an earlier text was built on it
        (``based_on``) or rewritten with it (``added``); for entries written before ``based_on`` was
        kept, an earlier text that quotes it."""
        if not fact_ids:
            return set()
        quoted = [" ".join(t.split()) for t in texts if t.strip()]
        out: set[int] = set()
        for observation_id, raw in conn.execute(
                "SELECT id, history FROM observations WHERE bank_id = ? ORDER BY id", (bank_id,)).fetchall():
            for entry in self._dialect.from_json(raw):
                named = {int(i) for i in [*entry.get("based_on", []), *entry.get("added", [])]}
                previous = " ".join(str(entry.get("previous", "")).split())
                if named & fact_ids or ("based_on" not in entry and any(q in previous for q in quoted)):
                    out.add(int(observation_id))
                    break
        return out

    def _drop_retain_payloads(self, conn: Any, bank_id: int, touched: set[str], whole: set[str]) -> int:
        """A retain job's payload is a copy of the messages or document it wrote. Done or failed
        ones for a source the erasure touched lose it; queued ones for a source erased whole are
        dropped (they would write it back)."""
        changed = 0
        if not touched:
            return 0
        for job_id, status, raw in conn.execute(
                "SELECT id, status, payload FROM jobs WHERE bank_id = ? AND kind = 'retain' ORDER BY id",
                (bank_id,)).fetchall():
            source = self._dialect.from_json(raw).get("source_id")
            if source not in touched:
                continue
            if status in ("done", "failed"):
                conn.execute("UPDATE jobs SET payload = ?, last_error = NULL WHERE id = ?",
                             (json.dumps({"source_id": source, "erased": True}), job_id))
                changed += 1
            elif status == "queued" and source in whole:
                conn.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
                changed += 1
        return changed

    def _drop_jobs_naming(self, conn: Any, bank_id: int, fact_ids: set[int]) -> int:
        if not fact_ids:
            return 0
        dropped = 0
        for job_id, raw in conn.execute(
            "SELECT id, payload FROM jobs WHERE bank_id = ? AND status IN ('queued', 'running', 'failed') ORDER BY id",
            (bank_id,),
        ).fetchall():
            payload = self._dialect.from_json(raw)
            named = set(payload.get("fact_ids", []))
            if named & fact_ids:
                left = sorted(named - fact_ids)
                if left:
                    conn.execute("UPDATE jobs SET payload = ? WHERE id = ?",
                                 (json.dumps({**payload, "fact_ids": left}), job_id))
                else:
                    conn.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
                dropped += 1
        return dropped

    def evidence_texts(self, bank_id: int | None = None) -> Iterator[str]:
        """Everything the store keeps as it was given, of one bank or (None) of all: fact, message,
        chunk and document texts, speakers, metadata, the caller's ids, mental-model questions,
        queued retains, bank and key names. What an erasure leaves legitimately; the erasure
        proof does not count a form these still spell as a leak (see gieok.engine.forget.forms)."""
        scoped = "bank_id = ?" if bank_id is not None else "1 = 1"
        params: tuple[Any, ...] = (bank_id,) if bank_id is not None else ()
        json_columns = {"metadata", "payload", "result"}
        tables = (("facts", ("text", "speaker"), ""), ("messages", ("text", "speaker", "external_id"), ""),
                  ("chunks", ("text",), ""), ("sources", ("content", "external_id", "metadata"), ""),
                  ("mental_models", ("name", "question"), ""),
                  ("jobs", ("payload", "result"), " AND status IN ('queued', 'running')"))
        for table, columns, extra in tables:
            after = 0
            while True:  # keyset pages: nothing held open between them
                rows = self._conn().execute(
                    f"SELECT id, {', '.join(columns)} FROM {table} WHERE {scoped}{extra} AND id > ? "
                    "ORDER BY id LIMIT 2000", (*params, after)).fetchall()
                for row in rows:
                    for column, value in zip(columns, row[1:]):
                        if value is None:
                            continue
                        if column in json_columns:
                            decoded = self._dialect.from_json(value)
                            value = json.dumps(decoded, ensure_ascii=False)
                        yield str(value)
                if len(rows) < 2000:
                    break
                after = int(rows[-1][0])
        audit_scope = "bank IN (SELECT name FROM banks WHERE id = ?)" if bank_id is not None else "1 = 1"
        for row in self._conn().execute(f"SELECT bank, source_id, item_id FROM audit_log WHERE {audit_scope}",
                                        params).fetchall():
            yield " ".join(str(v) for v in row if v is not None)
        names = (self._conn().execute("SELECT name FROM banks WHERE id = ?", params) if bank_id is not None
                 else self._conn().execute("SELECT name FROM banks UNION ALL SELECT name FROM api_keys "
                                           "WHERE name IS NOT NULL"))
        for (name,) in names.fetchall():
            yield str(name)
        yield from self._own_words()

    def _own_words(self) -> Iterator[str]:
        """The words the store writes itself: its schema, the values of its enumerated columns
        (kinds, statuses, operations, model ids) and the keys of its JSON records. A text that said
        "experience" or "previous" is not leaking through ``facts.kind`` or a history record."""
        conn = self._conn()
        for table, column in _OWN_WORD_COLUMNS:
            yield " ".join(str(r[0]) for r in conn.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} IS NOT NULL").fetchall())
        keys: set[str] = set()
        for table, column in (("observations", "history"), ("jobs", "payload"), ("jobs", "result"),
                              ("banks", "config")):
            for (raw,) in conn.execute(f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL"):
                keys |= _json_keys(self._dialect.from_json(raw))
        yield " ".join(sorted(keys))
        yield from self._schema_words()

    def scrub_context_keys(self, bank_id: int, keys: Sequence[str]) -> None:
        """Remove names of erased entities from other entities' co-occurrence counts."""
        if not keys:
            return
        conn = self._require_write()
        doomed = set(keys)
        for entity_id, cooccurring in conn.execute(
                "SELECT id, cooccurring FROM entities WHERE bank_id = ? ORDER BY id", (bank_id,)).fetchall():
            counts = self._dialect.from_json(cooccurring)
            kept = {k: v for k, v in counts.items() if k not in doomed and k.split(" ")[0] not in doomed}
            if len(kept) != len(counts):
                conn.execute("UPDATE entities SET cooccurring = ? WHERE id = ?",
                             (json.dumps(kept, ensure_ascii=False), entity_id))
        for keys_in, part in self._dialect.in_parts(keys, text=True):
            conn.execute(f"DELETE FROM context_degrees WHERE bank_id = ? AND key {keys_in}", (bank_id, *part))

    # -- the proof: each store's own (gieok.store._sqlite_erasure, gieok.store._pg_erasure) -----
    def _schema_words(self) -> Iterator[str]:
        """Words of the database that are no one's text: table and column names and the like."""
        raise NotImplementedError

    def scan(self, needles: Sequence[str]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def vacuum(self) -> None:
        raise NotImplementedError

    def checkpoint(self) -> bool:
        raise NotImplementedError

    def file_contains(self, needles: Sequence[str]) -> list[str]:
        raise NotImplementedError
