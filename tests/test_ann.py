"""Approximate vector search of large banks, on both stores (SQLite: IVF clusters in sqlite-vec;
PostgreSQL: pgvector HNSW with iterative scans): the same results as the exact scan on a clustered
set, erased facts gone from the index, new facts indexed after training, small banks exact."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _fact

from gieok import Memory
from gieok.errors import ConfigError
from gieok.store import SQLiteStore
from gieok.store._ivf import GENERATION_SHIFT, RETRAIN_GROWTH
from gieok.store._sqlite_search import ivf_table, vec_table
from gieok.store.protocol import VectorOptions

DIM = 16
CENTRES = 30
TEXTS = ["민지는 부산에서 커피를 마셨다", "Minji had coffee in Busan", "제주도 여행 계획을 세웠다",
         "The report is due on Friday"]


def _clustered(rng: np.random.Generator, n: int) -> np.ndarray:
    centres = np.random.default_rng(0).standard_normal((CENTRES, DIM)).astype(np.float32)
    return centres[rng.integers(CENTRES, size=n)] + 0.25 * rng.standard_normal((n, DIM)).astype(np.float32)


def _bank(store: AnyStore, name: str, vectors: np.ndarray, contexts: bool = True) -> tuple[int, list[int]]:
    with store.write():
        bank = store.banks.create(name, "fake", DIM)
        source = store.sources.upsert(bank.id, "s", "conversation", None, {})
        store.sources.add_chunk(bank.id, source, 0, "sha", "x", [])
    return bank.id, _add(store, bank.id, vectors, contexts)


def _add(store: AnyStore, bank_id: int, vectors: np.ndarray, contexts: bool = True) -> list[int]:
    source = store.sources.row(bank_id, "s")[0]
    chunk = int(store._conn().execute("SELECT id FROM chunks WHERE source_id = ?", (source,)).fetchone()[0])
    facts = [_fact(f"{TEXTS[i % len(TEXTS)]} #{i}") for i in range(len(vectors))]
    # a reply's second vector is the same model's embedding of more text: near its own, same space
    shifted = vectors + 0.1 * np.random.default_rng(len(vectors)).standard_normal(vectors.shape).astype(np.float32)
    context = [shifted[i] if contexts and i % 2 else None for i in range(len(vectors))]
    with store.write():
        ids = list(store.facts.add(bank_id, source, chunk, facts, vectors, context))
    store.search.build_index(bank_id, DIM)  # what retain does after its write: train the clusters when due
    return ids


def _exact(store: AnyStore, bank_id: int, query: np.ndarray, k: int, view: str = "fact") -> list[tuple[int, float]]:
    saved = store.vector_options
    store.vector_options = dataclasses.replace(saved, exact=True)
    try:
        return list(store.search.vector(bank_id, DIM, query, k, view=view))
    finally:
        store.vector_options = saved


def _large(store: AnyStore) -> None:
    store.vector_options = VectorOptions(min_vectors=300, probes=12, ef_search=100)


def _vector_rows(store: AnyStore, bank_id: int) -> int:
    if isinstance(store, SQLiteStore):
        return sum(int(store._conn().execute(f"SELECT COUNT(*) FROM {t} WHERE bank_id = ?", (bank_id,)).fetchone()[0])
                   for t in (vec_table(DIM), ivf_table(DIM)))
    return int(store._conn().execute("SELECT COUNT(*) FROM fact_vectors WHERE bank_id = %s", (bank_id,)).fetchone()[0])


def test_the_approximate_search_returns_the_exact_top_k_on_a_clustered_set(store: AnyStore) -> None:
    _large(store)
    rng = np.random.default_rng(1)
    vectors = _clustered(rng, 1200)
    bank, _ = _bank(store, "big", vectors)
    _bank(store, "other", _clustered(rng, 400))  # the same dimension: its rows must not crowd the bank's k
    if isinstance(store, SQLiteStore):
        trained_on, centroids = store._conn().execute(
            "SELECT trained_on, centroids FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()
        assert trained_on >= 300 and centroids is not None
        assert _vector_rows(store, bank) == 1200 and store._conn().execute(
            f"SELECT COUNT(*) FROM {vec_table(DIM)} WHERE bank_id = ?", (bank,)).fetchone()[0] == 0
    for _ in range(20):
        query = vectors[rng.integers(len(vectors))] + 0.1 * rng.standard_normal(DIM).astype(np.float32)
        got, exact = store.search.vector(bank, DIM, query, 10), _exact(store, bank, query, 10)
        assert [i for i, _ in got] == [i for i, _ in exact]
        assert [s for _, s in got] == pytest.approx([s for _, s in exact], abs=1e-5)
        context = store.search.vector(bank, DIM, query, 10, view="context")
        assert [i for i, _ in context] == [i for i, _ in _exact(store, bank, query, 10, "context")]


def test_postgres_walks_the_hnsw_index_of_the_dimension(store: AnyStore) -> None:
    if isinstance(store, SQLiteStore):
        pytest.skip("PostgreSQL's index")
    _large(store)
    bank, _ = _bank(store, "big", _clustered(np.random.default_rng(2), 400))
    store._conn().execute("ANALYZE fact_vectors")
    indexes = {r[0] for r in store._conn().execute("SELECT indexname FROM pg_indexes WHERE schemaname = "
                                                    "current_schema()")}
    assert {f"fact_vectors_hnsw_{DIM}", f"fact_context_vectors_hnsw_{DIM}"} <= indexes
    conn = store._conn()
    with conn.transaction():
        conn.execute("SET LOCAL enable_sort = off")  # 400 rows: the planner would rather sort them
        plan = " ".join(str(r[0]) for r in conn.execute(
            f"EXPLAIN SELECT fact_id FROM fact_vectors WHERE bank_id = %s AND dim = {DIM} "
            f"ORDER BY embedding::vector({DIM}) <=> %s::vector({DIM}) LIMIT 10",
            (bank, "[" + ",".join(["0.5"] * DIM) + "]")).fetchall())
    assert f"fact_vectors_hnsw_{DIM}" in plan


def test_postgres_approximate_search_can_use_the_index_in_a_generic_plan(store: AnyStore) -> None:
    """psycopg prepares a statement run often; its generic plan must still prove the partial index's
    ``WHERE dim = N`` (a bound dimension could not, and every vector was read)."""
    if isinstance(store, SQLiteStore):
        pytest.skip("PostgreSQL's index")
    from gieok.store import _pg_connect

    _large(store)
    bank, _ = _bank(store, "big", _clustered(np.random.default_rng(3), 400))
    seen: list[tuple[str, tuple]] = []
    real = _pg_connect.PgConnection.execute

    def spy(self: object, query: str, params: tuple = ()) -> object:
        if "<=>" in str(query):
            seen.append((str(query), tuple(params)))
        return real(self, query, params)

    _pg_connect.PgConnection.execute = spy  # type: ignore[method-assign]
    try:
        store.search.vector(bank, DIM, _clustered(np.random.default_rng(4), 1)[0], 10)
    finally:
        _pg_connect.PgConnection.execute = real  # type: ignore[method-assign]
    query, params = seen[-1]
    parts = query.split("%s")
    numbered = "".join(part + (f"${i + 1}" if i < len(parts) - 1 else "") for i, part in enumerate(parts))
    conn = store._conn()
    with conn.transaction():
        conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        conn.execute("SET LOCAL enable_sort = off")  # 400 rows: the planner would rather sort them
        conn.raw.execute(f"PREPARE knn AS {numbered}")
        values = ", ".join(f"'{v}'" if isinstance(v, str) else str(int(v)) for v in params)
        plan = " ".join(str(r[0]) for r in conn.raw.execute(f"EXPLAIN EXECUTE knn({values})").fetchall())
        conn.raw.execute("DEALLOCATE knn")
    assert f"fact_vectors_hnsw_{DIM}" in plan, plan


def test_an_erased_fact_leaves_the_index_and_is_never_returned(store: AnyStore) -> None:
    _large(store)
    rng = np.random.default_rng(3)
    vectors = _clustered(rng, 600)
    bank, ids = _bank(store, "big", vectors)
    query = vectors[7]
    top = [i for i, _ in store.search.vector(bank, DIM, query, 20)]
    gone = top[:10]
    with store.write():
        assert store.erasure.erase(bank, DIM, gone)["facts"] == 10
    for view in ("fact", "context"):
        after = [i for i, _ in store.search.vector(bank, DIM, query, 20, view=view)]
        assert len(after) == 20 and not set(after) & set(gone)
    assert store.search.vectors_of(DIM, gone) == {} and store.search.vectors_of(DIM, gone, view="context") == {}
    assert _vector_rows(store, bank) == 590
    assert store.facts.get(bank, gone) == []
    kept = [f.text for f in store.facts.get(bank, top[10:])]
    assert kept and all(any(t in text for t in TEXTS) for text in kept)  # Korean and English text intact


def test_facts_added_after_training_are_indexed_and_found(store: AnyStore) -> None:
    _large(store)
    rng = np.random.default_rng(4)
    bank, _ = _bank(store, "big", _clustered(rng, 400))
    late = _clustered(rng, 20)
    new_ids = _add(store, bank, late)
    if isinstance(store, SQLiteStore):
        generation = store._conn().execute("SELECT generation FROM vector_index WHERE bank_id = ?",
                                           (bank,)).fetchone()[0]
        clusters = {int(r[0]) >> GENERATION_SHIFT for r in store._conn().execute(
            f"SELECT cluster FROM {ivf_table(DIM)} WHERE bank_id = ?", (bank,))}
        assert clusters == {generation}
    for fact_id, vector in zip(new_ids, late):
        assert store.search.vector(bank, DIM, vector, 1)[0][0] == fact_id
    assert _vector_rows(store, bank) == 420


def test_a_bank_mostly_erased_after_training_still_returns_every_fact_it_holds(store: AnyStore) -> None:
    _large(store)
    store.vector_options = dataclasses.replace(store.vector_options, probes=1)
    rng = np.random.default_rng(9)
    vectors = _clustered(rng, 400)
    bank, ids = _bank(store, "big", vectors)
    with store.write():
        store.erasure.erase(bank, DIM, ids[:-30])
    # one probed cluster holds a few of the 30 left: the search widens until it has them all
    got = store.search.vector(bank, DIM, vectors[-1], 50)
    assert sorted(i for i, _ in got) == sorted(ids[-30:])
    assert got == _exact(store, bank, vectors[-1], 50)


def test_a_small_bank_is_scanned_exactly(store: AnyStore) -> None:
    rng = np.random.default_rng(5)
    vectors = _clustered(rng, 200)
    bank, _ = _bank(store, "small", vectors)  # the default threshold (20,000): no index used
    if isinstance(store, SQLiteStore):
        assert store._conn().execute("SELECT centroids FROM vector_index WHERE bank_id = ?",
                                     (bank,)).fetchone()[0] is None
    query = vectors[3]
    assert store.search.vector(bank, DIM, query, 10) == _exact(store, bank, query, 10)


def test_deleting_a_bank_drops_its_clustered_vectors(store: AnyStore) -> None:
    _large(store)
    rng = np.random.default_rng(6)
    bank, _ = _bank(store, "big", _clustered(rng, 400))
    other, _ = _bank(store, "keep", _clustered(rng, 50))
    with store.write():
        store.banks.delete(bank)
    assert _vector_rows(store, bank) == 0 and _vector_rows(store, other) == 50
    if isinstance(store, SQLiteStore):
        assert store._conn().execute("SELECT COUNT(*) FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()[0] == 0


# -- SQLite's clusters ---------------------------------------------------------------------------
def test_a_bank_that_grew_fourfold_is_retrained_and_every_vector_reassigned(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    try:
        _large(store)
        rng = np.random.default_rng(7)
        bank, _ = _bank(store, "big", _clustered(rng, 300))
        first = store._conn().execute("SELECT generation FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()[0]
        _add(store, bank, _clustered(rng, 300 * (RETRAIN_GROWTH - 1)))
        trained_on, second = store._conn().execute(
            "SELECT trained_on, generation FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()
        assert second > first and trained_on == 300 * RETRAIN_GROWTH
        for table in (ivf_table(DIM), ivf_table(DIM, "context")):
            generations = {int(r[0]) >> GENERATION_SHIFT for r in store._conn().execute(
                f"SELECT cluster FROM {table} WHERE bank_id = ?", (bank,))}
            assert generations == {second}
        assert _vector_rows(store, bank) == 300 * RETRAIN_GROWTH
    finally:
        store.close()


def test_a_database_from_before_0011_trains_its_large_bank_at_the_next_retain(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    store = SQLiteStore(path)
    rng = np.random.default_rng(8)
    bank, _ = _bank(store, "big", _clustered(rng, 350))
    conn = store._conn()
    # the database an older gieok left: no vector_index, no clustered tables, 0011 not applied
    conn.execute("DROP TABLE vector_index")
    for view in ("fact", "context"):
        conn.execute(f"DROP TABLE {ivf_table(DIM, view)}")
    conn.execute("DELETE FROM schema_migrations WHERE name IN ('0011_ann', '0014_ivf_steps')")
    store.close()
    store = SQLiteStore(path)
    try:
        assert store._conn().execute("SELECT added FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()[0] == 350
        _large(store)
        _add(store, bank, _clustered(rng, 10))
        assert store._conn().execute("SELECT trained_on FROM vector_index WHERE bank_id = ?",
                                     (bank,)).fetchone()[0] == 360
        assert _vector_rows(store, bank) == 360
    finally:
        store.close()


def test_recall_and_forget_through_the_clusters_in_korean_and_english(db_path: str, fake_embedder: Any) -> None:
    with Memory(db_path, embedder="fake", ann_min_vectors=64, ivf_probes=4) as mem:
        filler = [{"speaker": "user", "text": f"{w} 기록 {i} note {i}"}
                  for i, w in enumerate(["회의", "meeting", "여행", "travel"] * 20)]
        mem.retain("b", filler, document_id="filler")
        mem.retain("b", [{"speaker": "user", "text": "민지는 부산에서 돼지국밥을 먹었다"},
                         {"speaker": "user", "text": "Minji hiked Hallasan on Jeju"}], document_id="trip")
        bank = mem.store.banks.get("b")
        assert mem.store._conn().execute("SELECT trained_on FROM vector_index WHERE bank_id = ?",
                                         (bank.id,)).fetchone()[0] > 0
        assert "돼지국밥" in mem.recall("b", "민지는 부산에서 뭐 먹었어?", limit=3).memories[0].text
        assert "Hallasan" in mem.recall("b", "Where did Minji hike?", limit=3).memories[0].text
        mem.forget("b", source_id="trip")
        left = [m.text for m in mem.recall("b", "민지 부산 돼지국밥 Hallasan", limit=50).memories]
        assert not any("돼지국밥" in t or "Hallasan" in t for t in left)
        assert mem.verify_erased(["돼지국밥", "Hallasan"]).clean


def test_the_vector_settings_are_bounded() -> None:
    with pytest.raises(ConfigError, match="ivf_probes"):
        Memory(":memory:", ivf_probes=0)
    with pytest.raises(ConfigError, match="hnsw_ef_search"):
        Memory(":memory:", hnsw_ef_search=5000)


def test_the_engine_hands_its_vector_settings_to_the_store(fake_embedder: Any) -> None:
    with Memory(":memory:", embedder="fake", ann_min_vectors=1000, ivf_probes=3, hnsw_ef_search=40) as mem:
        assert mem.store.vector_options == VectorOptions(min_vectors=1000, probes=3, ef_search=40)




def test_a_user_filtered_recall_through_the_index_sees_only_that_user(db_path: str, fake_embedder: Any) -> None:
    """A bank large enough for the index (IVF clusters): a user-filtered recall filters inside each
    cluster's KNN, so it still fills its limit with that user's memories and never another's."""
    with Memory(db_path, embedder="fake", ann_min_vectors=64, ivf_probes=2) as mem:
        for user in ("u1", "u2"):
            mem.retain("b", [{"speaker": "user", "text": f"{user} {w} 기록 {i} note {i}"}
                             for i, w in enumerate(["회의", "meeting", "여행", "travel"] * 20)],
                       document_id=f"filler-{user}", user_id=user)
        bank = mem.store.banks.get("b")
        assert mem.store._conn().execute("SELECT trained_on FROM vector_index WHERE bank_id = ?",
                                         (bank.id,)).fetchone()[0] > 0
        for user, other in (("u1", "u2"), ("u2", "u1")):
            found = mem.recall("b", "회의 meeting 여행 travel 기록", limit=30, user_id=user).memories
            assert len(found) == 30 and all(m.user_id == user and other not in m.text for m in found)


