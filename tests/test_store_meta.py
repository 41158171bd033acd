"""The ``store.meta`` contract (:class:`gieok.store.protocol.Meta`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from collections.abc import Callable

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore


def test_a_claimed_meta_row_keeps_its_first_value(open_store: Callable[[], AnyStore]) -> None:
    first, second = open_store(), open_store()  # two processes on one database
    with first.write():
        kept = first.meta.claim("secret:test", "aa11")
    with second.write():
        assert second.meta.claim("secret:test", "bb22") == kept == "aa11"
    assert second.meta.get("secret:test") == "aa11"
    first.close()
    second.close()


def test_a_meta_row_is_deleted_once(store: AnyStore) -> None:
    with store.write():
        store.meta.claim("fingerprint_key", "legacy")
        assert store.meta.delete("fingerprint_key") is True
        assert store.meta.delete("fingerprint_key") is False
    assert store.meta.get("fingerprint_key") is None
