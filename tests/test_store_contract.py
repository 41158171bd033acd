"""The store contract: the same tests against the SQLite store and the PostgreSQL store.

Every test takes ``store`` (or ``open_store``), parametrized over both implementations; only schema
introspection differs per backend. The PostgreSQL side runs on a throw-away server (see
``pg_server.py``) with a fresh schema per test, and fails — not skips — when it cannot start.
"""

from __future__ import annotations

import hashlib
import inspect
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok.errors import StoreError
from gieok.records import BankInfo, FactRow, Message, NewFact, SourceInfo
from gieok.store import PostgresStore, SQLiteStore, Store
from gieok.store._erasure import ERASED
from gieok.store._graph import EntityRow
from gieok.store._jobs import JobRow
from gieok.store._models import MentalModelRow
from gieok.store._observations import ObservationRow
from gieok.store._pg_migrations import MIGRATIONS as PG_MIGRATIONS
from gieok.store.migrations import MIGRATIONS
from gieok.text.terms import keyword_terms

AnyStore = Any  # SQLiteStore | PostgresStore: the tests call only protocol methods on it

MARKER_KO = "기밀표식쥐라기호랑이"
MARKER_EN = "Zebraquartz Marigoldia"


# -- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path,
               pg_dsn_factory: Callable[[], str]) -> Iterator[Callable[[], AnyStore]]:  # noqa: F811
    """Opens a store on this test's own empty database (every call: the same database)."""
    target = str(tmp_path / "memories.db") if request.param == "sqlite" else pg_dsn_factory()
    opened: list[AnyStore] = []

    def open_() -> AnyStore:
        store = SQLiteStore(target) if request.param == "sqlite" else PostgresStore(target)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[[], AnyStore]) -> AnyStore:
    return open_store()


# -- helpers -------------------------------------------------------------------------------------
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


# -- ported from test_store.py -------------------------------------------------------------------
def test_migrating_an_empty_database_gives_the_schema(open_store: Callable[[], AnyStore]) -> None:
    store = open_store()
    names = [r[0] for r in store._conn().execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for name, _ in MIGRATIONS] == [name for name, _ in PG_MIGRATIONS]
    assert {"banks", "sources", "messages", "chunks", "facts", "meta", "audit_log", "entities", "mentions",
            "links", "jobs", "observations", "observation_facts", "mental_models", "llm_usage"} <= _tables(store)
    assert _columns(store, "facts") == [
        "id", "bank_id", "source_id", "chunk_id", "text", "kind", "speaker", "message_ids", "occurred_start",
        "occurred_end", "mentioned_at", "utc_offset", "valid_from", "valid_to", "importance", "pinned",
        "decay_class", "expires_at", "embed_hash", "tokens", "created_at", "superseded_by", "supersede_reason",
        "strength", "recall_count", "last_recalled_at", "archived_at", "consolidated_at", "consolidation_failed",
        "trust",
    ]
    for table in ("banks", "sources", "messages", "chunks", "entities", "jobs", "observations", "mental_models",
                  "quarantine"):
        assert _columns(store, table), table
    if isinstance(store, SQLiteStore):
        assert store._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    else:
        assert {"keyword_docs", "fact_terms", "keyword_stats", "fact_vectors"} <= _tables(store)
    # the audit fingerprint key lives outside the database (gieok.engine.fingerprint_key)
    assert store.meta.get("fingerprint_key") is None
    store.close()
    again = open_store()  # reopening applies nothing twice
    assert again.meta.get("fingerprint_key") is None


def test_a_claimed_meta_row_keeps_its_first_value(open_store: Callable[[], AnyStore]) -> None:
    first, second = open_store(), open_store()  # two processes on one database
    with first.write():
        kept = first.meta.claim("secret:test", "aa11")
    with second.write():
        assert second.meta.claim("secret:test", "bb22") == kept == "aa11"
    assert second.meta.get("secret:test") == "aa11"
    first.close()
    second.close()


def test_a_bank_counts_the_bytes_it_holds(store: AnyStore) -> None:
    conv = _conversation(store)
    other = _setup(store, "bob", ["다른 뱅크의 긴 문장입니다", "another bank"])
    # each message's text is stored three times (message, chunk, fact), in UTF-8, plus a vector per fact
    text = sum(3 * len(t.encode("utf-8")) for t in conv["texts"])
    assert store.banks.byte_size(conv["bank"], conv["dim"]) == text + len(conv["texts"]) * conv["dim"] * 4
    assert store.banks.byte_size(other, 4) == 1 + sum(len(t.encode("utf-8")) for t in ["다른 뱅크의 긴 문장입니다",
                                                                                   "another bank"]) + 2 * 4 * 4


def test_bm25_statistics_are_per_bank(store: AnyStore) -> None:
    a = _setup(store, "a", ["한라산에 올랐다", "Hiking on Jeju"])
    b = _setup(store, "b", ["한라산 한라산 사진", "부산 여행", "서울 맛집"])
    hits_a = store.search.keyword(a, keyword_terms("한라산"), 10)
    hits_b = store.search.keyword(b, keyword_terms("한라산"), 10)
    assert len(hits_a) == 1 and len(hits_b) == 1
    assert hits_a[0][0] != hits_b[0][0]
    assert all(score > 0 for _, score in hits_a + hits_b)
    # query syntax in user text is quoted, never interpreted
    assert store.search.keyword(a, ['"hike', "OR", "NEAR("], 10) == store.search.keyword(a, ["hike"], 10)


def test_vector_search_stays_in_its_bank(store: AnyStore) -> None:
    a = _setup(store, "a", ["one", "two"])
    b = _setup(store, "b", ["three", "four"])
    query = np.array([1, 0, 0, 0], dtype=np.float32)
    ids_a = [i for i, _ in store.search.vector(a, 4, query, 10)]
    ids_b = [i for i, _ in store.search.vector(b, 4, query, 10)]
    assert set(ids_a).isdisjoint(ids_b) and len(ids_a) == 2 and len(ids_b) == 2
    assert store.search.vector(a, 4, query, 10)[0][1] == pytest.approx(1.0)


def test_writes_outside_a_transaction_are_refused_and_failed_blocks_roll_back(store: AnyStore) -> None:
    with pytest.raises(StoreError, match="store.write"):
        store.banks.create("x", "fake", 4)
    with pytest.raises(RuntimeError), store.write():
        store.banks.create("x", "fake", 4)
        raise RuntimeError("boom")
    assert store.banks.get("x") is None
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.banks.get("x")


# -- the write path ------------------------------------------------------------------------------
def test_nested_writes_join_the_outer_block_and_try_write_never_waits(store: AnyStore) -> None:
    with pytest.raises(RuntimeError), store.write():
        store.banks.create("outer", "fake", 4)
        with store.write():
            store.banks.create("inner", "fake", 4)
        raise RuntimeError("the whole outer block rolls back")
    assert store.banks.get("outer") is None and store.banks.get("inner") is None
    with store.write():
        with store.write():
            store.banks.create("inner", "fake", 4)
        assert store.banks.get("inner") is not None  # the block reads its own rows
    held, release, outcome = threading.Event(), threading.Event(), []

    def hold() -> None:
        with store.write():
            held.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    held.wait(5)
    with store.try_write() as free:
        outcome.append(free)
    release.set()
    worker.join()
    with store.try_write() as free:
        outcome.append(free)
        store.banks.create("later", "fake", 4)
    assert outcome == [False, True] and store.banks.get("later") is not None


def test_the_store_implements_every_protocol_method_with_its_signature() -> None:
    for name, member in inspect.getmembers(Store, inspect.isfunction):
        if name.startswith("_"):
            continue
        expected = list(inspect.signature(member).parameters)
        for cls in (SQLiteStore, PostgresStore):
            assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
            assert list(inspect.signature(getattr(cls, name)).parameters) == expected, (cls.__name__, name)


# -- banks, meta, audit --------------------------------------------------------------------------
def test_banks_round_trip_and_delete_cascades(store: AnyStore) -> None:
    a = _setup(store, "a", ["한라산에 올랐다", "Hiking on Jeju"])
    b = _setup(store, "b", ["부산 여행"], dim=8)
    assert store.banks.get("a") == store.banks.by_id(a)
    assert (store.banks.get("b").name, store.banks.get("b").embedder, store.banks.get("b").dim) == ("b", "fake", 8)
    assert store.banks.get("missing") is None and store.banks.by_id(999) is None
    assert [(r.id, r.name, r.dim) for r in store.banks.rows()] == [(a, "a", 4), (store.banks.get("b").id, "b", 8)]
    banks = store.banks.all()
    assert [x.name for x in banks] == ["a", "b"] and all(isinstance(x, BankInfo) for x in banks)
    assert (banks[0].sources, banks[0].facts, banks[1].facts) == (1, 2, 1)
    assert banks[0].created_at.tzinfo is not None
    assert store.banks.config(a) == {}
    with store.write():
        store.banks.set_config(a, {"redaction": {"email": "redact"}, "이름": "값"})
    assert store.banks.config(a) == {"redaction": {"email": "redact"}, "이름": "값"}
    with store.write():
        assert store.banks.delete(a) == {"facts": 2, "chunks": 1, "messages": 0, "sources": 1}
        assert store.banks.delete(a) == {}
    assert store.banks.get("a") is None and store.facts.count(a) == 0
    # (keyword_search on a deleted bank is undefined: SQLite's per-bank FTS table is gone)
    assert store.search.vector(a, 4, np.ones(4, dtype=np.float32), 10) == []
    assert store.facts.count(b) == 1 and store.search.keyword(b, keyword_terms("부산"), 10)


