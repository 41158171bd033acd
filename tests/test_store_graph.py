"""The ``store.graph`` contract (:class:`gieok.store.protocol.Graph`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation, _setup

from gieok.store._graph import EntityRow


def test_entities_mentions_and_links(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        minji = store.graph.save_entity(bank, None, "김민지", "person", ["민지", "김 팀장"], ["팀장"], {"alice": 2},
                                        10.0, ["김민지", "민지"])
        hana = store.graph.save_entity(bank, None, "Hana", "person", [], [], {}, None, ["hana"])
        alps = store.graph.save_entity(bank, None, "Alps", "place", [], [], {}, 20.0, ["alps"])
        store.graph.save_entity(bank, minji, "김민지", "person", ["민지", "김 팀장", "민지님"], ["팀장"], {"alice": 3},
                                30.0, ["민지님", "민지"])
        store.graph.add_mentions(f[0], [(minji, "김민지"), (hana, "Hana")])
        store.graph.add_mentions(f[0], [(minji, "민지")])  # already there: ignored
        store.graph.add_mentions(f[1], [(minji, "민지")])
        store.graph.add_mentions(f[3], [(alps, "Alps")])
        store.graph.bump_context_degrees(bank, ["alice", "bob", "alice"])
        store.graph.add_links(bank, [(f[0], f[1], "temporal", 0.5), (f[1], f[2], "semantic", 0.8),
                               (f[2], f[0], "caused_by", 1.0)])
        store.graph.add_links(bank, [(f[0], f[1], "temporal", 0.9)])  # replaces the weight
    found = store.graph.entities_by_keys(bank, ["민지님", "민지", "nobody"])
    assert found == [EntityRow(minji, "김민지", "person", ["민지", "김 팀장", "민지님"], ["팀장"], {"alice": 3}, 30.0)]
    assert store.graph.entities_by_keys(bank, []) == [] and store.graph.entities_by_keys(bank + 1, ["민지"]) == []
    assert store.graph.entity_key_index(bank, ["민지", "hana", "김민지", "nobody"]) == \
        {"hana": (hana,), "김민지": (minji,), "민지": (minji,)}
    assert store.graph.entity_key_index(bank, []) == {} and store.graph.entity_key_index(bank + 1, ["hana"]) == {}
    assert store.graph.recent_entity_names(bank, 2) == ["김민지", "민지", "김 팀장", "민지님", "Alps"]
    assert store.graph.recent_entity_names(bank, 10)[-1] == "Hana"  # never seen: last
    assert store.graph.entities_of_facts([f[0], f[1], f[2]]) == {f[0]: sorted([minji, hana]), f[1]: [minji]}
    assert store.graph.entity_degrees([minji, hana, alps]) == {minji: 2, hana: 1, alps: 1}
    assert store.graph.facts_of_entities([minji, hana], 1) == {minji: [f[1]], hana: [f[0]]}
    assert store.graph.facts_of_entities([minji], 5) == {minji: [f[1], f[0]]}
    assert store.graph.entity_names([minji, alps]) == {minji: "김민지", alps: "Alps"}
    assert store.graph.context_degrees(bank, ["alice", "bob", "carol"]) == {"alice": 2, "bob": 1}
    assert sorted(store.graph.links_of([f[0]])) == sorted([(f[0], f[1], "temporal", 0.9),
                                                          (f[0], f[2], "caused_by", 1.0)])
    assert store.graph.links_of([f[1]], ["semantic"]) == [(f[1], f[2], "semantic", 0.8)]
    assert store.graph.links_of([]) == []
    assert store.facts.recent_of_source(c["source"], 2) == [(f[3], 1_772_000_300.0), (f[2], 1_772_000_200.0)]
    with store.write():
        store.sources.delete_chunks(bank, [c["chunks"][3]])  # Alps loses its only mention
    assert store.graph.entity_names([alps]) == {}
    with store.write():
        store.erasure.scrub_context_keys(bank, ["alice"])
    assert store.graph.entities_by_keys(bank, ["민지"])[0].cooccurring == {}
    assert store.graph.context_degrees(bank, ["alice", "bob"]) == {"bob": 1}


def test_what_erasure_takes_back_from_the_graph(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        minji = store.graph.save_entity(bank, None, "김민지", "person", ["민지"], ["팀장"], {"hana": 2, "#work": 1},
                                        10.0, ["김민지", "민지", "surname:김"])
        hana = store.graph.save_entity(bank, None, "Hana", "person", [], [], {"김민지": 2}, None, ["hana"])
        store.graph.add_mentions(f[0], [(minji, "김민지 팀장"), (hana, "Hana")])
        store.graph.add_mentions(f[1], [(minji, "민지")])
        store.graph.bump_context_degrees(bank, ["hana", "hana", "김민지", "#work"])
    assert store.graph.mentions([f[1], f[0]]) == sorted([(f[0], minji, "김민지 팀장"), (f[0], hana, "Hana"),
                                                        (f[1], minji, "민지")])
    assert store.graph.mentions([]) == []
    assert [e.id for e in store.graph.entities_by_ids(bank, [hana, minji, 10_000])] == sorted([minji, hana])
    assert store.graph.entities_by_ids(bank + 1, [minji]) == []
    with store.write():
        store.graph.set_entity_keys(bank, minji, ["민지", "민지"])
        store.graph.adjust_context_degrees(bank, {"hana": -1, "김민지": -1, "#work": 0})
    assert store.graph.entities_by_keys(bank, ["김민지", "surname:김"]) == []
    assert [e.id for e in store.graph.entities_by_keys(bank, ["민지"])] == [minji]
    assert store.graph.context_degrees(bank, ["hana", "김민지", "#work"]) == {"hana": 1, "#work": 1}
    assert store.graph.context_degree_keys(bank) == ["#work", "hana"]
    with store.write():
        store.graph.delete_context_degrees(bank, ["hana", "nobody"])
    assert store.graph.context_degree_keys(bank) == ["#work"]


def test_entities_are_listed_most_named_first_and_orphans_go(store: AnyStore) -> None:
    bank = _setup(store, "a", ["지우는 민지를 만났다", "Jiwoo met Minji again"])
    facts = list(store.facts.ids(bank))
    with store.write():
        jiwoo = store.graph.save_entity(bank, None, "지우", "person", ["Jiwoo"], [], {}, 1.0, ["지우", "jiwoo"])
        minji = store.graph.save_entity(bank, None, "민지", "person", [], [], {}, 2.0, ["민지"])
        lonely = store.graph.save_entity(bank, None, "Nobody", "person", [], [], {}, None, ["nobody"])
        store.graph.add_mentions(facts[0], [(jiwoo, "지우"), (minji, "민지")])
        store.graph.add_mentions(facts[1], [(jiwoo, "Jiwoo")])
    listed = store.graph.entities(bank)
    assert [(e.id, n) for e, n in listed] == [(jiwoo, 2), (minji, 1), (lonely, 0)]
    assert all(isinstance(e, EntityRow) for e, _ in listed) and len(store.graph.entities(bank, limit=1)) == 1
    with store.write():
        assert store.graph.delete_orphans(bank) == 1
        assert store.graph.delete_orphans(bank) == 0
    assert [e.id for e, _ in store.graph.entities(bank)] == [jiwoo, minji]
