"""The two stores share their queries: what differs is only the dialect, the indexes and the proof."""

from __future__ import annotations

from gieok.store import PostgresStore, SQLiteStore, Store
from gieok.store._pg_connect import pg_placeholders
from gieok.store._pg_migrations import MIGRATIONS as PG_MIGRATIONS
from gieok.store._schema import NAMES
from gieok.store.migrations import MIGRATIONS

_SHARED = {"gieok.store._write_path", "gieok.store._core", "gieok.store._graph", "gieok.store._lifecycle",
           "gieok.store._derived", "gieok.store._keys", "gieok.store._sessions", "gieok.store._profile",
           "gieok.store._reembed", "gieok.store._quarantine"}
# FTS5 and sqlite-vec against BM25 in SQL and pgvector; the erasure proof over a file against tables, and
# making erased bytes leave the file (a WAL checkpoint) against a server's own WAL; a key file beside the
# database against none
_OWN = {"keyword_search", "vector_search", "vectors_sample", "vectors_of", "train_vector_index", "vector_index_due",
        "build_vector_index", "clear_fact_context",
        "compact_indexes", "scan_for", "vacuum", "file_contains", "checkpoint", "lock_bank", "default_key_file"}


def test_placeholders_become_psycopg_marks_outside_quotes_only() -> None:
    query = "SELECT ?, '?', \"a?\", 'it''s ?' FROM t WHERE a = ? AND b = %s"
    assert pg_placeholders(query) == "SELECT %s, '?', \"a?\", 'it''s ?' FROM t WHERE a = %s AND b = %s"


def test_every_protocol_method_but_the_indexes_and_the_proof_is_written_once() -> None:
    methods = [name for name, value in vars(Store).items() if callable(value) and not name.startswith("_")]
    for store in (SQLiteStore, PostgresStore):
        owners = {name: next(c for c in store.__mro__ if name in vars(c)).__module__ for name in methods}
        assert {name for name, module in owners.items() if module not in _SHARED} == _OWN, store.__name__


def test_both_stores_apply_the_same_migrations() -> None:
    assert [name for name, _ in MIGRATIONS] == [name for name, _ in PG_MIGRATIONS] == list(NAMES)
