"""SQLite's clusters are trained in steps, outside retain's write: each step moves a batch of
vectors under the write lock and lets go, searches meanwhile read both layouts, a build cut off
resumes where its last step stopped, and other writers get the lock between steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from store_contract import _fact
from test_ann import DIM, _bank, _clustered, _exact, _large

from gieok import Memory
from gieok.store import SQLiteStore
from gieok.store._ivf import GENERATION_SHIFT, RETRAIN_GROWTH
from gieok.store._sqlite_search import ivf_table, vec_table
from gieok.store.protocol import VectorOptions


class _Stop(Exception):
    pass


def _index_row(store: SQLiteStore, bank: int) -> tuple[int, int, int, int]:
    row = store._conn().execute("SELECT trained_on, generation, next_generation, next_cursor FROM vector_index "
                                "WHERE bank_id = ?", (bank,)).fetchone()
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


def _stop_after(steps: int) -> Any:
    seen: list[int] = []

    def progress(moved: int, total: int) -> None:
        seen.append(moved)
        if len(seen) >= steps:
            raise _Stop
    return progress


def _write(store: SQLiteStore, bank: int, vectors: np.ndarray) -> list[int]:
    """Facts written without the build retain runs after its write."""
    with store.write():
        source = store.sources.row(bank, "s")[0]
        chunk = int(store._conn().execute("SELECT id FROM chunks WHERE source_id = ?", (source,)).fetchone()[0])
        return list(store.facts.add(bank, source, chunk, [_fact(f"Minji 민지 #{i}") for i in range(len(vectors))],
                                    vectors, [None] * len(vectors)))


def _same_as_exact(store: SQLiteStore, bank: int, vectors: np.ndarray, rng: np.random.Generator) -> None:
    """The approximate top 10 finds what the exact scan finds (R@10 >= 0.95 over 15 queries, both views)."""
    hits = total = 0
    for _ in range(15):
        query = vectors[rng.integers(len(vectors))] + 0.1 * rng.standard_normal(DIM).astype(np.float32)
        for view in ("fact", "context"):
            got, exact = store.search.vector(bank, DIM, query, 10, view=view), _exact(store, bank, query, 10, view)
            hits += len({i for i, _ in got} & {i for i, _ in exact})
            total += len(exact)
    assert hits / total >= 0.95


def _unbuilt_bank(store: SQLiteStore, n: int, rng: np.random.Generator) -> tuple[int, list[int], np.ndarray]:
    """A bank past min_vectors whose clusters are due but not built (built in the test's steps)."""
    vectors = _clustered(rng, n)
    store.vector_options = VectorOptions(min_vectors=10**6, probes=12, ef_search=100)
    bank, ids = _bank(store, "big", vectors)  # too small for 10**6: scanned exactly, nothing built
    _large(store)  # now 300: due
    assert store.search.index_due(bank)
    return bank, ids, vectors


def test_a_build_cut_off_midway_serves_exact_results_and_resumes(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "s.db"))
    rng = np.random.default_rng(3)
    try:
        bank, ids, vectors = _unbuilt_bank(store, 900, rng)
        with pytest.raises(_Stop):
            store.search.build_index(bank, DIM, batch=200, progress=_stop_after(2))
        trained_on, _generation, building, cursor = _index_row(store, bank)
        assert building and trained_on == 0 and cursor == ids[399]  # two steps of 200 written
        flat = store._conn().execute(f"SELECT COUNT(*) FROM {vec_table(DIM)} WHERE bank_id = ?", (bank,)).fetchone()
        assert flat[0] == 500  # the rest still in the exact table
        _same_as_exact(store, bank, vectors, rng)  # both layouts read
        # a fact retained meanwhile joins the clusters being built; an erased one leaves both layouts
        new_ids = _write(store, bank, _clustered(rng, 5))
        cluster = store._conn().execute(f"SELECT cluster FROM {ivf_table(DIM)} WHERE rowid = ?",
                                        (new_ids[0],)).fetchone()[0]
        assert cluster >> GENERATION_SHIFT == building
        with store.write():
            store.erasure.erase(bank, DIM, [ids[0], ids[600]])  # one moved already, one not yet
        assert store.search.index_due(bank)
        clusters = store.search.build_index(bank, DIM, batch=200)  # resumes at the third step
        assert clusters > 0 and not store.search.index_due(bank)
        trained_on, generation, building, _ = _index_row(store, bank)
        assert (trained_on, building) == (903, 0) and generation > 0
        assert store._conn().execute(f"SELECT COUNT(*) FROM {vec_table(DIM)} WHERE bank_id = ?",
                                     (bank,)).fetchone()[0] == 0
        assert store._conn().execute(f"SELECT COUNT(*) FROM {ivf_table(DIM)} WHERE bank_id = ?",
                                     (bank,)).fetchone()[0] == 903
        assert not {ids[0], ids[600]} & {i for i, _ in store.search.vector(bank, DIM, vectors[0], 50)}
        _same_as_exact(store, bank, vectors, rng)
    finally:
        store.close()


