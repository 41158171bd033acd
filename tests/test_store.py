"""The SQLite store: migrations, schema, WAL, per-bank BM25, bank-partitioned vectors."""

from __future__ import annotations

import numpy as np
import pytest

from gieok.errors import StoreError
from gieok.records import NewFact
from gieok.store import SQLiteStore
from gieok.store.migrations import MIGRATIONS
from gieok.text.terms import keyword_terms


def _columns(store: SQLiteStore, table: str) -> list[str]:
    return [r[1] for r in store._conn().execute(f"PRAGMA table_info({table})")]


def test_migrating_an_empty_database_gives_the_schema(db_path: str) -> None:
    store = SQLiteStore(db_path)
    try:
        names = [r[0] for r in store._conn().execute("SELECT name FROM schema_migrations ORDER BY name")]
        assert names == [name for name, _ in MIGRATIONS]
        tables = {r[0] for r in store._conn().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"banks", "sources", "messages", "chunks", "facts", "meta", "audit_log", "entities", "mentions",
                "links", "jobs", "observations", "observation_facts", "mental_models", "llm_usage"} <= tables
        assert _columns(store, "facts") == [
            "id", "bank_id", "source_id", "chunk_id", "text", "kind", "speaker", "message_ids", "occurred_start",
            "occurred_end", "mentioned_at", "utc_offset", "valid_from", "valid_to", "importance", "pinned",
            "decay_class", "expires_at", "embed_hash", "tokens", "created_at", "superseded_by", "supersede_reason",
            "strength", "recall_count", "last_recalled_at", "archived_at", "consolidated_at", "consolidation_failed",
        ]
        assert store._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.get_meta("fingerprint_key") and len(store.get_meta("fingerprint_key") or "") == 64
    finally:
        store.close()
    again = SQLiteStore(db_path)  # reopening applies nothing twice
    again.close()


def _fact(text: str) -> NewFact:
    return NewFact(text=text, embed_text=text, terms=keyword_terms(text), tokens=3)


def _setup(store: SQLiteStore, bank: str, texts: list[str]) -> int:
    with store.write():
        b = store.create_bank(bank, "fake", 4)
        source = store.upsert_source(b.id, "s", "document", "x", {})
        chunk = store.add_chunk(b.id, source, 0, "sha", "x", [])
        vectors = np.eye(4, dtype=np.float32)[: len(texts)]
        store.add_facts(b.id, source, chunk, [_fact(t) for t in texts], vectors)
    return b.id


def test_bm25_statistics_are_per_bank(db_path: str) -> None:
    store = SQLiteStore(db_path)
    try:
        a = _setup(store, "a", ["한라산에 올랐다", "Hiking on Jeju"])
        b = _setup(store, "b", ["한라산 한라산 사진", "부산 여행", "서울 맛집"])
        hits_a = store.keyword_search(a, keyword_terms("한라산"), 10)
        hits_b = store.keyword_search(b, keyword_terms("한라산"), 10)
        assert len(hits_a) == 1 and len(hits_b) == 1
        assert hits_a[0][0] != hits_b[0][0]
        assert all(score > 0 for _, score in hits_a + hits_b)
        # FTS5 operators in user text are quoted, never interpreted
        assert store.keyword_search(a, ['"hike', "OR", "NEAR("], 10) == store.keyword_search(a, ["hike"], 10)
    finally:
        store.close()


def test_vector_search_stays_in_its_bank(db_path: str) -> None:
    store = SQLiteStore(db_path)
    try:
        a = _setup(store, "a", ["one", "two"])
        b = _setup(store, "b", ["three", "four"])
        query = np.array([1, 0, 0, 0], dtype=np.float32)
        ids_a = [i for i, _ in store.vector_search(a, 4, query, 10)]
        ids_b = [i for i, _ in store.vector_search(b, 4, query, 10)]
        assert set(ids_a).isdisjoint(ids_b) and len(ids_a) == 2 and len(ids_b) == 2
        assert store.vector_search(a, 4, query, 10)[0][1] == pytest.approx(1.0)
    finally:
        store.close()


def test_writes_outside_a_transaction_are_refused_and_failed_blocks_roll_back(db_path: str) -> None:
    store = SQLiteStore(db_path)
    try:
        with pytest.raises(StoreError, match="store.write"):
            store.create_bank("x", "fake", 4)
        with pytest.raises(RuntimeError):
            with store.write():
                store.create_bank("x", "fake", 4)
                raise RuntimeError("boom")
        assert store.get_bank("x") is None
    finally:
        store.close()
    with pytest.raises(StoreError, match="closed"):
        store.get_bank("x")
