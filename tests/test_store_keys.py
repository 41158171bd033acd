"""The ``store.keys`` contract (:class:`gieok.store.protocol.Keys`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import hashlib

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore

from gieok.store._keys import KeyRow


def test_api_keys_round_trip_touch_and_revoke(store: AnyStore) -> None:
    digest = hashlib.sha256(b"gk_secret").hexdigest()
    with store.write():
        admin = store.keys.add(digest, "gk_sec", "관리자", "admin", [])
        reader = store.keys.add(hashlib.sha256(b"gk_other").hexdigest(), "gk_oth", None, "read", ["지우", "notes"])
    keys = store.keys.all()
    assert [k.id for k in keys] == [admin, reader] and all(isinstance(k, KeyRow) for k in keys)
    assert (keys[1].prefix, keys[1].name, keys[1].role, keys[1].banks) == ("gk_oth", None, "read", ["지우", "notes"])
    found = store.keys.by_hash(digest)
    assert found is not None
    assert (found.id, found.name, found.last_used_at, found.revoked_at) == (admin, "관리자", None, None)
    assert store.keys.by_hash("0" * 64) is None and store.keys.count_active() == 2
    with store.write():
        store.keys.touch(admin, 100.0)
        assert store.keys.revoke(reader, 200.0) is True
        assert store.keys.revoke(reader, 300.0) is False  # revoked once, when it was revoked
    by_id = {k.id: k for k in store.keys.all()}
    assert by_id[admin].last_used_at == 100.0 and by_id[reader].revoked_at == 200.0
    assert store.keys.count_active() == 1
