"""The ``store.facts`` contract (:class:`gieok.store.protocol.Facts`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _fact, _random_bank

from gieok.records import FactRow, NewFact
from gieok.store import PostgresStore
from gieok.store._dialect import COPY_FROM
from gieok.text.terms import keyword_terms


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


def _many(count: int) -> tuple[list[NewFact], np.ndarray, list[np.ndarray | None]]:
    """Korean and English facts, every other one a reply with a context vector and context terms."""
    texts = [f"민지는 {i}번째 회의에서 부산 출장 보고서를 냈어" if i % 2
             else f"Minji filed report {i} on the Busan trip" for i in range(count)]
    facts = [NewFact(text=t, embed_text=t, terms=keyword_terms(t), tokens=5 + i, speaker="민지" if i % 3 else None,
                     message_ids=[f"m{i}"], mentioned_at=1000.0 + i, importance=0.5, pinned=i == 3,
                     context_terms=keyword_terms("부산 출장은 어땠어?") if i % 2 else [])
             for i, t in enumerate(texts)]
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((count, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return facts, vectors, [vectors[i][::-1].copy() if i % 2 else None for i in range(count)]


def test_facts_added_at_once_equal_facts_added_one_by_one(store: AnyStore) -> None:
    """PostgreSQL writes a large batch by COPY (``Dialect.insert_rows``, ``_index_facts``): what it
    stores and how it searches must be what single inserts give."""
    facts, vectors, contexts = _many(3 * COPY_FROM)
    banks = {}
    with store.write():
        for name in ("batch", "single"):
            bank = store.banks.create(name, "fake", 8)
            source = store.sources.upsert(bank.id, "s", "conversation", None, {})
            chunk = store.sources.add_chunk(bank.id, source, 0, "sha", "x", [])
            banks[name] = bank.id
            if name == "batch":
                ids = store.facts.add(bank.id, source, chunk, facts, vectors, contexts)
            else:
                singles = [store.facts.add(bank.id, source, chunk, [f], vectors[i:i + 1], [contexts[i]])[0]
                           for i, f in enumerate(facts)]
    assert len(ids) == len(set(ids)) == len(facts) and ids == sorted(ids)

    def shape(bank: int, order: list[int]) -> list[tuple]:
        rows = {r.id: r for r in store.facts.get(bank, order)}
        return [(r.text, r.speaker, r.message_ids, r.mentioned_at, r.tokens, r.pinned, r.importance, r.trust)
                for r in (rows[i] for i in order)]

    assert shape(banks["batch"], ids) == shape(banks["single"], singles)
    terms = store.search.indexed_terms(banks["batch"], ids)
    assert [terms[i] for i in ids] == [store.search.indexed_terms(banks["single"], singles)[i] for i in singles]
    position = {b: {i: k for k, i in enumerate(order)}
                for b, order in ((banks["batch"], ids), (banks["single"], singles))}
    for query, weight in ((["부산", "출장"], 0.3), (["report", "busan"], 0.0)):
        found = {b: [(position[b][i], round(s, 9)) for i, s in store.search.keyword(b, query, 10, weight)]
                 for b in banks.values()}
        assert found[banks["batch"]] == found[banks["single"]] and found[banks["batch"]]
    for view in ("fact", "context"):
        got = {b: [(position[b][i], round(s, 5)) for i, s in store.search.vector(b, 8, vectors[5], 6, view)]
               for b in banks.values()}
        assert got[banks["batch"]] == got[banks["single"]] and got[banks["batch"]]
    assert len(store.search.vectors_of(8, ids, "context")) == len(facts) // 2


def test_last_id_and_newer_than_tell_what_was_written_since(store: AnyStore) -> None:
    bank, _, ids = _random_bank(store, 5)
    assert store.facts.last_id(bank + 1) == 0  # a bank without facts
    mark = store.facts.last_id(bank)
    assert mark == max(ids)
    assert store.facts.newer_than(bank, mark) == []
    with store.write():
        source = store.sources.upsert(bank, "t", "document", "y", {})
        chunk = store.sources.add_chunk(bank, source, 0, "sha2", "y", [])
        more = store.facts.add(bank, source, chunk, [_fact("새 사실"), _fact("a new fact")],
                               np.ones((2, 8), dtype=np.float32))
    assert store.facts.newer_than(bank, mark) == sorted(more)
    assert store.facts.newer_than(bank + 1, mark) == []  # another bank's facts are not this bank's


def test_a_banks_watermark_is_not_raised_by_another_banks_commit(pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    """PostgreSQL draws fact ids from one sequence: a fact of bank A whose id was drawn before bank B
    committed a higher one is still seen as written after A's watermark (Korean and English)."""
    dsn = pg_dsn_factory()
    writer_a, writer_b, reader = PostgresStore(dsn), PostgresStore(dsn), PostgresStore(dsn)
    try:
        with writer_a.write():
            a = writer_a.banks.create("a", "fake", 8).id
            b = writer_a.banks.create("b", "fake", 8).id
        ids = {}
        for store, bank in ((writer_a, a), (writer_b, b)):
            with store.write():
                source = store.sources.upsert(bank, "s", "document", "x", {})
                ids[bank] = (source, store.sources.add_chunk(bank, source, 0, "sha", "x", []))
        slow = writer_a.write()
        slow.__enter__()  # bank A's write draws its id and is not committed yet
        late = writer_a.facts.add(a, *ids[a], [_fact("늦게 온 사실")], np.ones((1, 8), dtype=np.float32))
        with writer_b.write():  # bank B commits a higher id meanwhile
            higher = writer_b.facts.add(b, *ids[b], [_fact("an early fact")], np.ones((1, 8), dtype=np.float32))
        assert higher[0] > late[0]
        mark = reader.facts.last_id(a)
        slow.__exit__(None, None, None)
        assert reader.facts.newer_than(a, mark) == late
    finally:
        for store in (writer_a, writer_b, reader):
            store.close()
