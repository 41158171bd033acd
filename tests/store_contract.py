"""What the store contract tests share: helpers that fill a store, on either database.

The contract is one test module per area of the store (``test_store_banks.py``,
``test_store_facts.py`` … for ``store.banks``, ``store.facts`` …), each test taking ``store`` or
``open_store`` (fixtures in conftest.py), parametrized over the SQLite and the PostgreSQL store.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok.records import Message, NewFact
from gieok.store import SQLiteStore
from gieok.text.terms import keyword_terms

AnyStore = Any  # SQLiteStore | PostgresStore: the tests call only protocol methods on it

MARKER_KO = "기밀표식쥐라기호랑이"
MARKER_EN = "Zebraquartz Marigoldia"



def _tables(store: AnyStore) -> set[str]:
    if isinstance(store, SQLiteStore):
        return {r[0] for r in store._conn().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {r[0] for r in store._conn().execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}


def _columns(store: AnyStore, table: str) -> list[str]:
    if isinstance(store, SQLiteStore):
        return [r[1] for r in store._conn().execute(f"PRAGMA table_info({table})")]
    return [r[0] for r in store._conn().execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = %s ORDER BY ordinal_position", (table,))]


def _fact(text: str, **fields: Any) -> NewFact:
    return NewFact(text=text, embed_text=text, terms=keyword_terms(text), tokens=3, **fields)


def _random_bank(store: AnyStore, n: int, dim: int = 8) -> tuple[int, np.ndarray, list[int]]:
    """A bank "v" of ``n`` facts with random vectors (Korean and English texts; rows 3 and 7 tie)."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    if n > 7:
        vectors[7] = vectors[3]  # a tie
    with store.write():
        bank = store.banks.create("v", "fake", dim)
        source = store.sources.upsert(bank.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(bank.id, source, 0, "sha", "x", [])
        ids = store.facts.add(bank.id, source, chunk, [_fact(f"사실 fact {i}") for i in range(n)], vectors)
    return bank.id, vectors, ids


def _setup(store: AnyStore, bank: str, texts: list[str], dim: int = 4) -> int:
    with store.write():
        b = store.banks.create(bank, "fake", dim)
        source = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        vectors = np.eye(dim, dtype=np.float32)[: len(texts)]
        store.facts.add(b.id, source, chunk, [_fact(t) for t in texts], vectors)
    return b.id


def _conversation(store: AnyStore, bank: str = "alice", dim: int = 4) -> dict[str, Any]:
    """A bank with one conversation: one chunk and one fact per message."""
    texts = [f"내 비밀 코드명은 {MARKER_KO} 이야", "알겠어요 기억할게요", f"My favourite cafe is {MARKER_EN}",
             "I love hiking in the Alps"]
    stamps = ["2026-03-02T10:00:00+09:00", "2026-03-02T10:00:30+09:00", "2026-03-05T09:00:00+00:00",
              "2026-03-05T09:01:00"]
    with store.write():
        b = store.banks.create(bank, "fake", dim)
        source = store.sources.upsert(b.id, "chat-1", "conversation", None, {"title": "대화"})
        facts, chunks = [], []
        for i, (text, ts) in enumerate(zip(texts, stamps)):
            store.sources.add_message(b.id, source, Message(f"m{i + 1}", "alice", text, ts), i)
            chunk = store.sources.add_chunk(b.id, source, i, f"sha{i}", text, [f"m{i + 1}"])
            vector = np.zeros((1, dim), dtype=np.float32)
            vector[0, i % dim] = 1.0
            context = np.roll(vector[0], 1) if i else None  # every message but the first answers another
            facts += store.facts.add(b.id, source, chunk, [_fact(text, speaker="alice", message_ids=[f"m{i + 1}"],
                                                                 mentioned_at=1_772_000_000.0 + i * 100)], vector,
                                     [context])
            chunks.append(chunk)
    return {"bank": b.id, "dim": dim, "source": source, "facts": facts, "chunks": chunks, "texts": texts}