def test_audit_log_round_trip(store: AnyStore) -> None:
    with store.write():
        store.audit.add([
            {"bank": "a", "operation": "retain", "source_id": "s1", "item_id": "m1", "type": "email", "start": 3,
             "end": 20, "length": 17, "fingerprint": "ab12", "action": "redacted"},
            {"bank": "a", "operation": "forget", "type": "erase", "action": "deleted", "count": 4},
            {"bank": "b", "operation": "retain", "type": "phone", "action": "blocked"},
        ])
    log = store.audit.log("a")
    assert [e["operation"] for e in log] == ["forget", "retain"]  # newest first
    assert log[1] | {"at": None} == {"at": None, "operation": "retain", "source_id": "s1", "item_id": "m1",
                                     "type": "email", "start": 3, "end": 20, "length": 17, "fingerprint": "ab12",
                                     "action": "redacted", "count": 1}
    assert log[0]["count"] == 4 and "T" in log[0]["at"]
    assert len(store.audit.log("a", limit=1)) == 1 and store.audit.log("nobody") == []


# -- sources, messages, chunks, facts ------------------------------------------------------------
def test_sources_messages_and_chunks_round_trip(store: AnyStore) -> None:
    c = _conversation(store)
    bank = c["bank"]
    assert store.sources.row(bank, "chat-1") == (c["source"], "conversation")
    assert store.sources.row(bank, "nope") is None
    source = store.sources.get(bank, "alice", "chat-1")
    assert isinstance(source, SourceInfo) and source.metadata == {"title": "대화"} and source.text is None
    assert [m.id for m in source.messages] == ["m1", "m2", "m3", "m4"]
    assert source.messages[0] == Message("m1", "alice", c["texts"][0], "2026-03-02T10:00:00+09:00")
    with store.write():
        doc = store.sources.upsert(bank, "doc-1", "document", "문서 본문 text", {"a": 1, "b": [1, 2]})
        assert store.sources.upsert(bank, "doc-1", "document", "새 본문", {"b": 2}) == doc
    got = store.sources.get(bank, "alice", "doc-1")
    assert got.text == "새 본문" and got.metadata == {"b": 2} and got.messages == []
    assert got.updated_at >= got.created_at
    listed = store.sources.all(bank, "alice")
    assert [s.id for s in listed] == ["chat-1", "doc-1"] and all(s.text is None and not s.messages for s in listed)
    assert store.sources.existing_messages(bank, ["m1", "m3", "zz"]) == {"m1": (c["source"], c["texts"][0]),
                                                                "m3": (c["source"], c["texts"][2])}
    assert store.sources.existing_messages(bank, []) == {}
    assert store.sources.last_message(bank, "chat-1").id == "m4" and store.sources.last_message(bank, "doc-1") is None
    assert store.sources.next_position(c["source"]) == 4 and store.sources.next_position(doc) == 0
    with store.write():
        store.sources.set_message_text(bank, "m2", "고친 텍스트")
    assert store.sources.existing_messages(bank, ["m2"])["m2"][1] == "고친 텍스트"
    chunks = store.sources.chunks(c["source"])
    assert [(k.id, k.position, k.sha256) for k in chunks] == [(cid, i, f"sha{i}") for i, cid in enumerate(c["chunks"])]
    with store.write():
        store.sources.move_chunk(c["chunks"][0], 9)
    assert [k.id for k in store.sources.chunks(c["source"])][-1] == c["chunks"][0]
    assert store.sources.chunks_of_message(bank, c["source"], "m3") == [c["chunks"][2]]
    assert store.sources.chunks_of_message(bank, c["source"], "zz") == []
    with store.write():
        assert store.sources.delete_chunks(bank, [c["chunks"][2], c["chunks"][3]]) == 2
        assert store.sources.delete_chunks(bank, []) == 0
    assert store.facts.count(bank) == 2 and len(store.sources.chunks(c["source"])) == 2
    assert store.facts.get(bank, c["facts"][2:]) == []
    assert store.search.keyword(bank, keyword_terms("hiking Alps"), 10) == []
    assert store.search.vectors_of(c["dim"], c["facts"]).keys() == set(c["facts"][:2])


