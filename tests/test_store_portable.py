"""The ``store.portable`` contract (:class:`gieok.store.protocol.Portable`): a bank's rows read a page at
a time in key order and written back with new ids, its facts indexed for both channels, its name
changed — the same tests against the SQLite store and the PostgreSQL store (``store`` is parametrized
over both; see ``pg_server.py``). The file format on top of it is tested in test_portable.py.
"""

from __future__ import annotations

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import MARKER_EN, MARKER_KO, AnyStore, _conversation

from gieok.store._pg_search import tokens
from gieok.store._portable import TABLES
from gieok.text.terms import keyword_terms


def _all(store: AnyStore, record: str, bank: int, page: int = 500) -> list[dict]:
    return [row for rows in store.portable.pages(record, bank, page) for row in rows]


def test_pages_walk_each_table_in_key_order_in_pages_with_json_and_booleans_decoded(store: AnyStore) -> None:
    filled = _conversation(store)
    other = _conversation(store, "bob")
    bank = filled["bank"]
    with store.write():
        store.versions.supersede(filled["facts"][0], filled["facts"][1], 1_772_000_500.0, "update")
        store.graph.bump_context_degrees(bank, ["지우", "hiking", "alps"])
        store.sessions.add_turn(bank, "s-2", "user", "두 번째 세션", 3, 10.0, user_id="alice")
        store.sessions.add_turn(bank, "s-1", "user", "첫 세션", 2, 5.0)
    facts = _all(store, "fact", bank, page=3)  # pages of 3: the keyset carries on across them
    assert [f["id"] for f in facts] == sorted(filled["facts"]) and list(facts[0]) == list(TABLES["fact"].columns)
    assert facts[0]["text"].endswith(f"{MARKER_KO} 이야") and facts[2]["text"].endswith(MARKER_EN)
    assert facts[0]["superseded_by"] == filled["facts"][1] and facts[0]["supersede_reason"] == "update"
    assert facts[0]["message_ids"] == ["m1"] and facts[0]["pinned"] is False
    assert [f["id"] for f in _all(store, "fact", other["bank"])] == sorted(other["facts"])
    (source,) = _all(store, "source", bank)
    assert source["metadata"] == {"title": "대화"} and source["tags"] == [] and source["kind"] == "conversation"
    assert [m["external_id"] for m in _all(store, "message", bank)] == ["m1", "m2", "m3", "m4"]
    assert [c["message_ids"] for c in _all(store, "chunk", bank)] == [["m1"], ["m2"], ["m3"], ["m4"]]
    # text keys in byte order on both databases, a page at a time
    assert [d["key"] for d in _all(store, "context_degree", bank, page=1)] == sorted(
        ["지우", "hiking", "alps"], key=lambda k: k.encode("utf-8"))
    turns = _all(store, "session_turn", bank, page=1)
    assert [(t["session_id"], t["content"], t["user_id"]) for t in turns] == [
        ("s-1", "첫 세션", None), ("s-2", "두 번째 세션", "alice")]
    assert _all(store, "held", bank) == [] and _all(store, "mention", bank) == []


def test_insert_maps_rows_into_a_bank_and_indexes_its_facts_for_both_channels(store: AnyStore) -> None:
    filled = _conversation(store)
    source_rows, chunk_rows = _all(store, "source", filled["bank"]), _all(store, "chunk", filled["bank"])
    fact_rows = _all(store, "fact", filled["bank"])
    terms = store.search.indexed_terms(filled["bank"], filled["facts"])
    # as indexed: the words retain gave, split like the keyword tokenizer; no context words were given
    expected = tokens(" ".join(keyword_terms(filled["texts"][0])))
    assert terms[filled["facts"][0]] == (expected, []) and "코드" in expected
    with store.write():
        copy = store.banks.create("copy", "fake", filled["dim"]).id
        (source,) = store.portable.insert("source", copy, [{**source_rows[0], "tags": ["가족", "work"]}])
        chunks = store.portable.insert("chunk", copy, [{**c, "source_id": source} for c in chunk_rows])
        facts = store.portable.insert("fact", copy, [{**f, "source_id": source, "chunk_id": chunks[k],
                                                      "superseded_by": None} for k, f in enumerate(fact_rows)])
        assert store.portable.insert("context_degree", copy, [{"key": "지우", "degree": 3}]) == []
        store.portable.set_superseded([(facts[0], facts[1])])
        vectors = np.eye(filled["dim"], dtype=np.float32)
        store.portable.index_facts(copy, [(f, terms[old][0], ["hiking"], vectors[k % filled["dim"]], None)
                                          for k, (f, old) in enumerate(zip(facts, filled["facts"]))])
    assert len(set(facts) | set(filled["facts"])) == 8  # new ids, none of the original's
    copied = _all(store, "fact", copy)
    assert [{k: v for k, v in f.items() if k not in ("id", "source_id", "chunk_id", "superseded_by")}
            for f in copied] == [{k: v for k, v in f.items() if k not in ("id", "source_id", "chunk_id",
                                                                          "superseded_by")} for f in fact_rows]
    assert copied[0]["superseded_by"] == facts[1] and _all(store, "source", copy)[0]["tags"] == ["가족", "work"]
    assert [i for i, _ in store.search.keyword(copy, ["코드"], 5)] == [facts[0]]
    assert [i for i, _ in store.search.keyword(copy, ["hiking"], 5, context_weight=1.0)][:1] != []
    assert store.search.vector(copy, filled["dim"], vectors[2], 1)[0][0] == facts[2]
    assert store.search.indexed_terms(copy, facts)[facts[0]] == (terms[filled["facts"][0]][0], ["hiking"])
    assert store.graph.context_degrees(copy, ["지우"]) == {"지우": 3}


def test_observation_vectors_and_rename(store: AnyStore) -> None:
    filled = _conversation(store)
    bank = filled["bank"]
    with store.write():
        with_vector = store.observations.save(
            bank, None, entity_id=None, topic="alice", text="앨리스는 등산을 좋아한다", fact_ids=filled["facts"][:1],
            history=[], believed_at=None, embedding=np.ones(4, dtype=np.float32), terms=["등산"], tokens=3)
        without = store.observations.save(
            bank, None, entity_id=None, topic="bob", text="Bob drinks oat milk", fact_ids=filled["facts"][1:2],
            history=[], believed_at=None, embedding=None, terms=["milk"], tokens=3)
    found = store.portable.observation_vectors([with_vector, without])
    assert list(found) == [with_vector] and found[with_vector].tolist() == [1.0, 1.0, 1.0, 1.0]
    with store.write():
        store.portable.set_observation_vectors([(without, np.arange(4, dtype=np.float32))])
    assert store.portable.observation_vectors([without])[without].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert [(r["observation_id"], r["fact_id"]) for r in _all(store, "observation_fact", bank)] == [
        (with_vector, filled["facts"][0]), (without, filled["facts"][1])]
    with store.write():
        store.audit.add([{"bank": "alice", "operation": "retain", "type": "email", "action": "mask"}])
        store.portable.rename(bank, "앨리스")
    assert store.banks.get("alice") is None and store.banks.get("앨리스").id == bank
    assert [e["type"] for e in store.audit.log("앨리스")] == ["email"] and store.audit.log("alice") == []
    assert store.facts.count(bank) == 4
