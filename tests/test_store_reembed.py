"""The ``store.reembed`` contract (:class:`gieok.store.protocol.Reembed`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import hashlib

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation, _setup


def test_reembed_stages_beside_the_live_vectors_and_swaps_them_in(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    # the new embedder's vectors: 3 dimensions
    new = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, -1]], dtype=np.float32) + 0.5
    with store.write():
        obs = store.observations.save(bank, None, entity_id=None, topic="alice", text="alice: 알프스 등산을 좋아함",
                                      fact_ids=[f[3]], history=[], believed_at=None,
                                      embedding=np.ones(4, dtype=np.float32), terms=[], tokens=3)
        assert store.reembed.start(bank, "other", 3) == 0
    assert store.reembed.target(bank) == ("other", 3)
    assert store.reembed.unstaged_facts(bank, 0, 10) == [(i, hashlib.sha256(t.encode()).hexdigest())  # its embed_hash
                                                 for i, t in zip(f, c["texts"])]
    # the message a reply answers: the one stored before it in its conversation
    before = store.reembed.previous_messages(bank, ["m1", "m2", "m4"])
    assert sorted(before) == ["m2", "m4"] and (before["m2"].id, before["m4"].text) == ("m1", c["texts"][2])
    assert store.reembed.chunk_texts([c["chunks"][1]]) == {c["chunks"][1]: c["texts"][1]}
    with store.write():  # the first fact answers nothing: a context vector for it is not staged
        assert store.reembed.stage_facts(bank, [(f[0], new[0], new[1]), (f[1], new[1], new[2])]) == 2
    assert store.reembed.count_staged(bank) == 2 and [i for i, _ in store.reembed.unstaged_facts(bank, 0, 10)] == f[2:]
    assert [i for i, _ in store.reembed.unstaged_facts(bank, f[2], 10)] == [f[3]]
    with store.write():
        store.reembed.stage_facts(bank, [(f[2], new[2], new[0]), (f[3], new[3], new[1])])
        store.search.clear_context(bank, c["dim"], f[1])  # the message it answered was erased: the staged one goes
        store.erasure.erase(bank, c["dim"], [f[2]])  # its staged vectors go with it
        assert store.reembed.stage_facts(bank, [(f[2], new[2], None)]) == 0  # erased meanwhile: skipped
    assert store.reembed.count_staged(bank) == 3
    assert store.reembed.observation_hashes(bank) == {obs: None}
    with store.write():
        assert store.reembed.stage_observations(bank, [(obs, "h1", np.full(3, 2.0, dtype=np.float32))]) == 1
        assert store.reembed.start(bank, "other", 3) == 3  # the same target keeps what it staged
    assert store.reembed.observation_hashes(bank) == {obs: "h1"}
    # until the swap, the live vectors are the old ones
    assert store.banks.get("alice").dim == 4 and set(store.search.vectors_of(4, f)) == {f[0], f[1], f[3]}
    with store.write():
        moved = store.reembed.swap(bank, "other", 3)
    assert (moved["facts"], moved["context_vectors"], moved["observations"]) == (3, 1, 1)
    row = store.banks.get("alice")
    assert (row.embedder, row.dim) == ("other", 3) and store.reembed.target(bank) is None
    assert store.search.vectors_of(4, f) == {} and store.search.vectors_of(4, f, "context") == {}
    live = store.search.vectors_of(3, f)
    assert sorted(live) == [f[0], f[1], f[3]] and np.array_equal(live[f[3]], new[3])
    assert sorted(store.search.vectors_of(3, f, "context")) == [f[3]]
    assert store.search.vector(bank, 3, new[3], 1)[0][0] == f[3]
    ids, vectors = store.observations.vectors(bank)
    assert ids == [obs] and vectors is not None and vectors.tolist() == [[2.0, 2.0, 2.0]]
    assert store.reembed.count_staged(bank) == 0 and store.reembed.observation_hashes(bank) == {obs: None}


def test_another_reembed_target_starts_from_nothing(store: AnyStore) -> None:
    c = _conversation(store)
    with store.write():
        store.reembed.start(c["bank"], "other", 3)
        store.reembed.stage_facts(c["bank"], [(c["facts"][0], np.ones(3, dtype=np.float32), None)])
        assert store.reembed.start(c["bank"], "third", 5) == 0
        assert store.reembed.target(c["bank"]) == ("third", 5)
        store.reembed.stage_facts(c["bank"], [(c["facts"][0], np.ones(5, dtype=np.float32), None)])
    assert store.reembed.count_staged(c["bank"]) == 1
    with store.write():
        store.banks.delete(c["bank"])  # staging goes with its bank
    assert store.reembed.count_staged(c["bank"]) == 0 and store.reembed.target(c["bank"]) is None


def test_clearing_a_reembed_drops_its_target_and_what_was_staged(store: AnyStore) -> None:
    bank = _setup(store, "a", ["지우는 부산에 산다", "Minji lives in Seoul"])
    with store.write():
        store.reembed.start(bank, "other", 8)
        facts = [i for i, _hash in store.reembed.unstaged_facts(bank, 0, 10)]
        store.reembed.stage_facts(bank, [(i, np.ones(8, np.float32), None) for i in facts])
    assert store.reembed.target(bank) == ("other", 8) and store.reembed.count_staged(bank) == 2
    with store.write():
        assert store.reembed.clear(bank) == 2
        assert store.reembed.clear(bank) == 0
    assert store.reembed.target(bank) is None and store.reembed.count_staged(bank) == 0
