"""The two stores share their queries: what differs is only the dialect, the indexes and the proof."""

from __future__ import annotations

from typing import get_type_hints

from gieok.store import PostgresStore, SQLiteStore, Store
from gieok.store._pg_migrations import MIGRATIONS as PG_MIGRATIONS
from gieok.store._schema import NAMES
from gieok.store.migrations import MIGRATIONS

_SHARED = {"gieok.store._write_path", "gieok.store._area", "gieok.store._banks", "gieok.store._meta",
           "gieok.store._portable",
           "gieok.store._audit", "gieok.store._sources", "gieok.store._facts", "gieok.store._search",
           "gieok.store._graph", "gieok.store._versions", "gieok.store._erasure", "gieok.store._observations",
           "gieok.store._jobs", "gieok.store._models", "gieok.store._llm", "gieok.store._slots",
           "gieok.store._sessions", "gieok.store._held", "gieok.store._reembed", "gieok.store._keys"}
# FTS5 and sqlite-vec against BM25 in SQL and pgvector; the erasure proof over a file against tables, and
# making erased bytes leave the file (a WAL checkpoint) against a server's own WAL; SQLite's file lock
# against PostgreSQL's advisory locks
_OWN = {"search.keyword", "search.vector", "search.sample", "search.vectors_of", "search.train_index",
        "search.index_due", "search.suspend_index", "search.build_index", "search.clear_context", "search.compact",
        "search.indexed_terms", "erasure.scan",
        "erasure.vacuum", "erasure.file_contains", "erasure.checkpoint", "lock_bank"}
# shared, with a default a store may replace by its own faster one (SQLite reads a bank's vectors once for
# many queries; PostgreSQL keeps one KNN per query)
_MAY_OWN = {"search.vector_many"}


def _methods(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_")]


def _areas() -> dict[str, type]:
    """Each area attribute of the Store protocol and the protocol it answers to."""
    return {name: get_type_hints(value.fget)["return"] for name, value in vars(Store).items()
            if isinstance(value, property)}


def _owner(cls: type, name: str) -> str:
    return next(c for c in cls.__mro__ if name in vars(c)).__module__


def test_every_protocol_method_but_the_indexes_and_the_proof_is_written_once() -> None:
    for store in (SQLiteStore, PostgresStore):
        classes = store.area_classes()
        assert classes.keys() == _areas().keys(), store.__name__
        owners = {name: _owner(store, name) for name in _methods(Store)}
        owners |= {f"{area}.{name}": _owner(classes[area], name)
                   for area, protocol in _areas().items() for name in _methods(protocol)}
        assert {name for name, module in owners.items() if module not in _SHARED} - _MAY_OWN == _OWN, store.__name__


def test_each_area_is_a_small_protocol_the_store_serves() -> None:
    areas = _areas()
    assert len(areas) == 19 and all(len(_methods(protocol)) <= 25 for protocol in areas.values())
    assert sorted(_methods(Store)) == ["close", "lock_bank", "try_write", "write"]
    store = SQLiteStore(":memory:")
    try:
        for area, cls in SQLiteStore.area_classes().items():
            assert type(getattr(store, area)) is cls, area
            assert all(callable(getattr(getattr(store, area), name)) for name in _methods(areas[area])), area
    finally:
        store.close()


def test_both_stores_apply_the_same_migrations() -> None:
    assert [name for name, _ in MIGRATIONS] == [name for name, _ in PG_MIGRATIONS] == list(NAMES)
