"""The ``store.erasure`` contract (:class:`gieok.store.protocol.Erasure`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import numpy as np
import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import MARKER_EN, MARKER_KO, AnyStore, _conversation, _fact

from gieok.errors import StoreError
from gieok.store._erasure import ERASED
from gieok.text.terms import keyword_terms


def test_evidence_is_what_was_given_and_empty_banks_can_go(store: AnyStore) -> None:
    c = _conversation(store)
    with store.write():
        store.graph.save_entity(c["bank"], None, "Quillon Vantrell", "person", [], [], {}, None, ["quillon vantrell"])
        store.jobs.enqueue(c["bank"], "retain", {"messages": [{"text": "대기 중인 메시지"}]}, unique=False)
        model = store.models.save(c["bank"], "food", "음식 취향은?")
        store.models.set_answer(model, "김치찌개", ["f-1"], 1.0)
        empty = store.banks.create("empty", "fake", 4)
        configured = store.banks.create("configured", "fake", 4)
        store.banks.set_config(configured.id, {"llm": {"enabled": False}})
    said = "\n".join(store.erasure.evidence_texts(c["bank"]))
    assert all(t in said for t in c["texts"]) and "대기 중인 메시지" in said and "음식 취향은?" in said
    assert "Quillon" not in said and "김치찌개" not in said  # derived: an entity, an answer
    assert "world" in said and "retain" in said  # the store's own words: a fact kind, a job kind
    assert "empty" not in "\n".join(store.erasure.evidence_texts(c["bank"])).split()
    assert "empty" in "\n".join(store.erasure.evidence_texts(None))
    with store.write():
        assert store.models.clear_answers([model]) == 1
        assert store.banks.delete_if_empty(c["bank"]) is False
        assert store.banks.delete_if_empty(configured.id) is False
        assert store.banks.delete_if_empty(empty.id) is True
        assert store.banks.delete_if_empty(empty.id) is False
    assert store.models.all(c["bank"])[0].answer is None
    assert [b.name for b in store.banks.all()] == ["alice", "configured"]
    assert store.erasure.checkpoint() is True


def test_selecting_facts_and_messages_to_erase(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f = c["bank"], c["facts"]
    with store.write():
        ent = store.graph.save_entity(bank, None, "Alps", "place", [], [], {}, None, ["alps"])
        store.graph.add_mentions(f[3], [(ent, "Alps")])
    assert store.erasure.fact_ids(bank, source_row=c["source"]) == f
    assert store.erasure.fact_ids(bank, message_id="m2") == [f[1]]
    assert store.erasure.fact_ids(bank, entity_ids=[ent]) == [f[3]]
    assert store.erasure.fact_ids(bank, before=1_772_000_150.0) == f[:2]
    assert store.erasure.fact_ids(bank) == [] and store.erasure.fact_ids(bank, message_id="zz") == []
    rows = store.erasure.message_rows(bank, message_id="m3")
    assert len(rows) == 1 and rows[0][1:] == (c["source"], "m3")
    # timestamps compare as instants: +09:00 offsets, Z and naive (= UTC) alike
    before = store.erasure.message_rows(bank, before_iso="2026-03-02T02:00:00+00:00")
    assert [r[2] for r in before] == ["m1", "m2"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T09:00:30Z")] == ["m1", "m2", "m3"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T18:00:30+09:00")] == \
        ["m1", "m2", "m3"]
    assert [r[2] for r in store.erasure.message_rows(bank, before_iso="2026-03-05T10:00:00+00:00")] == \
        ["m1", "m2", "m3", "m4"]
    m1 = store.erasure.message_rows(bank, message_id="m1")[0][0]
    m4 = store.erasure.message_rows(bank, message_id="m4")[0][0]
    assert store.erasure.following_facts([m1]) == [f[1]] and store.erasure.following_facts([m4]) == []
    assert store.erasure.message_texts([m1, m4]) == [c["texts"][0], c["texts"][3]]
    assert store.erasure.source_texts([c["source"]]) == c["texts"]


def test_erase_facts_cascades_to_everything_derived(store: AnyStore) -> None:
    c = _conversation(store)
    bank, f, dim = c["bank"], c["facts"], c["dim"]
    with store.write():
        ent = store.graph.save_entity(bank, None, MARKER_EN, "place", [], [], {}, None, ["zebraquartz"])
        store.graph.add_mentions(f[2], [(ent, MARKER_EN)])
        store.graph.add_links(bank, [(f[2], f[3], "semantic", 0.7), (f[0], f[3], "temporal", 0.5)])
        store.versions.supersede(f[1], f[2], 999.0, "update")
        obs = store.observations.save(bank, None, entity_id=ent, topic="cafe", text=f"Favourite: {MARKER_EN}",
                                      fact_ids=[f[2], f[3]], history=[], believed_at=None,
                                      embedding=np.ones(4, np.float32), terms=["zebraquartz"], tokens=5)
        keep = store.observations.save(bank, None, entity_id=None, topic="hiking", text="Hikes", fact_ids=[f[3]],
                                       history=[], believed_at=None, embedding=None, terms=[], tokens=1)
        store.observations.mark_consolidated(f, 10.0)
        dropped = store.jobs.enqueue(bank, "consolidate", {"fact_ids": [f[2]]}, unique=False)
        trimmed = store.jobs.enqueue(bank, "consolidate", {"fact_ids": [f[2], f[3]]}, unique=False)
        untouched = store.jobs.enqueue(bank, "decay", {}, unique=False)
        model = store.models.save(bank, "cafe", "Where does Alice go?")
        store.models.set_answer(model, "Zebraquartz", [f"o-{obs}"], 20.0)
        other = store.models.save(bank, "hike", "Hikes?")
        store.models.set_answer(other, "Alps", [f"f-{f[3]}"], 20.0)
    before = store.erasure.scan([MARKER_EN])
    assert {"facts", "messages", "chunks", "observations", "entities"} <= {hit["table"] for hit in before}
    assert store.search.keyword(bank, keyword_terms("favourite cafe"), 10)
    with store.write():
        counts = store.erasure.erase(bank, dim, [f[2], 12345])
        store.search.compact(bank)
    # the emptied message goes with its chunk (counted as a chunk, as in the SQLite store)
    assert counts == {"facts": 1, "messages": 0, "chunks": 1, "sources": 0, "observations": 1, "jobs": 2,
                      "mental_models": 1, "versions_reopened": 1, "entities": 1}
    assert store.facts.get(bank, [f[2]]) == [] and store.facts.count(bank) == 3
    assert store.search.keyword(bank, keyword_terms("favourite cafe"), 10) == []
    assert f[2] not in [i for i, _ in store.search.vector(bank, dim, np.array([0, 0, 1, 0], np.float32), 10)]
    assert store.search.vectors_of(dim, [f[2]]) == {} and store.search.vectors_of(dim, [f[2]], view="context") == {}
    assert f[3] in store.search.vectors_of(dim, [f[3]], view="context")
    assert store.graph.links_of([f[2]]) == [] and store.graph.links_of([f[3]]) == [(f[3], f[0], "temporal", 0.5)]
    assert store.observations.get(bank, [obs]) == [] and store.observations.get(bank, [keep])[0].fact_ids == [f[3]]
    assert store.observations.unconsolidated(bank, 10) == [f[3]]  # the erased observation's other support
    jobs = {j.id: j for j in store.jobs.all(bank_id=bank)}
    assert dropped not in jobs and jobs[trimmed].payload == {"fact_ids": [f[3]]} and untouched in jobs
    answers = {m.name: m.answer for m in store.models.all(bank)}
    assert answers == {"cafe": None, "hike": "Alps"}
    reopened = store.facts.get(bank, [f[1]])[0]
    assert (reopened.valid_to, reopened.superseded_by) == (None, None)
    assert store.graph.entities_by_keys(bank, ["zebraquartz"]) == []
    assert [m.id for m in store.sources.get(bank, "alice", "chat-1").messages] == ["m1", "m2", "m4"]
    assert store.erasure.scan([MARKER_EN]) == []
    assert [hit["table"] for hit in store.erasure.scan([MARKER_KO])] != []


def test_erase_cuts_text_out_of_shared_evidence_and_drops_emptied_sources(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        doc = store.sources.upsert(b.id, "doc", "document", f"첫 문장. {MARKER_EN} lives here. 끝.", {})
        chunk = store.sources.add_chunk(b.id, doc, 0, "sha", f"첫 문장. {MARKER_EN} lives here. 끝.", [])
        ids = store.facts.add(b.id, doc, chunk, [_fact(f"{MARKER_EN} lives here"), _fact("첫 문장")],
                              np.eye(4, dtype=np.float32)[:2])
        lone = store.sources.upsert(b.id, "lone", "document", "Only this", {})
        lone_chunk = store.sources.add_chunk(b.id, lone, 0, "sha2", "Only this", [])
        lone_fact = store.facts.add(b.id, lone, lone_chunk, [_fact("Only this")], np.eye(4, dtype=np.float32)[2:3])
    with store.write():
        counts = store.erasure.erase(b.id, 4, [ids[0], lone_fact[0]])
        store.search.compact(b.id)
    assert counts["facts"] == 2 and counts["chunks"] == 1 and counts["sources"] == 1
    source = store.sources.get(b.id, "a", "doc")
    assert source.text == f"첫 문장. {ERASED}. 끝." and store.sources.get(b.id, "a", "lone") is None
    assert store.sources.chunks(doc)[0].id == chunk
    assert store.erasure.scan([MARKER_EN]) == []
    with store.write():  # whole sources and single messages by row
        c = _conversation(store, "b")
        m2 = store.erasure.message_rows(c["bank"], message_id="m2")[0][0]
        counts = store.erasure.erase(c["bank"], 4, [c["facts"][1]], message_rows=[m2])
        assert counts["facts"] == 1 and store.sources.existing_messages(c["bank"], ["m2"]) == {}
        counts = store.erasure.erase(c["bank"], 4, c["facts"], source_rows=[c["source"]])
        store.search.compact(c["bank"])
    assert counts["sources"] == 1 and counts["facts"] == 3
    assert store.sources.get(c["bank"], "b", "chat-1") is None and store.facts.count(c["bank"]) == 0
    assert store.erasure.scan([MARKER_KO]) == []


def test_scan_for_finds_a_marker_in_every_kind_of_column_and_vacuum_proves_it_gone(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("a", "fake", 4)
        store.sources.upsert(b.id, "meta", "document", None, {"note": MARKER_KO})
        store.audit.add([{"bank": "a", "operation": "x", "type": "t", "action": "a", "item_id": MARKER_EN}])
        store.observations.save(b.id, None, entity_id=None, topic="t", text="t", fact_ids=[], history=[],
                                believed_at=None, embedding=None, terms=[MARKER_EN], tokens=1)
    found = store.erasure.scan([MARKER_KO, MARKER_EN, "없는말"])
    hits = {(h["needle"], h["table"], h["column"], h["rows"]) for h in found}
    assert hits == {(MARKER_KO, "sources", "metadata", 1), (MARKER_EN, "audit_log", "item_id", 1),
                    (MARKER_EN, "observations", "terms", 1)}
    assert store.erasure.scan([]) == []
    with store.write(), pytest.raises(StoreError, match="vacuum"):
        store.erasure.vacuum()
    with store.write():
        store.banks.delete(b.id)
    store.erasure.vacuum()
    assert {h["table"] for h in store.erasure.scan([MARKER_KO, MARKER_EN])} == {"audit_log"}
    # SQLite proves the file's bytes too; PostgreSQL's proof covers the tables (see gieok.store._pg_erasure)
    assert store.erasure.file_contains([MARKER_KO]) == []