def test_a_retraining_moves_every_vector_from_the_old_generation_in_steps(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "s.db"))
    rng = np.random.default_rng(4)
    try:
        _large(store)
        vectors = _clustered(rng, 300)
        bank, _ = _bank(store, "big", vectors)
        first = _index_row(store, bank)[1]
        assert first > 0
        more = _clustered(rng, 300 * (RETRAIN_GROWTH - 1))
        _write(store, bank, more)  # the fourfold growth
        assert store.search.index_due(bank)
        with pytest.raises(_Stop):
            store.search.build_index(bank, DIM, batch=250, progress=_stop_after(1))
        _same_as_exact(store, bank, np.vstack([vectors, more]), rng)  # old and new generation both read
        store.search.build_index(bank, DIM, batch=250)
        trained_on, second, building, _ = _index_row(store, bank)
        assert second > first and building == 0 and trained_on == 300 * RETRAIN_GROWTH
        generations = {int(c) >> GENERATION_SHIFT for (c,) in store._conn().execute(
            f"SELECT cluster FROM {ivf_table(DIM)} WHERE bank_id = ?", (bank,))}
        assert generations == {second}
        _same_as_exact(store, bank, np.vstack([vectors, more]), rng)
    finally:
        store.close()


def test_another_writer_gets_the_lock_between_steps(tmp_path: Path) -> None:
    path = str(tmp_path / "s.db")
    store, other = SQLiteStore(path), SQLiteStore(path)
    rng = np.random.default_rng(5)
    try:
        bank, _, _ = _unbuilt_bank(store, 600, rng)
        other.vector_options = store.vector_options
        written: list[int] = []

        def progress(moved: int, total: int) -> None:  # between two steps: the lock is free
            with other.write():
                other.meta.claim(f"between-{moved}", str(total))
            written.append(moved)

        assert store.search.build_index(bank, DIM, batch=200, progress=progress) > 0
        assert written == [200, 400, 600]
        assert other.meta.get("between-400") == "600"
    finally:
        store.close()
        other.close()


def test_retain_trains_the_clusters_after_its_write(db_path: str, fake_embedder: Any) -> None:
    """Korean and English: the retain that brings a bank to ann_min_vectors trains its clusters
    (the build runs after the retain's own transaction) and recall goes through them."""
    with Memory(db_path, embedder="fake", ann_min_vectors=64) as mem:
        mem.retain("b", [{"speaker": "user", "text": f"기록 {i} note {i} 민지 Minji"} for i in range(70)],
                   document_id="notes")
        trained_on = mem.store._conn().execute("SELECT trained_on FROM vector_index").fetchone()[0]
        assert trained_on == 70 and not mem.store.search.index_due(mem.store.banks.get("b").id)
        mem.retain("b", [{"speaker": "user", "text": "민지는 부산에서 돼지국밥을 먹었다"},
                         {"speaker": "user", "text": "Minji ate pork soup in Busan"}], document_id="busan")
        texts = [m.text for m in mem.recall("b", "민지 부산 돼지국밥", limit=3).memories]
        assert "민지는 부산에서 돼지국밥을 먹었다" in texts
