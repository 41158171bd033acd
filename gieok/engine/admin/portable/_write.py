"""The second pass of an import: a validated file's rows written into a bank, a batch of one record type
at a time, the file's ids mapped onto the new rows', the facts indexed and their vectors taken from the
file or embedded again."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import IO, Any

import numpy as np

from gieok.engine.admin.portable._format import BATCH, REFS, Progress
from gieok.engine.context import BankContext
from gieok.engine.retain.plan import embed_text, reply_context, section_context
from gieok.ids import MemoryRef, parse_memory_id
from gieok.store._portable import TABLES

__all__ = ["Writer"]


class Writer:
    """Writes a validated file's rows into a bank, a batch of one record type at a time."""

    def __init__(self, ctx: BankContext, header: dict[str, Any], lines: int, progress: Progress | None) -> None:
        self.ctx, self.store, self.bank = ctx, ctx.store, ctx.bank
        self.embedder = ctx.embedder
        self.same_vectors = bool(header["with_vectors"]) and header["embedder"] == self.bank.embedder \
            and int(header["dim"]) == int(self.bank.dim)
        self.ids: dict[str, dict[int, int]] = {k: {} for k in ("source", "chunk", "fact", "entity", "observation")}
        self.superseded: list[tuple[int, int]] = []
        self.reembedded = 0
        self.lines, self.done, self.progress = lines, 0, progress

    def run(self, handle: IO[bytes]) -> None:
        kind, batch = "", list[dict[str, Any]]()
        for raw in handle:
            if not raw.strip():
                continue
            record = json.loads(raw)
            if record["record"] != kind or len(batch) >= BATCH:
                self.flush(kind, batch)
                kind, batch = record["record"], []
            batch.append(record)
        self.flush(kind, batch)
        self.store.portable.set_superseded([(self.ids["fact"][old], self.ids["fact"][new])
                                            for old, new in self.superseded if new in self.ids["fact"]])

    def flush(self, kind: str, batch: list[dict[str, Any]]) -> None:
        if kind in TABLES and batch:
            rows = [self._mapped(kind, r) for r in batch]
            new_ids = self.store.portable.insert(kind, self.bank.id, rows)
            if kind in self.ids:
                self.ids[kind].update((r["id"], i) for r, i in zip(batch, new_ids))
            if kind == "fact":
                self._index_facts(batch, new_ids)
            elif kind == "observation":
                self._observation_vectors(batch, new_ids)
        self.done += len(batch)
        if self.progress is not None and batch:
            self.progress(self.done, self.lines)

    def _mapped(self, kind: str, record: dict[str, Any]) -> dict[str, Any]:
        row = {c: record[c] for c in TABLES[kind].columns}
        for column, target in REFS.get(kind, {}).items():
            if row[column] is not None:
                row[column] = self.ids[target][row[column]]
        if kind == "fact":
            if row["superseded_by"] is not None:
                self.superseded.append((record["id"], row["superseded_by"]))
            row["superseded_by"] = None
        elif kind == "observation":
            row["history"] = [self._history_entry(e) for e in row["history"] or []]
        elif kind == "mental_model":
            row["based_on"] = [self._memory_id(m) for m in row["based_on"] or []]
        return row

    def _history_entry(self, entry: Any) -> Any:
        if not isinstance(entry, dict):
            return entry
        facts = self.ids["fact"]
        return {k: [facts.get(int(i), i) if isinstance(i, int) else i for i in v]
                if k in ("added", "based_on", "removed") and isinstance(v, list) else v for k, v in entry.items()}

    def _memory_id(self, memory_id: Any) -> Any:
        ref = parse_memory_id(memory_id)
        table = {"fact": "fact", "observation": "observation"}.get(ref.kind) if ref is not None else None
        if ref is None or table is None or ref.number not in self.ids[table]:
            return memory_id
        return str(MemoryRef(ref.kind, self.ids[table][ref.number]))

    def _vector(self, value: Any) -> np.ndarray | None:
        if not self.same_vectors or value is None:
            return None
        return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float32)

    def _index_facts(self, batch: list[dict[str, Any]], new_ids: Sequence[int]) -> None:
        own = [self._vector(r.get("vector")) for r in batch]
        context = [self._vector(r.get("context_vector")) if r["has_context_vector"] else None for r in batch]
        missing_own = [k for k, v in enumerate(own) if v is None]
        missing_context = [k for k, r in enumerate(batch) if r["has_context_vector"] and context[k] is None]
        if missing_own or missing_context:
            texts = self._contexts(batch, new_ids, missing_context)
            inputs = [embed_text(batch[k]["text"], batch[k]["speaker"]) for k in missing_own] + \
                     [embed_text(batch[k]["text"], batch[k]["speaker"], texts.get(k)) for k in missing_context]
            vectors = iter(self.embedder.embed(inputs, "document"))
            for k in missing_own:
                own[k] = next(vectors)
            for k in missing_context:
                context[k] = next(vectors)
            self.reembedded += len(missing_own)
        rows = []
        for k, (r, fact_id) in enumerate(zip(batch, new_ids)):
            vector = own[k]
            assert vector is not None
            rows.append((fact_id, list(r["terms"]), list(r["context_terms"]), vector, context[k]))
        self.store.portable.index_facts(self.bank.id, rows)

    def _contexts(self, batch: list[dict[str, Any]], new_ids: Sequence[int], which: list[int]) -> dict[int, str]:
        """The context retain embedded a fact's second vector with (as the reembed job rebuilds it): the
        message stored before its own, or its chunk's heading path."""
        replies = [k for k in which if batch[k]["message_ids"]]
        previous = self.store.reembed.previous_messages(self.bank.id, [batch[k]["message_ids"][0] for k in replies])
        pieces = [k for k in which if not batch[k]["message_ids"]]
        chunk_ids = [self.ids["chunk"][batch[k]["chunk_id"]] for k in pieces]
        chunk_texts = self.store.reembed.chunk_texts(chunk_ids)
        locations = self.store.sources.chunk_locations(chunk_ids)
        out: dict[int, str] = {}
        for k in replies:
            before = previous.get(batch[k]["message_ids"][0])
            if before is not None:
                out[k] = reply_context(before)
        for k, chunk_id in zip(pieces, chunk_ids):
            found = section_context(chunk_texts.get(chunk_id, ""), locations.get(chunk_id))
            if found:
                out[k] = found
        return out

    def _observation_vectors(self, batch: list[dict[str, Any]], new_ids: Sequence[int]) -> None:
        rows: list[tuple[int, np.ndarray]] = []
        todo = []
        for r, observation_id in zip(batch, new_ids):
            if not r["has_vector"]:
                continue
            vector = self._vector(r.get("vector"))
            if vector is None:
                todo.append((observation_id, r["text"]))
            else:
                rows.append((observation_id, vector))
        if todo:
            vectors = self.embedder.embed([text for _, text in todo], "document")
            rows += [(i, v) for (i, _), v in zip(todo, vectors)]
            self.reembedded += len(todo)
        self.store.portable.set_observation_vectors(rows)