def test_facts_round_trip(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        other = store.banks.create("other", "fake", 4)
        source = store.sources.upsert(b.id, "s", "conversation", None, {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", ["m1", "m2"])
        ids = store.facts.add(b.id, source, chunk, [
            _fact("김민지 팀장은 다음 주 화요일에 부산으로 출장 가", kind="experience", speaker="alice",
                  message_ids=["m1", "m2"], occurred_start=100.0, occurred_end=200.0, mentioned_at=50.0,
                  utc_offset=32400, importance=0.9, pinned=True, decay_class="transient", expires_at=1000.0),
            _fact("plain"),
        ], np.eye(4, dtype=np.float32)[:2])
    rows = store.facts.get(b.id, [ids[1], ids[0], 12345])
    assert [r.id for r in rows] == [ids[1], ids[0]] and all(isinstance(r, FactRow) for r in rows)
    first = rows[1]
    assert (first.bank_id, first.source_id, first.source_external_id, first.chunk_id) == (b.id, source, "s", chunk)
    assert (first.text, first.kind, first.speaker, first.message_ids) == (
        "김민지 팀장은 다음 주 화요일에 부산으로 출장 가", "experience", "alice", ["m1", "m2"])
    assert ((first.occurred_start, first.occurred_end, first.mentioned_at, first.utc_offset)
            == (100.0, 200.0, 50.0, 32400))
    assert (first.valid_from, first.valid_to, first.importance, first.pinned) == (50.0, None, 0.9, True)
    assert (first.decay_class, first.expires_at, first.tokens, first.superseded_by) == ("transient", 1000.0, 3, None)
    assert (first.strength, first.archived_at, first.recall_count) == (1.0, None, 0) and first.created_at > 0
    assert (rows[0].kind, rows[0].pinned, rows[0].message_ids, rows[0].speaker) == ("world", False, [], None)
    assert store.facts.get(other.id, ids) == [] and store.facts.get(b.id, []) == []
    assert store.facts.count(b.id) == 2 and list(store.facts.ids(b.id)) == sorted(ids)
    assert list(store.facts.ids(other.id)) == []


# -- keyword channel -----------------------------------------------------------------------------
def test_keyword_search_ranks_korean_and_english_by_bm25(store: AnyStore) -> None:
    bank = _setup(store, "a", [
        "한라산에 올랐다",                        # 1: 한라산 once
        "한라산 한라산 정상 사진",                 # 2: 한라산 twice, short
        "부산 여행 계획을 세웠다",                 # 3
        "I went hiking with my sister",          # 4
        "We hiked and hiked and hiked all day",  # 5: stem "hike" three times
        "The weather was nice today",            # 6
    ], dim=8)
    ko = store.search.keyword(bank, keyword_terms("한라산 등산"), 10)
    assert [i for i, _ in ko] == [2, 1]  # more occurrences, higher BM25
    en = store.search.keyword(bank, keyword_terms("hiking"), 10)
    assert [i for i, _ in en] == [5, 4]  # "hiking" meets "hiked" through the stem
    mixed = store.search.keyword(bank, keyword_terms("한라산") + keyword_terms("sister"), 10)
    assert {i for i, _ in mixed} == {1, 2, 4}
    for hits in (ko, en, mixed):
        scores = [s for _, s in hits]
        assert all(s > 0 for s in scores) and scores == sorted(scores, reverse=True)
    assert len(store.search.keyword(bank, keyword_terms("한라산 hiking"), 2)) == 2
    assert store.search.keyword(bank, [], 10) == [] and store.search.keyword(bank, ["", "((("], 10) == []
    assert store.search.keyword(bank, keyword_terms("화성 탐사"), 10) == []


def test_context_terms_count_only_with_a_context_weight(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "conversation", None, {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [
            NewFact("응 좋아", "응 좋아", keyword_terms("응 좋아"), context_terms=keyword_terms("제주도 여행 갈래?")),
            NewFact("제주도 좋지", "제주도 좋지", keyword_terms("제주도 좋지")),
        ], np.eye(4, dtype=np.float32)[:2])
    assert [i for i, _ in store.search.keyword(b.id, keyword_terms("제주도"), 10)] == [ids[1]]
    weighted = store.search.keyword(b.id, keyword_terms("제주도"), 10, context_weight=0.3)
    assert [i for i, _ in weighted] == [ids[1], ids[0]] and weighted[1][1] > 0
    with store.write():  # clearing the context drops its terms, keeps the fact's own
        store.search.clear_context(b.id, 4, ids[0])
    assert [i for i, _ in store.search.keyword(b.id, keyword_terms("제주도"), 10, context_weight=0.3)] == [ids[1]]
    assert store.search.keyword(b.id, keyword_terms("좋아"), 10)[0][0] == ids[0]
    assert np.array_equal(store.search.vectors_of(4, [ids[0]])[ids[0]], np.eye(4, dtype=np.float32)[0])


def test_a_reply_has_a_context_vector_searched_apart_and_cleared_with_its_context(store: AnyStore) -> None:
    own = np.eye(4, dtype=np.float32)[:2]
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "conversation", None, {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [
            NewFact("제주도 여행 갈래?", "a: 제주도 여행 갈래?", keyword_terms("제주도 여행 갈래?")),
            NewFact("Yes, twice!", "b: Yes, twice!", keyword_terms("Yes, twice!"),
                    context_embed_text="a: 제주도 여행 갈래?\nb: Yes, twice!"),
        ], own, [None, np.array([0.8, 0.6, 0, 0], np.float32)])
    query = np.array([1, 0, 0, 0], np.float32)
    assert [i for i, _ in store.search.vector(b.id, 4, query, 10)][0] == ids[0]
    context_hits = store.search.vector(b.id, 4, query, 10, view="context")
    assert [i for i, _ in context_hits] == [ids[1]] and context_hits[0][1] == pytest.approx(0.8, abs=1e-5)
    assert set(store.search.vectors_of(4, ids, view="context")) == {ids[1]}
    with pytest.raises(ValueError, match="vector view"):
        store.search.vector(b.id, 4, query, 10, view="nope")
    with store.write():
        store.search.clear_context(b.id, 4, ids[1])
    assert store.search.vector(b.id, 4, query, 10, view="context") == []
    assert set(store.search.vectors_of(4, ids)) == set(ids)


def test_bm25_scores_are_the_same_in_both_stores(tmp_path: Path, pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    """The PostgreSQL BM25 is FTS5's: same ranking and the same scores, per bank, before and after deletes,
    with context weights and with terms the tokenizer splits into phrases ("3.5", "o'neil")."""
    texts = ["한라산에 올랐다", "Hiking on Jeju island with my sister", "한라산 한라산 사진 찍었어",
             "부산 여행 3.5일 계획", "O'Neil likes 3.5 mile hikes", "서울 맛집 탐방",
             "my sister loves hiking in Toronto", "hike hike hike hike",
             "오트밀크로 바꿨어", "I switched from almond milk to oat milk", "5 3 numbers 3 5 3.5"]
    stores: list[AnyStore] = [SQLiteStore(str(tmp_path / "x.db")), PostgresStore(pg_dsn_factory())]
    try:
        banks = []
        for s in stores:
            with s.write():
                noise = s.banks.create("noise", "fake", 4)  # another bank's statistics must not leak in
                src = s.sources.upsert(noise.id, "s", "document", "x", {})
                chunk = s.sources.add_chunk(noise.id, src, 0, "sha", "x", [])
                s.facts.add(noise.id, src, chunk, [_fact("한라산 hike hike")] * 5, np.ones((5, 4), np.float32))
                b = s.banks.create("a", "fake", 4)
                src = s.sources.upsert(b.id, "s", "document", "x", {})
                chunk = s.sources.add_chunk(b.id, src, 0, "sha", "x", [])
                facts = [NewFact(t, t, keyword_terms(t), context_terms=keyword_terms(c), tokens=3)
                         for t, c in zip(texts, reversed(texts))]
                s.facts.add(b.id, src, chunk, facts, np.ones((len(texts), 4), np.float32))
            banks.append(b.id)
        assert banks[0] == banks[1]
        queries = ["한라산", "hiking sister", "3.5", "o'neil", "oat milk", "hike", "한라산 사진 여행", "5"]
        compared = 0
        for erase in (False, True):
            if erase:
                for s, b in zip(stores, banks):
                    with s.write():
                        s.erasure.erase(b, 4, [8, 10])
            for q in queries:
                for weight in (0.0, 0.3, 1.0):
                    sqlite_hits, pg_hits = (s.search.keyword(b, keyword_terms(q), 20, weight)
                                            for s, b in zip(stores, banks))
                    compared += len(sqlite_hits)
                    assert [i for i, _ in pg_hits] == [i for i, _ in sqlite_hits], (q, weight)
                    assert [s for _, s in pg_hits] == pytest.approx([s for _, s in sqlite_hits], rel=1e-9), (q, weight)
        assert compared > 100
    finally:
        for s in stores:
            s.close()


# -- vector channel ------------------------------------------------------------------------------
def test_vector_search_orders_by_cosine_and_returns_float32_vectors(store: AnyStore) -> None:
    vectors = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 0, 0], [-1, 0, 0, 0.5]], dtype=np.float32)
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [_fact(f"fact {i}") for i in range(4)], vectors)
    hits = store.search.vector(b.id, 4, np.array([1, 0.1, 0, 0], dtype=np.float32), 3)
    assert [i for i, _ in hits] == [ids[0], ids[1], ids[2]]
    q = np.array([1, 0.1, 0, 0])
    expected = [float(v @ q / np.linalg.norm(v) / np.linalg.norm(q)) for v in vectors[:3]]
    assert [s for _, s in hits] == pytest.approx(expected, abs=1e-5)
    got = store.search.vectors_of(4, [ids[1], ids[3], 999])
    assert set(got) == {ids[1], ids[3]} and got[ids[1]].dtype == np.float32
    assert np.array_equal(got[ids[3]], vectors[3])
    sample = store.search.sample(b.id, 4, 10)
    assert sample.shape == (4, 4) and sample.dtype == np.float32
    assert {tuple(v) for v in sample} == {tuple(v) for v in vectors}
    assert store.search.sample(b.id, 4, 2).shape == (2, 4)
    empty = store.search.sample(b.id + 1, 4, 10)
    assert empty.shape == (0, 4) and empty.dtype == np.float32
    assert store.search.vectors_of(4, []) == {}


# -- entities, mentions, links, time -------------------------------------------------------------
def test_entities_mentions_and_links(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        minji = store.graph.save_entity(bank, None, "김민지", "person", ["민지", "김 팀장"], ["팀장"], {"alice": 2},
                                        10.0, ["김민지", "민지"])
        hana = store.graph.save_entity(bank, None, "Hana", "person", [], [], {}, None, ["hana"])
        alps = store.graph.save_entity(bank, None, "Alps", "place", [], [], {}, 20.0, ["alps"])
        store.graph.save_entity(bank, minji, "김민지", "person", ["민지", "김 팀장", "민지님"], ["팀장"], {"alice": 3},
                                30.0, ["민지님", "민지"])
        store.graph.add_mentions(f[0], [(minji, "김민지"), (hana, "Hana")])
        store.graph.add_mentions(f[0], [(minji, "민지")])  # already there: ignored
        store.graph.add_mentions(f[1], [(minji, "민지")])
        store.graph.add_mentions(f[3], [(alps, "Alps")])
        store.graph.bump_context_degrees(bank, ["alice", "bob", "alice"])
        store.graph.add_links(bank, [(f[0], f[1], "temporal", 0.5), (f[1], f[2], "semantic", 0.8),
                               (f[2], f[0], "caused_by", 1.0)])
        store.graph.add_links(bank, [(f[0], f[1], "temporal", 0.9)])  # replaces the weight
    found = store.graph.entities_by_keys(bank, ["민지님", "민지", "nobody"])
    assert found == [EntityRow(minji, "김민지", "person", ["민지", "김 팀장", "민지님"], ["팀장"], {"alice": 3}, 30.0)]
    assert store.graph.entities_by_keys(bank, []) == [] and store.graph.entities_by_keys(bank + 1, ["민지"]) == []
    assert store.graph.entity_key_index(bank, ["민지", "hana", "김민지", "nobody"]) == \
        {"hana": (hana,), "김민지": (minji,), "민지": (minji,)}
    assert store.graph.entity_key_index(bank, []) == {} and store.graph.entity_key_index(bank + 1, ["hana"]) == {}
    assert store.graph.recent_entity_names(bank, 2) == ["김민지", "민지", "김 팀장", "민지님", "Alps"]
    assert store.graph.recent_entity_names(bank, 10)[-1] == "Hana"  # never seen: last
    assert store.graph.entities_of_facts([f[0], f[1], f[2]]) == {f[0]: sorted([minji, hana]), f[1]: [minji]}
    assert store.graph.entity_degrees([minji, hana, alps]) == {minji: 2, hana: 1, alps: 1}
    assert store.graph.facts_of_entities([minji, hana], 1) == {minji: [f[1]], hana: [f[0]]}
    assert store.graph.facts_of_entities([minji], 5) == {minji: [f[1], f[0]]}
    assert store.graph.entity_names([minji, alps]) == {minji: "김민지", alps: "Alps"}
    assert store.graph.context_degrees(bank, ["alice", "bob", "carol"]) == {"alice": 2, "bob": 1}
    assert sorted(store.graph.links_of([f[0]])) == sorted([(f[0], f[1], "temporal", 0.9),
                                                          (f[0], f[2], "caused_by", 1.0)])
    assert store.graph.links_of([f[1]], ["semantic"]) == [(f[1], f[2], "semantic", 0.8)]
    assert store.graph.links_of([]) == []
    assert store.facts.recent_of_source(c["source"], 2) == [(f[3], 1_772_000_300.0), (f[2], 1_772_000_200.0)]
    with store.write():
        store.sources.delete_chunks(bank, [c["chunks"][3]])  # Alps loses its only mention
    assert store.graph.entity_names([alps]) == {}
    with store.write():
        store.erasure.scrub_context_keys(bank, ["alice"])
    assert store.graph.entities_by_keys(bank, ["민지"])[0].cooccurring == {}
    assert store.graph.context_degrees(bank, ["alice", "bob"]) == {"bob": 1}


def test_what_erasure_takes_back_from_the_graph(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        minji = store.graph.save_entity(bank, None, "김민지", "person", ["민지"], ["팀장"], {"hana": 2, "#work": 1},
                                        10.0, ["김민지", "민지", "surname:김"])
        hana = store.graph.save_entity(bank, None, "Hana", "person", [], [], {"김민지": 2}, None, ["hana"])
        store.graph.add_mentions(f[0], [(minji, "김민지 팀장"), (hana, "Hana")])
        store.graph.add_mentions(f[1], [(minji, "민지")])
        store.graph.bump_context_degrees(bank, ["hana", "hana", "김민지", "#work"])
    assert store.graph.mentions([f[1], f[0]]) == sorted([(f[0], minji, "김민지 팀장"), (f[0], hana, "Hana"),
                                                        (f[1], minji, "민지")])
    assert store.graph.mentions([]) == []
    assert [e.id for e in store.graph.entities_by_ids(bank, [hana, minji, 10_000])] == sorted([minji, hana])
    assert store.graph.entities_by_ids(bank + 1, [minji]) == []
    with store.write():
        store.graph.set_entity_keys(bank, minji, ["민지", "민지"])
        store.graph.adjust_context_degrees(bank, {"hana": -1, "김민지": -1, "#work": 0})
    assert store.graph.entities_by_keys(bank, ["김민지", "surname:김"]) == []
    assert [e.id for e in store.graph.entities_by_keys(bank, ["민지"])] == [minji]
    assert store.graph.context_degrees(bank, ["hana", "김민지", "#work"]) == {"hana": 1, "#work": 1}
    assert store.graph.context_degree_keys(bank) == ["#work", "hana"]
    with store.write():
        store.graph.delete_context_degrees(bank, ["hana", "nobody"])
    assert store.graph.context_degree_keys(bank) == ["#work"]


def test_evidence_is_what_was_given_and_empty_banks_can_go(store: AnyStore) -> None:
    c = _conversation(store)
    with store.write():
        store.graph.save_entity(c["bank"], None, "Quillon Vantrell", "person", [], [], {}, None, ["quillon vantrell"])
        store.jobs.enqueue(c["bank"], "retain", {"messages": [{"text": "대기 중인 메시지"}]}, unique=False)
        model = store.models.save(c["bank"], "food", "음식 취향은?")
        store.models.set_answer(model, "김치찌개", ["f-1"], 1.0)
        empty = store.banks.create("empty", "fake", 4)
        configured = store.banks.create("configured", "fake", 4)
        store.banks.set_config(configured.id, {"llm": {"enabled": False}})
    said = "\n".join(store.erasure.evidence_texts(c["bank"]))
    assert all(t in said for t in c["texts"]) and "대기 중인 메시지" in said and "음식 취향은?" in said
    assert "Quillon" not in said and "김치찌개" not in said  # derived: an entity, an answer
    assert "world" in said and "retain" in said  # the store's own words: a fact kind, a job kind
    assert "empty" not in "\n".join(store.erasure.evidence_texts(c["bank"])).split()
    assert "empty" in "\n".join(store.erasure.evidence_texts(None))
    with store.write():
        assert store.models.clear_answers([model]) == 1
        assert store.banks.delete_if_empty(c["bank"]) is False
        assert store.banks.delete_if_empty(configured.id) is False
        assert store.banks.delete_if_empty(empty.id) is True
        assert store.banks.delete_if_empty(empty.id) is False
    assert store.models.all(c["bank"])[0].answer is None
    assert [b.name for b in store.banks.all()] == ["alice", "configured"]
    assert store.erasure.checkpoint() is True


def test_facts_in_range(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [
            _fact("a", occurred_start=100.0, occurred_end=200.0, mentioned_at=500.0),
            _fact("b", mentioned_at=150.0),
            _fact("c", occurred_start=300.0, mentioned_at=50.0),
            _fact("d"),
        ], np.eye(4, dtype=np.float32))
    assert sorted(store.facts.in_range(b.id, 120.0, 160.0, 10)) == [(ids[0], 100.0, 200.0), (ids[1], 150.0, 150.0)]
    assert sorted(store.facts.in_range(b.id, 200.0, 301.0, 10)) == [(ids[0], 100.0, 200.0), (ids[2], 300.0, 300.0)]
    assert store.facts.in_range(b.id, 1000.0, 2000.0, 10) == []
    assert len(store.facts.in_range(b.id, 0.0, 1000.0, 2)) == 2


# -- versions, decay, TTL ------------------------------------------------------------------------
def test_supersede_version_chain_and_lifecycle(store: AnyStore) -> None:
    c = _conversation(store)
    f = c["facts"]
    with store.write():
        store.versions.supersede(f[0], f[1], 5000.0, "update")
        store.versions.supersede(f[1], f[2], 6000.0, "correction")
    assert store.versions.chain(f[0]) == f[:3] == store.versions.chain(f[1]) == store.versions.chain(f[2])
    assert store.versions.chain(f[3]) == [f[3]]
    row = store.facts.get(c["bank"], [f[0]])[0]
    assert (row.valid_to, row.superseded_by) == (5000.0, f[1])
    life = store.versions.state_of([f[0], f[1], 999])
    assert set(life) == {f[0], f[1]}
    assert life[f[1]] == {"superseded_by": f[2], "supersede_reason": "correction", "strength": 1.0,
                          "recall_count": 0, "last_recalled_at": None, "archived_at": None, "supersedes": [f[0]]}
    assert life[f[0]]["supersedes"] == [] and store.versions.state_of([]) == {}


def test_decay_rows_strengths_recall_touches_and_ttl(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [
            _fact("a", decay_class="transient", mentioned_at=10.0, expires_at=100.0),
            _fact("b", pinned=True),
            _fact("c", expires_at=300.0),
        ], np.eye(4, dtype=np.float32)[:3])
    rows = store.versions.decay_rows(b.id, 0, 10)
    assert [r[0] for r in rows] == ids
    assert rows[0][1:4] == ("transient", False, 10.0) and rows[1][2] is True and rows[0][5:] == (0, None)
    assert isinstance(rows[0][4], float) and [r[0] for r in store.versions.decay_rows(b.id, ids[0], 1)] == [ids[1]]
    with store.write():
        store.versions.set_strengths([(ids[0], 0.25, None), (ids[1], 0.5, 777.0)])
        store.versions.touch_recalled([ids[0], ids[1]], 900.0)  # archived facts are not refreshed
    life = store.versions.state_of(ids)
    assert (life[ids[0]]["strength"], life[ids[0]]["recall_count"], life[ids[0]]["last_recalled_at"]) == (1.0, 1, 900.0)
    assert (life[ids[1]]["strength"], life[ids[1]]["archived_at"], life[ids[1]]["recall_count"]) == (0.5, 777.0, 0)
    assert [r[0] for r in store.versions.decay_rows(b.id, 0, 10)] == [ids[0], ids[2]]
    assert store.versions.decay_rows(b.id, 0, 10)[0][5:] == (1, 900.0)
    with store.write():
        store.versions.set_class([ids[1], ids[2]], "permanent", 0.8, True)
    got = {r.id: r for r in store.facts.get(b.id, ids)}
    assert (got[ids[1]].decay_class, got[ids[1]].importance, got[ids[1]].pinned) == ("permanent", 0.8, True)
    assert (got[ids[1]].strength, got[ids[1]].archived_at) == (1.0, None)
    assert store.versions.expired(b.id, 200.0) == [ids[0]]
    assert store.versions.expired(b.id, 300.0) == [ids[0], ids[2]]


def test_selecting_facts_and_messages_to_erase(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        ent = store.graph.save_entity(bank, None, "Alps", "place", [], [], {}, None, ["alps"])
        store.graph.add_mentions(f[3], [(ent, "Alps")])
    assert store.erasure.fact_ids(bank, source_row=c["source"]) == f
    assert store.erasure.fact_ids(bank, message_id="m2") == [f[1]]
    assert store.erasure.fact_ids(bank, entity_ids=[ent]) == [f[3]]
    assert store.erasure.fact_ids(bank, before=1_772_000_150.0) == f[:2]
    assert store.erasure.fact_ids(bank) == [] and store.erasure.fact_ids(bank, message_id="zz") == []
    rows = store.erasure.message_rows(bank, message_id="m3")
    assert len(rows) == 1 and rows[0][1:] == (c["source"], "m3")
    # timestamps compare as instants: +09:00 offsets, Z and naive (= UTC) alike
    before = store.erasure.message_rows(bank, before_iso="2026-03-02T02:00:00+00:00")
    assert [r[2] for r in before] == ["m1", "m2"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T09:00:30Z")] == ["m1", "m2", "m3"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T18:00:30+09:00")] == \
        ["m1", "m2", "m3"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T10:00:00+00:00")] == \
        ["m1", "m2", "m3", "m4"]
    m1 = store.erasure.message_rows(bank, message_id="m1")[0][0]
    m4 = store.erasure.message_rows(bank, message_id="m4")[0][0]
    assert store.erasure.following_facts([m1]) == [f[1]] and store.erasure.following_facts([m4]) == []
    assert store.erasure.message_texts([m1, m4]) == [c["texts"][0], c["texts"][3]]
    assert store.erasure.source_texts([c["source"]]) == c["texts"]


# -- jobs ----------------------------------------------------------------------------------------
def test_job_queue_enqueue_claim_lease_finish_retry(store: AnyStore) -> None:
    a = _setup(store, "a", ["x"])
    b = _setup(store, "b", ["y"])
    with store.write():
        first = store.jobs.enqueue(a, "consolidate", run_after=100.0)
        assert store.jobs.enqueue(a, "consolidate", {"fact_ids": [1]}) == first  # unique: the queued one
        second = store.jobs.enqueue(a, "consolidate", {"fact_ids": [1, 2]}, run_after=100.0, unique=False)
        decay = store.jobs.enqueue(b, "decay", {"이름": "값"}, run_after=50.0)
        later = store.jobs.enqueue(a, "refresh_models", run_after=10_000.0)
    assert len({first, second, decay, later}) == 4
    with store.write():
        assert store.jobs.claim("w1", 20.0, 60.0) is None  # nothing is due yet
        job = store.jobs.claim("w1", 200.0, 60.0, after_bank=a)  # bank a was served last: b's turn
        assert isinstance(job, JobRow)
        assert (job.id, job.bank_id, job.kind, job.status, job.attempts, job.payload) == (
            decay, b, "decay", "running", 1, {"이름": "값"})
        assert (job.claimed_by, job.lease_until, job.started_at) == ("w1", 260.0, 200.0)
        assert store.jobs.claim("w2", 200.0, 60.0, kinds=["decay"]) is None
        mine = store.jobs.claim("w2", 200.0, 60.0, bank_id=a)
        assert mine.id == first and mine.run_after == 100.0
        # one consolidation per bank at a time: the second waits while the first runs
        assert store.jobs.claim("w3", 200.0, 60.0, kinds=["consolidate"], bank_id=a) is None
        assert store.jobs.claim("w3", 230.0, 60.0) is None  # claimed ones are leased
        reclaimed = store.jobs.claim("w3b", 270.0, 60.0, kinds=["decay"])  # w1's lease ran out
        assert (reclaimed.id, reclaimed.attempts, reclaimed.claimed_by) == (decay, 2, "w3b")
        assert store.jobs.finish(decay, claimed_by="w1") is False  # the old claim may not end it
        assert store.jobs.finish(decay, claimed_by="w3b") is True
        assert store.jobs.finish(first, error="boom " * 200, retry_at=500.0, claimed_by="w2")
        assert store.jobs.claim("w3c", 300.0, 60.0, kinds=["consolidate"], bank_id=a).id == second
        store.jobs.finish(second, error="gave up")
    done = store.jobs.all(status="done")
    assert [j.id for j in done] == [decay] and done[0].last_error is None and done[0].finished_at is not None
    retry = store.jobs.all(bank_id=a, status="queued")
    assert [j.id for j in retry] == [later, first]  # newest first
    assert retry[1].run_after == 500.0 and len(retry[1].last_error) == 500
    assert [j.status for j in store.jobs.all(bank_id=a)] == ["queued", "failed", "queued"]
    assert store.jobs.all(bank_id=a, limit=1)[0].id == later
    assert store.jobs.counts() == {"done": 1, "failed": 1, "queued": 2}
    with store.write():
        assert store.jobs.claim("w4", 400.0, 60.0, bank_id=a) is None
        assert store.jobs.claim("w4", 600.0, 60.0, bank_id=a).id == first
        assert store.jobs.enqueue(a, "consolidate") != first  # no queued consolidation left to reuse


def test_job_claims_take_bank_turns_fifo_within_a_bank(store: AnyStore) -> None:
    """Deficit Round Robin with a quantum of one job: a bank with many queued jobs delays another
    bank's later job by one claim, and each bank's own jobs come out in queue order."""
    a = _setup(store, "업로드-a", ["x"])
    b = _setup(store, "chat-b", ["y"])
    c = _setup(store, "idle-c", ["z"])
    with store.write():
        a_jobs = [store.jobs.enqueue(a, "retain", {"n": i}, run_after=10.0 + i, unique=False) for i in range(5)]
        b_job = store.jobs.enqueue(b, "retain", {"n": "늦게"}, run_after=50.0, unique=False)
    order, cursor = [], None
    with store.write():
        while (job := store.jobs.claim(f"w{len(order)}", 100.0, 60.0, after_bank=cursor)) is not None:
            order.append(job.id)
            cursor = job.bank_id
    # FIFO would run b's job last; the turns put it second, a's stay in their order
    assert order == [a_jobs[0], b_job, *a_jobs[1:]]
    assert c not in {store.jobs.get(i).bank_id for i in order}
    with store.write():  # the cursor wraps: after the highest bank id, the lowest one with work
        extra = store.jobs.enqueue(a, "retain", {}, run_after=10.0, unique=False)
        assert store.jobs.claim("w-wrap", 150.0, 60.0, after_bank=max(a, b, c)).id == extra
        only_b = store.jobs.enqueue(b, "retain", {}, run_after=10.0, unique=False)
        store.jobs.enqueue(a, "retain", {}, run_after=10.0, unique=False)
        assert store.jobs.claim("w-banks", 150.0, 60.0, banks=[b]).id == only_b  # --banks
        assert store.jobs.claim("w-none", 150.0, 60.0, banks=[]) is None


def test_job_lease_heartbeat_release_cancel_retry(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        job_id = store.jobs.enqueue(bank, "retain", {"text": "안녕"}, run_after=0.0, unique=False)
        claimed = store.jobs.claim("t1", 100.0, 60.0)
        assert (claimed.id, claimed.lease_until) == (job_id, 160.0)
        assert store.jobs.renew_lease(job_id, "t1", 250.0) is True  # the heartbeat
        assert store.jobs.renew_lease(job_id, "someone-else", 999.0) is False
        assert store.jobs.claim("t2", 200.0, 60.0) is None  # renewed: still held at 200
        again = store.jobs.claim("t2", 251.0, 60.0)  # the heartbeat stopped (worker killed): claimed again
        assert (again.id, again.attempts, again.claimed_by, again.started_at) == (job_id, 2, "t2", 100.0)
        assert store.jobs.renew_lease(job_id, "t1", 999.0) is False  # the dead claim cannot revive
        assert store.jobs.release(job_id, "t1") is False
        assert store.jobs.release(job_id, "t2") is True  # a stopping worker gives it back
    released = store.jobs.get(job_id)
    assert (released.status, released.attempts, released.claimed_by, released.lease_until) == ("queued", 1, None, None)
    with store.write():
        store.jobs.claim("t3", 300.0, 60.0)
        assert store.jobs.cancel(job_id) is True  # a running job can be cancelled
        assert store.jobs.finish(job_id, result={"facts": 1}, claimed_by="t3") is False  # its commit is refused
        assert store.jobs.cancel(job_id) is False  # already ended
        assert store.jobs.claim("t4", 10_000.0, 60.0) is None  # a cancelled job is never claimed
    cancelled = store.jobs.get(job_id)
    assert (cancelled.status, cancelled.result) == ("cancelled", None) and cancelled.finished_at is not None
    with store.write():
        assert store.jobs.retry(job_id, 400.0) is True
        assert store.jobs.retry(job_id, 400.0) is False  # queued: nothing to retry
        assert store.jobs.claim("t5", 399.0, 60.0) is None
        retried = store.jobs.claim("t5", 400.0, 60.0)
        assert (retried.id, retried.attempts, retried.finished_at) == (job_id, 1, None)
        assert store.jobs.finish(job_id, error="LLMAuthError: key refused", claimed_by="t5") is True
        assert store.jobs.cancel(job_id) is False  # failed: only retry applies
    assert (store.jobs.get(job_id).status, store.jobs.get(job_id).last_error) == ("failed", "LLMAuthError: key refused")


def test_concurrent_claims_never_take_a_job_twice(open_store: Callable[[], AnyStore]) -> None:
    """Four claimers on their own connections (four processes on PostgreSQL: SKIP LOCKED; on SQLite
    the file's write lock) drain 60 jobs of three banks: each is claimed exactly once."""
    first = open_store()
    banks = [_setup(first, name, ["x"]) for name in ("가", "b", "다")]
    with first.write():
        ids = {first.jobs.enqueue(banks[i % 3], "retain", {"i": i}, run_after=0.0, unique=False) for i in range(60)}
    stores = [first] + [open_store() for _ in range(3)]
    taken: list[list[int]] = [[] for _ in stores]
    errors: list[BaseException] = []

    def drain(k: int) -> None:
        cursor = None
        try:
            while True:
                with stores[k].write():
                    job = stores[k].jobs.claim(f"c{k}-{len(taken[k])}", 100.0, 60.0, after_bank=cursor)
                if job is None:
                    return
                cursor = job.bank_id
                taken[k].append(job.id)
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=drain, args=(k,)) for k in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    every = [i for got in taken for i in got]
    assert sorted(every) == sorted(ids) and len(every) == len(set(every))
    assert first.jobs.counts() == {"running": 60}


def test_one_consolidation_per_bank_at_a_time(open_store: Callable[[], AnyStore]) -> None:
    first, second = open_store(), open_store()
    a = _setup(first, "a", ["x"])
    b = _setup(first, "b", ["y"])
    with first.write():
        a1 = first.jobs.enqueue(a, "consolidate", {"fact_ids": [1]}, run_after=0.0, unique=False)
        a2 = first.jobs.enqueue(a, "consolidate", {"fact_ids": [2]}, run_after=0.0, unique=False)
        b1 = first.jobs.enqueue(b, "consolidate", {}, run_after=0.0, unique=False)
    with first.write():
        assert first.jobs.claim("p1", 10.0, 60.0, bank_id=a).id == a1
    with second.write():  # another process: a's second consolidation waits, b's may run
        assert second.jobs.claim("p2", 10.0, 60.0, kinds=["consolidate"], bank_id=a) is None
        assert second.jobs.claim("p2", 10.0, 60.0, kinds=["consolidate"]).id == b1
    with first.write():
        assert first.jobs.finish(a1, result={}, claimed_by="p1")
    with second.write():
        assert second.jobs.claim("p3", 11.0, 60.0, kinds=["consolidate"]).id == a2
    with second.write():  # its lease ran out: the same job is claimed again, none other
        assert first.jobs.get(a2).status == "running"
        assert second.jobs.claim("p4", 100.0, 60.0, kinds=["consolidate"], bank_id=a).id == a2


def test_one_consolidation_race_loses_quietly(open_store: Callable[[], AnyStore]) -> None:
    """Two claims in flight at once for one bank's two consolidations: the unique index lets one
    win; the other gets nothing (no error, nothing claimed) instead of a second consolidation."""
    first, second = open_store(), open_store()
    a = _setup(first, "a", ["x"])
    with first.write():
        first.jobs.enqueue(a, "consolidate", {}, run_after=0.0, unique=False)
        first.jobs.enqueue(a, "consolidate", {}, run_after=0.0, unique=False)
    if isinstance(first, SQLiteStore):
        pytest.skip("SQLite serialises claims on the file's write lock: two cannot be in flight")
    got: list[Any] = []
    held, release = threading.Event(), threading.Event()

    def claim_and_hold() -> None:
        with first.write():
            got.append(first.jobs.claim("r1", 10.0, 60.0))
            held.set()
            release.wait(10)

    t = threading.Thread(target=claim_and_hold)
    t.start()
    assert held.wait(10)
    racing: list[Any] = []
    r = threading.Thread(target=lambda: racing.append(_claim_once(second, "r2")))
    r.start()
    r.join(0.5)  # it waits on the unique index until the first claim commits
    release.set()
    t.join(10)
    r.join(10)
    assert got[0] is not None and racing == [None]
    assert [j.status for j in first.jobs.all(bank_id=a)].count("running") == 1


def _claim_once(store: AnyStore, token: str) -> Any:
    with store.write():
        return store.jobs.claim(token, 10.0, 60.0)


# -- observations, mental models, LLM usage ------------------------------------------------------
def test_observations_save_update_delete(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        ent = store.graph.save_entity(bank, None, "Alice", "person", [], [], {}, None, ["alice"])
        o1 = store.observations.save(bank, None, entity_id=ent, topic="alice", text="Alice likes the Alps",
                                     fact_ids=[f[3], f[2]], history=[{"text": "처음", "at": 1.0}], believed_at=5.0,
                                     embedding=np.array([1, 2, 3, 4], np.float32), terms=["alic", "alp"], tokens=7)
        o2 = store.observations.save(bank, None, entity_id=None, topic="food", text="카페를 좋아함", fact_ids=[f[2]],
                                     history=[], believed_at=None, embedding=None, terms=["카페"], tokens=3)
        store.observations.mark_consolidated([f[2], f[3]], 50.0)
        store.models.save(bank, "likes", "What does Alice like?")
        store.models.set_answer(store.models.all(bank)[0].id, "The Alps", [f"o-{o1}"], 60.0)
    got = store.observations.get(bank, [o1, 999])
    assert got == [ObservationRow(o1, bank, ent, "alice", "Alice likes the Alps", sorted([f[2], f[3]]),
                                  [{"text": "처음", "at": 1.0}], 5.0, got[0].created_at, got[0].updated_at, 7)]
    assert [o.id for o in store.observations.all(bank)] == [o1, o2]
    assert [o.id for o in store.observations.all(bank, "food")] == [o2]
    assert store.observations.of_facts([f[2]]) == [o1, o2] and store.observations.of_facts([f[0]]) == []
    ids, vectors = store.observations.vectors(bank)
    assert ids == [o1] and vectors.dtype == np.float32 and np.array_equal(vectors[0], [1, 2, 3, 4])
    assert store.observations.vectors(bank + 1) == ([], None)
    assert store.observations.terms(bank) == [(o1, "alic alp"), (o2, "카페")]
    assert store.observations.unconsolidated(bank, 10) == f[:2]
    with store.write():
        assert store.observations.save(bank, o1, entity_id=ent, topic="alice", text="Alice loves the Alps",
                                       fact_ids=[f[3]], history=[], believed_at=6.0, embedding=None, terms=[],
                                       tokens=8) == o1
        store.observations.mark_consolidated([f[0]], 70.0, failed=True)
    updated = store.observations.get(bank, [o1])[0]
    assert ((updated.text, updated.fact_ids, updated.tokens, updated.believed_at)
            == ("Alice loves the Alps", [f[3]], 8, 6.0))
    assert updated.updated_at >= updated.created_at
    assert store.observations.unconsolidated(bank, 10) == [f[1]]  # f0 failed alone, f2/f3 are consolidated
    with store.write():
        assert store.observations.delete(bank, [o1]) == 1
        assert store.observations.delete(bank, []) == 0
    assert store.observations.get(bank, [o1]) == []
    assert store.observations.unconsolidated(bank, 10) == [f[1], f[3]]  # its support goes back in the queue
    assert store.models.all(bank)[0].answer is None  # the answer cited the observation


def test_mental_models_and_llm_usage(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        m1 = store.models.save(bank, "zeta", "Z?")
        m2 = store.models.save(bank, "Alpha", "A?")
        store.models.set_answer(m1, "answer", ["f-1", "o-2"], 10.0)
    models = store.models.all(bank)
    assert [m.name for m in models] == ["Alpha", "zeta"] and all(isinstance(m, MentalModelRow) for m in models)
    assert models[1] == MentalModelRow(m1, bank, "zeta", "Z?", "answer", ["f-1", "o-2"], 10.0, models[1].created_at)
    with store.write():
        assert store.models.save(bank, "zeta", "Z again?") == m1  # same name: reset, same id
        assert store.models.delete(bank, "Alpha") == 1
        assert store.models.delete(bank, "Alpha") == 0
    assert [(m.id, m.question, m.answer, m.based_on) for m in store.models.all(bank)] == [(m1, "Z again?", None, [])]
    assert m2 != m1
    with store.write():
        store.llm.add(bank, "2026-05-01", "extract", "openai", "gpt", 1, 100, 20, 0.25)
        store.llm.add(bank, "2026-05-01", "extract", "openai", "gpt", 2, 50, 10, 0.5)
        store.llm.add(bank, "2026-04-30", "reflect", "anthropic", "claude", 1, 10, 5, 0.125)
    assert store.llm.usage(bank) == [
        {"day": "2026-04-30", "operation": "reflect", "provider": "anthropic", "model": "claude", "calls": 1,
         "input_tokens": 10, "output_tokens": 5, "cost_usd": 0.125},
        {"day": "2026-05-01", "operation": "extract", "provider": "openai", "model": "gpt", "calls": 3,
         "input_tokens": 150, "output_tokens": 30, "cost_usd": 0.75},
    ]
    assert store.llm.spend(bank) == 0.875 and store.llm.spend(bank + 1) == 0.0


# -- erasure and its proof -----------------------------------------------------------------------
def test_erase_facts_cascades_to_everything_derived(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f, dim = c["bank"], c["facts"], c["dim"]
    with store.write():
        ent = store.graph.save_entity(bank, None, MARKER_EN, "place", [], [], {}, None, ["zebraquartz"])
        store.graph.add_mentions(f[2], [(ent, MARKER_EN)])
        store.graph.add_links(bank, [(f[2], f[3], "semantic", 0.7), (f[0], f[3], "temporal", 0.5)])
        store.versions.supersede(f[1], f[2], 999.0, "update")
        obs = store.observations.save(bank, None, entity_id=ent, topic="cafe", text=f"Favourite: {MARKER_EN}",
                                      fact_ids=[f[2], f[3]], history=[], believed_at=None,
                                      embedding=np.ones(4, np.float32), terms=["zebraquartz"], tokens=5)
        keep = store.observations.save(bank, None, entity_id=None, topic="hiking", text="Hikes", fact_ids=[f[3]],
                                       history=[], believed_at=None, embedding=None, terms=[], tokens=1)
        store.observations.mark_consolidated(f, 10.0)
        dropped = store.jobs.enqueue(bank, "consolidate", {"fact_ids": [f[2]]}, unique=False)
        trimmed = store.jobs.enqueue(bank, "consolidate", {"fact_ids": [f[2], f[3]]}, unique=False)
        untouched = store.jobs.enqueue(bank, "decay", {}, unique=False)
        model = store.models.save(bank, "cafe", "Where does Alice go?")
        store.models.set_answer(model, "Zebraquartz", [f"o-{obs}"], 20.0)
        other = store.models.save(bank, "hike", "Hikes?")
        store.models.set_answer(other, "Alps", [f"f-{f[3]}"], 20.0)
    before = store.erasure.scan([MARKER_EN])
    assert {"facts", "messages", "chunks", "observations", "entities"} <= {hit["table"] for hit in before}
    assert store.search.keyword(bank, keyword_terms("favourite cafe"), 10)
    with store.write():
        counts = store.erasure.erase(bank, dim, [f[2], 12345])
        store.search.compact(bank)
    # the emptied message goes with its chunk (counted as a chunk, as in the SQLite store)
    assert counts == {"facts": 1, "messages": 0, "chunks": 1, "sources": 0, "observations": 1, "jobs": 2,
                      "mental_models": 1, "versions_reopened": 1, "entities": 1}
    assert store.facts.get(bank, [f[2]]) == [] and store.facts.count(bank) == 3
    assert store.search.keyword(bank, keyword_terms("favourite cafe"), 10) == []
    assert f[2] not in [i for i, _ in store.search.vector(bank, dim, np.array([0, 0, 1, 0], np.float32), 10)]
    assert store.search.vectors_of(dim, [f[2]]) == {} and store.search.vectors_of(dim, [f[2]], view="context") == {}
    assert f[3] in store.search.vectors_of(dim, [f[3]], view="context")
    assert store.graph.links_of([f[2]]) == [] and store.graph.links_of([f[3]]) == [(f[3], f[0], "temporal", 0.5)]
    assert store.observations.get(bank, [obs]) == [] and store.observations.get(bank, [keep])[0].fact_ids == [f[3]]
    assert store.observations.unconsolidated(bank, 10) == [f[3]]  # the erased observation's other support
    jobs = {j.id: j for j in store.jobs.all(bank_id=bank)}
    assert dropped not in jobs and jobs[trimmed].payload == {"fact_ids": [f[3]]} and untouched in jobs
    answers = {m.name: m.answer for m in store.models.all(bank)}
    assert answers == {"cafe": None, "hike": "Alps"}
    reopened = store.facts.get(bank, [f[1]])[0]
    assert (reopened.valid_to, reopened.superseded_by) == (None, None)
    assert store.graph.entities_by_keys(bank, ["zebraquartz"]) == []
    assert [m.id for m in store.sources.get(bank, "alice", "chat-1").messages] == ["m1", "m2", "m4"]
    assert store.erasure.scan([MARKER_EN]) == []
    assert [hit["table"] for hit in store.erasure.scan([MARKER_KO])] != []


def test_erase_cuts_text_out_of_shared_evidence_and_drops_emptied_sources(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        doc = store.sources.upsert(b.id, "doc", "document", f"첫 문장. {MARKER_EN} lives here. 끝.", {})
        chunk = store.sources.add_chunk(b.id, doc, 0, "sha", f"첫 문장. {MARKER_EN} lives here. 끝.", [])
        ids = store.facts.add(b.id, doc, chunk, [_fact(f"{MARKER_EN} lives here"), _fact("첫 문장")],
                              np.eye(4, dtype=np.float32)[:2])
        lone = store.sources.upsert(b.id, "lone", "document", "Only this", {})
        lone_chunk = store.sources.add_chunk(b.id, lone, 0, "sha2", "Only this", [])
        lone_fact = store.facts.add(b.id, lone, lone_chunk, [_fact("Only this")], np.eye(4, dtype=np.float32)[2:3])
    with store.write():
        counts = store.erasure.erase(b.id, 4, [ids[0], lone_fact[0]])
        store.search.compact(b.id)
    assert counts["facts"] == 2 and counts["chunks"] == 1 and counts["sources"] == 1
    source = store.sources.get(b.id, "a", "doc")
    assert source.text == f"첫 문장. {ERASED}. 끝." and store.sources.get(b.id, "a", "lone") is None
    assert store.sources.chunks(doc)[0].id == chunk
    assert store.erasure.scan([MARKER_EN]) == []
    with store.write():  # whole sources and single messages by row
        c = _conversation(store, "b")
        m2 = store.erasure.message_rows(c["bank"], message_id="m2")[0][0]
        counts = store.erasure.erase(c["bank"], 4, [c["facts"][1]], message_rows=[m2])
        assert counts["facts"] == 1 and store.sources.existing_messages(c["bank"], ["m2"]) == {}
        counts = store.erasure.erase(c["bank"], 4, c["facts"], source_rows=[c["source"]])
        store.search.compact(c["bank"])
    assert counts["sources"] == 1 and counts["facts"] == 3
    assert store.sources.get(c["bank"], "b", "chat-1") is None and store.facts.count(c["bank"]) == 0
    assert store.erasure.scan([MARKER_KO]) == []


def test_scan_for_finds_a_marker_in_every_kind_of_column_and_vacuum_proves_it_gone(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        store.sources.upsert(b.id, "meta", "document", None, {"note": MARKER_KO})
        store.audit.add([{"bank": "a", "operation": "x", "type": "t", "action": "a", "item_id": MARKER_EN}])
        store.observations.save(b.id, None, entity_id=None, topic="t", text="t", fact_ids=[], history=[],
                                believed_at=None, embedding=None, terms=[MARKER_EN], tokens=1)
    found = store.erasure.scan([MARKER_KO, MARKER_EN, "없는말"])
    hits = {(h["needle"], h["table"], h["column"], h["rows"]) for h in found}
    assert hits == {(MARKER_KO, "sources", "metadata", 1), (MARKER_EN, "audit_log", "item_id", 1),
                    (MARKER_EN, "observations", "terms", 1)}
    assert store.erasure.scan([]) == []
    with store.write(), pytest.raises(StoreError, match="vacuum"):
        store.erasure.vacuum()
    with store.write():
        store.banks.delete(b.id)
    store.erasure.vacuum()
    assert {h["table"] for h in store.erasure.scan([MARKER_KO, MARKER_EN])} == {"audit_log"}
    # SQLite proves the file's bytes too; PostgreSQL's proof covers the tables (see _pg_lifecycle)
    assert store.erasure.file_contains([MARKER_KO]) == []


# -- PostgreSQL only -----------------------------------------------------------------------------
def test_postgres_migrations_run_once_when_processes_start_together(pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    dsn = pg_dsn_factory()
    stores: list[PostgresStore] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def open_() -> None:
        try:
            s = PostgresStore(dsn)
            with lock:
                stores.append(s)
        except Exception as exc:  # noqa: BLE001  (collected and asserted below)
            errors.append(exc)

    threads = [threading.Thread(target=open_) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == [] and len(stores) == 4
        rows = stores[0]._conn().execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
        assert [r[0] for r in rows] == [name for name, _ in PG_MIGRATIONS]
        assert {s.meta.get("fingerprint_key") for s in stores} == {None}
    finally:
        for s in stores:
            s.close()


def test_postgres_connection_errors_are_clear_and_hide_the_password() -> None:
    dsn = "postgresql://gieok:s3cret-pw@127.0.0.1:1/nowhere?connect_timeout=2"
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as info:
        PostgresStore(dsn)
    assert "s3cret-pw" not in str(info.value)


def test_chunk_locations_round_trip_and_follow_a_moved_chunk(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("docs", "fake", 4)
        source = store.sources.upsert(b.id, "policy.pdf", "document", "x", {})
        located = store.sources.add_chunk(b.id, source, 0, "sha-a", "환불 정책", [],
                                          {"section": ["환불 정책", "예외"], "start": 0, "end": 5})
        paged = store.sources.add_chunk(b.id, source, 1, "sha-b", "Refunds take 14 days", [],
                                        {"page": 3, "start": 7, "end": 27})
        plain = store.sources.add_chunk(b.id, source, 2, "sha-c", "no location", [])
    assert store.sources.chunk_locations([located, paged, plain]) == {
        located: {"section": ["환불 정책", "예외"], "start": 0, "end": 5}, paged: {"page": 3, "start": 7, "end": 27}}
    assert store.sources.chunk_locations([]) == {}
    with store.write():
        store.sources.move_chunk(paged, 0, {"page": 4, "start": 0, "end": 20})
        store.sources.move_chunk(located, 1)  # no location given: the stored one stays
    found = store.sources.chunk_locations([located, paged])
    assert found[paged] == {"page": 4, "start": 0, "end": 20} and found[located]["section"] == ["환불 정책", "예외"]


def test_retired_chunks_close_their_facts_and_leave_the_document_order(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("docs", "fake", 4)
        source = store.sources.upsert(b.id, "guide.md", "document", "x", {})
        old = store.sources.add_chunk(b.id, source, 0, "sha-old", "환불은 7일 이내", [])
        kept = store.sources.add_chunk(b.id, source, 1, "sha-kept", "Refunds take 5 days", [])
        old_facts = store.facts.add(b.id, source, old, [_fact("환불은 7일 이내"), _fact("교환은 3일 이내")],
                                    np.ones((2, 4), np.float32))
        kept_facts = store.facts.add(b.id, source, kept, [_fact("Refunds take 5 days")], np.ones((1, 4), np.float32))
        assert store.sources.retire_chunks(b.id, [old], 1_800_000_000.0, "removed from the document") == 2
        assert store.sources.retire_chunks(b.id, [old], 1_900_000_000.0, "again") == 0  # already closed: kept as it was
        assert store.sources.retire_chunks(b.id, [], 1.0, "nothing") == 0
    rows = {f.id: f for f in store.facts.get(b.id, old_facts + kept_facts)}
    assert [rows[i].valid_to for i in old_facts] == [1_800_000_000.0] * 2
    assert all(rows[i].superseded_by is None for i in old_facts) and rows[kept_facts[0]].valid_to is None
    assert {c.id: c.position for c in store.sources.chunks(source)} == {old: -1, kept: 1}


def test_profile_slots_round_trip_and_go_with_their_fact(store: AnyStore) -> None:
    """Slot rows (Korean and English) come back in the order they were said, filtered by person, slot
    and holder; a row already there is kept; deleting a fact's chunk takes its slot rows."""
    from gieok.records import SlotRow

    c = _conversation(store)
    f = c["facts"]
    rows = [SlotRow(f[0], "서연", "self", "city", "망원동", None, False, 200.0),
            SlotRow(f[2], "서연", "self", "city", "Austin", None, False, 300.0),
            SlotRow(f[1], "서연", "self", "family", "지수", "sister", False, 100.0),
            SlotRow(f[3], "Tom", "sister", "job", "nurse", None, False, 400.0)]
    with store.write():
        store.slots.add(c["bank"], rows)
        store.slots.add(c["bank"], rows[:1])  # again: kept as it is
    assert store.slots.all(c["bank"]) == [rows[2], rows[0], rows[1], rows[3]]
    assert store.slots.all(c["bank"], person="서연", slot="city") == rows[:2]
    assert store.slots.all(c["bank"], holder="sister") == [rows[3]]
    with store.write():
        store.sources.delete_chunks(c["bank"], [c["chunks"][0]])
    assert [r.fact_id for r in store.slots.all(c["bank"], slot="city")] == [f[2]]


# -- re-embedding (gieok.store._reembed) ------------------------------------------------------------
def test_reembed_stages_beside_the_live_vectors_and_swaps_them_in(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    # the new embedder's vectors: 3 dimensions
    new = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, -1]], dtype=np.float32) + 0.5
    with store.write():
        obs = store.observations.save(bank, None, entity_id=None, topic="alice", text="alice: 알프스 등산을 좋아함",
                                      fact_ids=[f[3]], history=[], believed_at=None,
                                      embedding=np.ones(4, dtype=np.float32), terms=[], tokens=3)
        assert store.reembed.start(bank, "other", 3) == 0
    assert store.reembed.target(bank) == ("other", 3)
    assert store.reembed.unstaged_facts(bank, 0, 10) == [(i, hashlib.sha256(t.encode()).hexdigest())  # its embed_hash
                                                 for i, t in zip(f, c["texts"])]
    # the message a reply answers: the one stored before it in its conversation
    before = store.reembed.previous_messages(bank, ["m1", "m2", "m4"])
    assert sorted(before) == ["m2", "m4"] and (before["m2"].id, before["m4"].text) == ("m1", c["texts"][2])
    assert store.reembed.chunk_texts([c["chunks"][1]]) == {c["chunks"][1]: c["texts"][1]}
    with store.write():  # the first fact answers nothing: a context vector for it is not staged
        assert store.reembed.stage_facts(bank, [(f[0], new[0], new[1]), (f[1], new[1], new[2])]) == 2
    assert store.reembed.count_staged(bank) == 2 and [i for i, _ in store.reembed.unstaged_facts(bank, 0, 10)] == f[2:]
    assert [i for i, _ in store.reembed.unstaged_facts(bank, f[2], 10)] == [f[3]]
    with store.write():
        store.reembed.stage_facts(bank, [(f[2], new[2], new[0]), (f[3], new[3], new[1])])
        store.search.clear_context(bank, c["dim"], f[1])  # the message it answered was erased: the staged one goes
        store.erasure.erase(bank, c["dim"], [f[2]])  # its staged vectors go with it
        assert store.reembed.stage_facts(bank, [(f[2], new[2], None)]) == 0  # erased meanwhile: skipped
    assert store.reembed.count_staged(bank) == 3
    assert store.reembed.observation_hashes(bank) == {obs: None}
    with store.write():
        assert store.reembed.stage_observations(bank, [(obs, "h1", np.full(3, 2.0, dtype=np.float32))]) == 1
        assert store.reembed.start(bank, "other", 3) == 3  # the same target keeps what it staged
    assert store.reembed.observation_hashes(bank) == {obs: "h1"}
    # until the swap, the live vectors are the old ones
    assert store.banks.get("alice").dim == 4 and set(store.search.vectors_of(4, f)) == {f[0], f[1], f[3]}
    with store.write():
        moved = store.reembed.swap(bank, "other", 3)
    assert (moved["facts"], moved["context_vectors"], moved["observations"]) == (3, 1, 1)
    row = store.banks.get("alice")
    assert (row.embedder, row.dim) == ("other", 3) and store.reembed.target(bank) is None
    assert store.search.vectors_of(4, f) == {} and store.search.vectors_of(4, f, "context") == {}
    live = store.search.vectors_of(3, f)
    assert sorted(live) == [f[0], f[1], f[3]] and np.array_equal(live[f[3]], new[3])
    assert sorted(store.search.vectors_of(3, f, "context")) == [f[3]]
    assert store.search.vector(bank, 3, new[3], 1)[0][0] == f[3]
    ids, vectors = store.observations.vectors(bank)
    assert ids == [obs] and vectors is not None and vectors.tolist() == [[2.0, 2.0, 2.0]]
    assert store.reembed.count_staged(bank) == 0 and store.reembed.observation_hashes(bank) == {obs: None}


def test_another_reembed_target_starts_from_nothing(store: AnyStore) -> None:
    c = _conversation(store)
    with store.write():
        store.reembed.start(c["bank"], "other", 3)
        store.reembed.stage_facts(c["bank"], [(c["facts"][0], np.ones(3, dtype=np.float32), None)])
        assert store.reembed.start(c["bank"], "third", 5) == 0
        assert store.reembed.target(c["bank"]) == ("third", 5)
        store.reembed.stage_facts(c["bank"], [(c["facts"][0], np.ones(5, dtype=np.float32), None)])
    assert store.reembed.count_staged(c["bank"]) == 1
    with store.write():
        store.banks.delete(c["bank"])  # staging goes with its bank
    assert store.reembed.count_staged(c["bank"]) == 0 and store.reembed.target(c["bank"]) is None
