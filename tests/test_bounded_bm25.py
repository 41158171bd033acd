"""Bounded BM25 (gieok.store._bounded_bm25): the plan on a fake index, then both stores against their
own exact scan, and SQLite against PostgreSQL with the same small cap. Korean and English terms."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok.records import NewFact
from gieok.settings import resolve_settings
from gieok.store import PostgresStore, SQLiteStore
from gieok.store._bounded_bm25 import BM25_B, BM25_K1, bounded_bm25, idf
from gieok.store.protocol import VectorOptions
from gieok.text.terms import keyword_terms


# -- the plan, on an index in memory -------------------------------------------------------------
class _Index:
    """BM25 over documents in memory (one field), recording what the plan asked for."""

    def __init__(self, docs: dict[int, list[str]], phrases: list[str]) -> None:
        self.docs_, self.phrases = docs, phrases
        self.scored: list[tuple[tuple[tuple[int, ...], ...], int | None]] = []
        self.read = 0  # postings the plan's score calls read in full

    def _holding(self, phrase: int) -> list[int]:
        return sorted(i for i, words in self.docs_.items() if self.phrases[phrase] in words)

    def count(self, phrase: int, at_most: int) -> int:
        return min(len(self._holding(phrase)), at_most)

    def newest(self, phrase: int, nth: int) -> int | None:
        holding = self._holding(phrase)
        return holding[-nth] if len(holding) >= nth else None

    def docs(self) -> int:
        return len(self.docs_)

    def full(self, fact_id: int, phrases: Sequence[int]) -> float:
        words = self.docs_[fact_id]
        avgdl = sum(len(w) for w in self.docs_.values()) / len(self.docs_)
        total = 0.0
        for p in phrases:
            tf = words.count(self.phrases[p])
            if tf:
                total += idf(len(self.docs_), len(self._holding(p))) * tf * (BM25_K1 + 1) / (
                    tf + BM25_K1 * (1 - BM25_B + BM25_B * len(words) / avgdl))
        return total

    def score(self, groups: Sequence[Sequence[int]], min_id: int | None, limit: int) -> list[tuple[int, float]]:
        self.scored.append((tuple(tuple(g) for g in groups), min_id))
        phrases = [p for g in groups for p in g]
        found = [i for i in self.docs_ if (min_id is None or i >= min_id)
                 and all(any(self.phrases[p] in self.docs_[i] for p in g) for g in groups)]
        self.read += sum(len(self._holding(p)) for p in groups[0])
        return sorted(((i, self.full(i, phrases)) for i in found), key=lambda x: (-x[1], x[0]))[:limit]


def _exact(index: _Index, limit: int) -> list[tuple[int, float]]:
    everything = list(range(len(index.phrases)))
    hits = [(i, index.full(i, everything)) for i in index.docs_ if index.full(i, everything) > 0]
    return sorted(hits, key=lambda x: (-x[1], x[0]))[:limit]


def _docs(n: int) -> dict[int, list[str]]:
    """Every document holds a common word; every 10th a rarer one, every 97th a rare one."""
    docs = {}
    for i in range(1, n + 1):
        words = [("tea", "커피", "tea", "coffee")[i % 4], "filler"]
        if i % 10 == 0:
            words.append("부산")
        if i % 97 == 0:
            words += ["Busan", "Busan"]
        docs[i] = words
    return docs


def test_a_query_within_the_cap_is_the_exact_one() -> None:
    index = _Index(_docs(400), ["부산", "Busan"])
    assert bounded_bm25(index, 2, 5, cap=100) == _exact(index, 5)
    assert index.scored == [(((0, 1),), None)]  # one plain query


def test_rare_phrases_decide_and_the_bound_proves_the_answer_exact() -> None:
    index = _Index(_docs(2000), ["Busan", "부산", "커피"])  # 20, 200 and 500 facts
    got = bounded_bm25(index, 3, 5, cap=250)
    assert got == _exact(index, 5)
    # the common word's facts were read only where a selective one holds it; no newest slice
    assert [groups for groups, _ in index.scored] == [((0, 1),), ((0, 1), (2,))]
    assert index.read == 2 * 220  # the selective postings, twice; none of the common word's


def test_when_every_phrase_is_common_the_newest_facts_are_scored() -> None:
    index = _Index(_docs(2000), ["커피", "coffee"])  # 500 facts each
    got = bounded_bm25(index, 2, 10, cap=100)
    (groups, since), = index.scored
    assert groups == ((0, 1),) and since == max(1997 - 4 * 49, 1999 - 4 * 49)  # each word's 50th newest
    expected = [(i, s) for i, s in _exact(index, 2000) if i >= since][:10]
    assert [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected]) and got[0][1] > 1  # the exact scores


def test_a_selective_answer_below_the_bound_adds_the_newest_facts() -> None:
    docs = {i: ["hike"] * 5 for i in range(1, 301)}  # common and dense: a high bound
    docs[7] = ["한라산", "filler", "filler", "filler", "filler", "filler", "filler"]  # rare, long
    index = _Index(docs, ["한라산", "hike"])
    got = bounded_bm25(index, 2, 3, cap=100)
    assert index.scored[-1] == (((0, 1),), 300 - 100 + 1)
    assert {i for i, _ in got} <= {7} | set(range(201, 301))
    assert [i for i, _ in got][:3] == [i for i, _ in _exact(index, 300) if i == 7 or i > 200][:3]


def test_cap_zero_scores_every_posting() -> None:
    index = _Index(_docs(300), ["커피", "coffee"])
    assert bounded_bm25(index, 2, 4, cap=0) == _exact(index, 4)
    assert math.isclose(idf(10, 9), 1e-6)  # FTS5's floor for a word most facts hold


# -- both stores ---------------------------------------------------------------------------------
def _texts(n: int) -> list[str]:
    out = []
    for i in range(n):
        words = ["민지랑 커피" if i % 2 else "coffee with Minji", "오늘" if i % 3 else "today"]
        if i % 9 == 0:
            words.append("부산 여행" if i % 2 else "Busan trip")
        if i % 41 == 0:
            words.append("한라산 등산 hiking")
        out.append(" ".join(words))
    return out


@pytest.fixture(params=["sqlite", "postgres"])
def bank(request: pytest.FixtureRequest, tmp_path: Path,
         pg_dsn_factory: Callable[[], str]) -> Iterator[tuple[Any, int]]:  # noqa: F811
    store = SQLiteStore(str(tmp_path / "m.db")) if request.param == "sqlite" else PostgresStore(pg_dsn_factory())
    yield store, _fill(store)
    store.close()


def _fill(store: Any) -> int:
    texts = _texts(300)
    with store.write():
        b = store.banks.create("a", "fake", 4)
        src = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, src, 0, "sha", "x", [])
        facts = [NewFact(t, t, keyword_terms(t), context_terms=keyword_terms(texts[i - 1]), tokens=3)
                 for i, t in enumerate(texts)]
        store.facts.add(b.id, src, chunk, facts, np.ones((len(texts), 4), np.float32))
    return int(b.id)


def _search(store: Any, bank_id: int, query: str, cap: int | None, weight: float,
            limit: int = 10) -> list[tuple[int, float]]:
    base = VectorOptions.from_settings(resolve_settings({}))
    store.vector_options = dataclasses.replace(base, exact=True) if cap is None else \
        dataclasses.replace(base, keyword_postings=cap)
    return store.search.keyword(bank_id, keyword_terms(query), limit, weight)


def _same(got: list[tuple[int, float]], expected: list[tuple[int, float]]) -> None:
    assert expected and [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-9)


@pytest.mark.parametrize("weight", [0.0, 0.3])
def test_store_bounded_search_is_exact_where_a_rare_word_decides(bank: tuple[Any, int], weight: float) -> None:
    store, bank_id = bank
    for query in ("한라산 커피", "hiking coffee today", "부산 여행 민지"):  # a rare word in 8 facts or more
        _same(_search(store, bank_id, query, 40, weight, 5), _search(store, bank_id, query, None, weight, 5))
    # the default cap: a small bank's plain query
    default = resolve_settings({}).keyword_max_postings
    _same(_search(store, bank_id, "한라산 커피", default, weight), _search(store, bank_id, "한라산 커피", None, weight))


def test_store_bounded_search_of_common_words_scores_the_newest_facts(bank: tuple[Any, int]) -> None:
    store, bank_id = bank
    exact_all = dict(store.search.keyword(bank_id, keyword_terms("커피 coffee"), 400))
    got = _search(store, bank_id, "커피 coffee", 40, 0.0)
    newest = sorted(exact_all)[-40:]  # 20 newest postings of each word: the 40 newest facts
    assert len(got) == 10 and {i for i, _ in got} <= set(newest)
    assert all(score == pytest.approx(exact_all[i]) for i, score in got)


def test_bounded_bm25_is_the_same_in_both_stores(tmp_path: Path, pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    stores: list[Any] = [SQLiteStore(str(tmp_path / "x.db")), PostgresStore(pg_dsn_factory())]
    try:
        banks = [_fill(s) for s in stores]
        compared = 0
        for query in ("한라산 커피", "커피 coffee", "부산 여행 today", "hiking 오늘 Minji", "coffee"):
            for cap in (10, 40, 150):
                for weight in (0.0, 0.3):
                    lite, pg = (_search(s, b, query, cap, weight) for s, b in zip(stores, banks))
                    compared += len(lite)
                    _same(pg, lite)
        assert compared > 200
    finally:
        for s in stores:
            s.close()
