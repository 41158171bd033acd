"""The ``store.audit`` contract (:class:`gieok.store.protocol.Audit`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore

from gieok.store import PostgresStore


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


def test_the_fingerprint_key_lives_beside_a_database_file_only(store: AnyStore) -> None:
    # a SQLite file has a "beside"; a PostgreSQL database has none (the key comes from the settings)
    assert store.audit.key_file() == (store.path + ".key" if store.file_backed else None)
    assert (store.audit.key_file() is None) == isinstance(store, PostgresStore)
