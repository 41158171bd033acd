"""The ``store.search`` contract (:class:`gieok.store.protocol.Search`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _fact, _random_bank, _setup

from gieok.errors import StoreError
from gieok.records import NewFact
from gieok.store import PostgresStore, SQLiteStore
from gieok.text.terms import keyword_terms


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


def test_training_the_index_in_a_write_keeps_every_vector_found(store: AnyStore) -> None:
    """SQLite trains the bank's clusters and moves every vector into them; PostgreSQL's HNSW index
    needs no training (0 clusters). Either way each fact is still its own nearest neighbour."""
    n, dim = 300, 8
    vectors = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    with store.write():
        bank = store.banks.create("a", "fake", dim).id
        source = store.sources.upsert(bank, "s", "document", "x", {})
        chunk = store.sources.add_chunk(bank, source, 0, "sha", "x", [])
        ids = store.facts.add(bank, source, chunk, [_fact(f"사실 {i} fact") for i in range(n)], vectors)
    with pytest.raises(StoreError):
        store.search.train_index(bank, dim)  # a write: outside one it is refused
    with store.write():
        clusters = store.search.train_index(bank, dim)
    assert (clusters > 0) == isinstance(store, SQLiteStore)
    for i in (0, 7, n - 1):
        assert store.search.vector(bank, dim, vectors[i], 1)[0][0] == ids[i]



def test_a_bulk_load_builds_the_vector_index_once_afterwards(store: AnyStore) -> None:
    """PostgreSQL drops a dimension's HNSW indexes for a load into a database no other bank has vectors
    in, searches exactly meanwhile, and builds them once after; SQLite has nothing to suspend. With
    another bank's vectors present nothing is dropped (dropping would lock every bank's searches)."""
    first = _setup(store, "민지", ["민지는 부산에 살아", "Minji lives in Busan"])
    with store.write():
        suspended = store.search.suspend_index(first, 4)
    assert suspended is isinstance(store, PostgresStore)
    assert store.search.index_due(first) is suspended
    hits = store.search.vector(first, 4, np.eye(4, dtype=np.float32)[1], 2)
    assert [round(s, 6) for _, s in hits] == [1.0, 0.0]
    built = store.search.build_index(first, 4)
    assert (built == 2) if suspended else (built == 0)
    assert store.search.index_due(first) is False and store.search.build_index(first, 4) == 0
    second = _setup(store, "지우", ["지우는 서울에 살아", "Jiwoo lives in Seoul"])
    with store.write():
        assert store.search.suspend_index(second, 4) is False
    assert store.search.index_due(second) is False


def test_postgres_counts_each_words_facts_as_they_come_and_go(
        pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    """``term_docs`` (BM25's n(p) on PostgreSQL) equals a count over the postings after adds (one by
    one and by COPY), a cleared context, an erasure and a deleted bank; a word no fact holds any more
    leaves no row (Korean and English)."""
    store = PostgresStore(pg_dsn_factory())
    recount = ("SELECT bank_id, term, count(*) FILTER (WHERE field = 'terms'), count(DISTINCT fact_id) "
               "FROM fact_terms GROUP BY bank_id, term ORDER BY 1, 2")

    def same() -> None:
        kept = store._conn().execute("SELECT bank_id, term, in_terms, in_any FROM term_docs ORDER BY 1, 2").fetchall()
        assert [tuple(r) for r in kept] == [tuple(r) for r in store._conn().execute(recount).fetchall()]

    texts = ["민지는 부산에 살아", "Minji lives in Busan", "부산 출장 다녀왔어", "the Busan trip was long"] * 3
    with store.write():
        b = store.banks.create("a", "fake", 4)
        other = store.banks.create("b", "fake", 4)
        source = store.sources.upsert(b.id, "s", "conversation", None, {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = [store.facts.add(b.id, source, chunk, [NewFact(t, t, keyword_terms(t), context_terms=keyword_terms(
            "부산 어때? Busan?") if i % 2 else [])], np.eye(4, dtype=np.float32)[:1])[0] for i, t in enumerate(texts)]
        ids += store.facts.add(b.id, source, chunk, [NewFact(t, t, keyword_terms(t), context_terms=keyword_terms(
            "제주도 여행")) for t in texts], np.tile(np.eye(4, dtype=np.float32)[:1], (len(texts), 1)))
        theirs = store.sources.upsert(other.id, "s", "document", "x", {})
        store.facts.add(other.id, theirs, store.sources.add_chunk(other.id, theirs, 0, "sha", "x", []),
                        [NewFact("고양이 Kitty", "고양이 Kitty", keyword_terms("고양이 Kitty"))],
                        np.eye(4, dtype=np.float32)[:1])
    same()
    with store.write():
        store.search.clear_context(b.id, 4, ids[1])
    same()
    with store.write():
        store.erasure.erase(b.id, 4, ids[len(texts):])
    same()
    assert not store._conn().execute("SELECT 1 FROM term_docs WHERE term = '제주도'").fetchone()
    with store.write():
        store.banks.delete(b.id)
    same()
    store.close()


@pytest.mark.parametrize("queries", [3, 40], ids=["few", "many"])
def test_vector_many_returns_what_vector_returns_row_by_row(store: AnyStore, queries: int) -> None:
    bank, vectors, ids = _random_bank(store, 60)
    with store.write():
        store.erasure.erase(bank, 8, ids[10:14])  # deleted vectors are not found
    rng = np.random.default_rng(9)
    asked = np.concatenate([vectors[:3], rng.standard_normal((queries - 3, 8)).astype(np.float32)])
    many = store.search.vector_many(bank, 8, asked, 6)
    one_by_one = [store.search.vector(bank, 8, row, 6) for row in asked]

    def tied_by_id(hits: list[tuple[int, float]]) -> list[int]:  # a tie may come in any order
        return [i for i, s in sorted(hits, key=lambda hit: (-round(hit[1], 5), hit[0]))]

    assert [tied_by_id(hits) for hits in many] == [tied_by_id(hits) for hits in one_by_one]
    for got, want in zip(many, one_by_one):
        assert sorted(s for _, s in got) == pytest.approx(sorted(s for _, s in want), abs=1e-5)
    assert not {i for hits in many for i, _ in hits} & set(ids[10:14])
    assert many[0][0][0] == ids[0] and many[0][0][1] == pytest.approx(1.0, abs=1e-5)