def test_a_reembed_of_a_large_bank_resets_and_retrains_its_index(store: AnyStore) -> None:
    """The swap of a bank past ann_min_vectors: its clustered vectors of the old dimension go, the new
    ones (another dimension) are indexed — SQLite's clusters are reset, the bank is due and its
    build after the swap's write trains new ones; PostgreSQL's HNSW index of the new dimension is
    made — and the approximate search finds the exact top k."""
    _large(store)
    rng = np.random.default_rng(5)
    bank, ids = _bank(store, "big", _clustered(rng, 600))
    if isinstance(store, SQLiteStore):
        assert store._conn().execute("SELECT centroids FROM vector_index WHERE bank_id = ?", (bank,)).fetchone()[0]
    new_dim = 24
    centres = np.random.default_rng(9).standard_normal((CENTRES, new_dim)).astype(np.float32)
    new = centres[rng.integers(CENTRES, size=len(ids))] + 0.25 * rng.standard_normal((len(ids), new_dim)).astype(
        np.float32)
    with store.write():
        store.reembed.start(bank, "other", new_dim)
        for start in range(0, len(ids), 256):
            store.reembed.stage_facts(bank, [(i, new[k], new[k] * 0.9 if k % 2 else None)
                                            for k, i in enumerate(ids) if start <= k < start + 256])
        moved = store.reembed.swap(bank, "other", new_dim)
    assert (moved["facts"], moved["context_vectors"]) == (600, 300)
    assert store.banks.get("big").dim == new_dim and store.search.vectors_of(DIM, ids) == {}
    if isinstance(store, SQLiteStore):
        assert store.search.index_due(bank)
        assert store.search.build_index(bank, new_dim) > 0 and not store.search.index_due(bank)
        trained_on, empty = store._conn().execute(
            f"SELECT trained_on, (SELECT COUNT(*) FROM {vec_table(new_dim)} WHERE bank_id = ?) FROM vector_index "
            "WHERE bank_id = ?", (bank, bank)).fetchone()
        assert (trained_on, empty) == (600, 0)  # every vector in its cluster of ivf_<new dim>
        assert store._conn().execute(f"SELECT COUNT(*) FROM {ivf_table(DIM)} WHERE bank_id = ?",
                                     (bank,)).fetchone()[0] == 0
    else:
        indexes = {r[0] for r in store._conn().execute("SELECT indexname FROM pg_indexes WHERE schemaname = "
                                                        "current_schema()")}
        assert f"fact_vectors_hnsw_{new_dim}" in indexes
    saved = store.vector_options
    for k in range(0, 600, 60):
        got = store.search.vector(bank, new_dim, new[k], 10)
        store.vector_options = dataclasses.replace(saved, exact=True)
        exact = store.search.vector(bank, new_dim, new[k], 10)
        store.vector_options = saved
        assert got[0][0] == ids[k] and [i for i, _ in got] == [i for i, _ in exact]
