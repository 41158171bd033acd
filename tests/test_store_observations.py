"""The ``store.observations`` contract (:class:`gieok.store.protocol.Observations`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation

from gieok.store._observations import ObservationRow


def test_observations_save_update_delete(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        ent = store.graph.save_entity(bank, None, "Alice", "person", [], [], {}, None, ["alice"])
        o1 = store.observations.save(bank, None, entity_id=ent, topic="alice", text="Alice likes the Alps",
                                     fact_ids=[f[3], f[2]], history=[{"text": "처음", "at": 1.0}], believed_at=5.0,
                                     embedding=np.array([1, 2, 3, 4], np.float32), terms=["alic", "alp"], tokens=7)
        o2 = store.observations.save(bank, None, entity_id=None, topic="food", text="카페를 좋아함", fact_ids=[f[2]],
                                     history=[], believed_at=None, embedding=None, terms=["카페"], tokens=3)
        store.observations.mark_consolidated([f[2], f[3]], 50.0)
        store.models.save(bank, "likes", "What does Alice like?")
        store.models.set_answer(store.models.all(bank)[0].id, "The Alps", [f"o-{o1}"], 60.0)
    got = store.observations.get(bank, [o1, 999])
    assert got == [ObservationRow(o1, bank, ent, "alice", "Alice likes the Alps", sorted([f[2], f[3]]),
                                  [{"text": "처음", "at": 1.0}], 5.0, got[0].created_at, got[0].updated_at, 7)]
    assert [o.id for o in store.observations.all(bank)] == [o1, o2]
    assert [o.id for o in store.observations.all(bank, "food")] == [o2]
    assert store.observations.of_facts([f[2]]) == [o1, o2] and store.observations.of_facts([f[0]]) == []
    ids, vectors = store.observations.vectors(bank)
    assert ids == [o1] and vectors.dtype == np.float32 and np.array_equal(vectors[0], [1, 2, 3, 4])
    assert store.observations.vectors(bank + 1) == ([], None)
    assert store.observations.terms(bank) == [(o1, "alic alp"), (o2, "카페")]
    assert store.observations.unconsolidated(bank, 10) == f[:2]
    with store.write():
        assert store.observations.save(bank, o1, entity_id=ent, topic="alice", text="Alice loves the Alps",
                                       fact_ids=[f[3]], history=[], believed_at=6.0, embedding=None, terms=[],
                                       tokens=8) == o1
        store.observations.mark_consolidated([f[0]], 70.0, failed=True)
    updated = store.observations.get(bank, [o1])[0]
    assert ((updated.text, updated.fact_ids, updated.tokens, updated.believed_at)
            == ("Alice loves the Alps", [f[3]], 8, 6.0))
    assert updated.updated_at >= updated.created_at
    assert store.observations.unconsolidated(bank, 10) == [f[1]]  # f0 failed alone, f2/f3 are consolidated
    with store.write():
        assert store.observations.delete(bank, [o1]) == 1
        assert store.observations.delete(bank, []) == 0
    assert store.observations.get(bank, [o1]) == []
    assert store.observations.unconsolidated(bank, 10) == [f[1], f[3]]  # its support goes back in the queue
    assert store.models.all(bank)[0].answer is None  # the answer cited the observation
