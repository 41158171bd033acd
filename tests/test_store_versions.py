"""The ``store.versions`` contract (:class:`gieok.store.protocol.Versions`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation, _fact, _setup


def test_supersede_version_chain_and_lifecycle(store: AnyStore) -> None:
    c = _conversation(store)
    f = c["facts"]
    with store.write():
        store.versions.supersede(f[0], f[1], 5000.0, "update")
        store.versions.supersede(f[1], f[2], 6000.0, "correction")
    assert store.versions.chain(f[0]) == f[:3] == store.versions.chain(f[1]) == store.versions.chain(f[2])
    assert store.versions.chain(f[3]) == [f[3]]
    row = store.facts.get(c["bank"], [f[0]])[0]
    assert (row.valid_to, row.superseded_by) == (5000.0, f[1])
    life = store.versions.state_of([f[0], f[1], 999])
    assert set(life) == {f[0], f[1]}
    assert life[f[1]] == {"superseded_by": f[2], "supersede_reason": "correction", "strength": 1.0,
                          "recall_count": 0, "last_recalled_at": None, "archived_at": None, "supersedes": [f[0]]}
    assert life[f[0]]["supersedes"] == [] and store.versions.state_of([]) == {}


def test_decay_rows_strengths_recall_touches_and_ttl(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        source = store.sources.upsert(b.id, "s", "document", "x", {})
        chunk = store.sources.add_chunk(b.id, source, 0, "sha", "x", [])
        ids = store.facts.add(b.id, source, chunk, [
            _fact("a", decay_class="transient", mentioned_at=10.0, expires_at=100.0),
            _fact("b", pinned=True),
            _fact("c", expires_at=300.0),
        ], np.eye(4, dtype=np.float32)[:3])
    rows = store.versions.decay_rows(b.id, 0, 10)
    assert [r[0] for r in rows] == ids
    assert rows[0][1:4] == ("transient", False, 10.0) and rows[1][2] is True and rows[0][5:] == (0, None)
    assert isinstance(rows[0][4], float) and [r[0] for r in store.versions.decay_rows(b.id, ids[0], 1)] == [ids[1]]
    with store.write():
        store.versions.set_strengths([(ids[0], 0.25, None), (ids[1], 0.5, 777.0)])
        store.versions.touch_recalled([ids[0], ids[1]], 900.0)  # archived facts are not refreshed
    life = store.versions.state_of(ids)
    assert (life[ids[0]]["strength"], life[ids[0]]["recall_count"], life[ids[0]]["last_recalled_at"]) == (1.0, 1, 900.0)
    assert (life[ids[1]]["strength"], life[ids[1]]["archived_at"], life[ids[1]]["recall_count"]) == (0.5, 777.0, 0)
    assert [r[0] for r in store.versions.decay_rows(b.id, 0, 10)] == [ids[0], ids[2]]
    assert store.versions.decay_rows(b.id, 0, 10)[0][5:] == (1, 900.0)
    with store.write():
        store.versions.set_class([ids[1], ids[2]], "permanent", 0.8, True)
    got = {r.id: r for r in store.facts.get(b.id, ids)}
    assert (got[ids[1]].decay_class, got[ids[1]].importance, got[ids[1]].pinned) == ("permanent", 0.8, True)
    assert (got[ids[1]].strength, got[ids[1]].archived_at) == (1.0, None)
    assert store.versions.expired(b.id, 200.0) == [ids[0]]
    assert store.versions.expired(b.id, 300.0) == [ids[0], ids[2]]


def test_a_supersede_reason_is_kept_until_cleared(store: AnyStore) -> None:
    bank = _setup(store, "a", ["지우는 부산에 산다", "지우는 서울에 산다", "Minji lives in Busan"])
    old, new, other = list(store.facts.ids(bank))
    with store.write():
        store.versions.supersede(old, new, 10.0, "부산 → 서울")
        store.versions.supersede(other, new, 11.0, "Busan → Seoul")
    assert store.versions.reasons(bank) == [(old, "부산 → 서울"), (other, "Busan → Seoul")]
    with store.write():
        assert store.versions.clear_reasons(bank, [old]) == 1
        assert store.versions.clear_reasons(bank + 1, [other]) == 0  # another bank's fact is not touched
    assert store.versions.reasons(bank) == [(other, "Busan → Seoul")]
    state = store.versions.state_of([old])[old]
    assert state["superseded_by"] == new and state["supersede_reason"] is None  # still closed, without its reason
