"""The store contract: what is the whole store's, against the SQLite store and the PostgreSQL store.

Each area of the store has its own contract module (``test_store_banks.py``, ``test_store_jobs.py``
…, one per attribute of :class:`gieok.store.protocol.Store`); this one holds the schema, the write
path, the protocols' signatures and the PostgreSQL-only behaviour. Every test takes ``store`` (or
``open_store``), parametrized over both implementations; only schema introspection differs per
backend. The PostgreSQL side runs on a throw-away server (see ``pg_server.py``) with a fresh schema
per test, and fails — not skips — when it cannot start.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import get_type_hints

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _columns, _tables

from gieok.errors import StoreError
from gieok.store import PostgresStore, SQLiteStore, Store
from gieok.store._pg_migrations import MIGRATIONS as PG_MIGRATIONS
from gieok.store.migrations import MIGRATIONS


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
    # the audit fingerprint key lives outside the database (gieok.engine.admin.audit_key)
    assert store.meta.get("fingerprint_key") is None
    store.close()
    again = open_store()  # reopening applies nothing twice
    assert again.meta.get("fingerprint_key") is None


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


def _area_protocols() -> dict[str, type]:
    """Each area attribute of the Store protocol (``store.banks`` …) and its protocol."""
    return {name: get_type_hints(value.fget)["return"] for name, value in vars(Store).items()
            if isinstance(value, property)}


def test_the_store_implements_every_protocol_method_with_its_signature() -> None:
    members = [(cls, name, member) for cls, name, member in
               [(None, n, m) for n, m in inspect.getmembers(Store, inspect.isfunction)]
               + [(area, n, m) for area, protocol in _area_protocols().items()
                  for n, m in inspect.getmembers(protocol, inspect.isfunction)]
               if not name.startswith("_")]
    for area, name, member in members:
        expected = list(inspect.signature(member).parameters)
        for store in (SQLiteStore, PostgresStore):
            cls = store if area is None else store.area_classes()[area]
            assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
            assert list(inspect.signature(getattr(cls, name)).parameters) == expected, (cls.__name__, name)


def test_every_area_has_contract_tests_calling_each_of_its_methods() -> None:
    """``store.<area>`` is tested in test_store_<area>.py, and each of its methods is called somewhere in
    the store contract (the ANN steps of ``store.search`` are in test_ann.py and test_ann_steps.py)."""
    here = Path(__file__).parent
    contract = "".join(path.read_text(encoding="utf-8") for path in
                       [*here.glob("test_store_*.py"), here / "store_contract.py", here / "test_ann.py",
                        here / "test_ann_steps.py"])
    for area, protocol in _area_protocols().items():
        assert (here / f"test_store_{area}.py").exists(), area
        for name in [n for n, _ in inspect.getmembers(protocol, inspect.isfunction) if not n.startswith("_")]:
            assert f".{area}.{name}(" in contract, f"store.{area}.{name} has no contract test"


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
