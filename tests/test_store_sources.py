"""The ``store.sources`` contract (:class:`gieok.store.protocol.Sources`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation, _fact

from gieok.records import UNSCOPED, Message, Scope, SourceInfo
from gieok.text.terms import keyword_terms


def test_sources_messages_and_chunks_round_trip(store: AnyStore) -> None:
    c = _conversation(store)
    bank = c["bank"]
    assert store.sources.row(bank, "chat-1") == (c["source"], "conversation")
    assert store.sources.row(bank, "nope") is None
    source = store.sources.get(bank, "alice", "chat-1")
    assert isinstance(source, SourceInfo) and source.metadata == {"title": "대화"} and source.text is None
    assert [m.id for m in source.messages] == ["m1", "m2", "m3", "m4"]
    assert source.messages[0] == Message("m1", "alice", c["texts"][0], "2026-03-02T10:00:00+09:00")
    with store.write():
        doc = store.sources.upsert(bank, "doc-1", "document", "문서 본문 text", {"a": 1, "b": [1, 2]})
        assert store.sources.upsert(bank, "doc-1", "document", "새 본문", {"b": 2}) == doc
    got = store.sources.get(bank, "alice", "doc-1")
    assert got.text == "새 본문" and got.metadata == {"b": 2} and got.messages == []
    assert got.updated_at >= got.created_at
    listed = store.sources.all(bank, "alice")
    assert [s.id for s in listed] == ["chat-1", "doc-1"] and all(s.text is None and not s.messages for s in listed)
    assert store.sources.existing_messages(bank, ["m1", "m3", "zz"]) == {"m1": (c["source"], c["texts"][0]),
                                                                "m3": (c["source"], c["texts"][2])}
    assert store.sources.existing_messages(bank, []) == {}
    assert store.sources.last_message(bank, "chat-1").id == "m4" and store.sources.last_message(bank, "doc-1") is None
    assert store.sources.next_position(c["source"]) == 4 and store.sources.next_position(doc) == 0
    with store.write():
        store.sources.set_message_text(bank, "m2", "고친 텍스트")
    assert store.sources.existing_messages(bank, ["m2"])["m2"][1] == "고친 텍스트"
    chunks = store.sources.chunks(c["source"])
    assert [(k.id, k.position, k.sha256) for k in chunks] == [(cid, i, f"sha{i}") for i, cid in enumerate(c["chunks"])]
    with store.write():
        store.sources.move_chunk(c["chunks"][0], 9)
    assert [k.id for k in store.sources.chunks(c["source"])][-1] == c["chunks"][0]
    assert store.sources.chunks_of_message(bank, c["source"], "m3") == [c["chunks"][2]]
    assert store.sources.chunks_of_message(bank, c["source"], "zz") == []
    with store.write():
        assert store.sources.delete_chunks(bank, [c["chunks"][2], c["chunks"][3]]) == 2
        assert store.sources.delete_chunks(bank, []) == 0
    assert store.facts.count(bank) == 2 and len(store.sources.chunks(c["source"])) == 2
    assert store.facts.get(bank, c["facts"][2:]) == []
    assert store.search.keyword(bank, keyword_terms("hiking Alps"), 10) == []
    assert store.search.vectors_of(c["dim"], c["facts"]).keys() == set(c["facts"][:2])


def test_chunk_locations_round_trip_and_follow_a_moved_chunk(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("docs", "fake", 4)
        source = store.sources.upsert(b.id, "policy.pdf", "document", "x", {})
        located = store.sources.add_chunk(b.id, source, 0, "sha-a", "환불 정책", [],
                                          {"section": ["환불 정책", "예외"], "start": 0, "end": 5})
        paged = store.sources.add_chunk(b.id, source, 1, "sha-b", "Refunds take 14 days", [],
                                        {"page": 3, "start": 7, "end": 27})
        plain = store.sources.add_chunk(b.id, source, 2, "sha-c", "no location", [])
    assert store.sources.chunk_locations([located, paged, plain]) == {
        located: {"section": ["환불 정책", "예외"], "start": 0, "end": 5}, paged: {"page": 3, "start": 7, "end": 27}}
    assert store.sources.chunk_locations([]) == {}
    with store.write():
        store.sources.move_chunk(paged, 0, {"page": 4, "start": 0, "end": 20})
        store.sources.move_chunk(located, 1)  # no location given: the stored one stays
    found = store.sources.chunk_locations([located, paged])
    assert found[paged] == {"page": 4, "start": 0, "end": 20} and found[located]["section"] == ["환불 정책", "예외"]


def test_retired_chunks_close_their_facts_and_leave_the_document_order(store: AnyStore) -> None:
    with store.write():
        b = store.banks.create("docs", "fake", 4)
        source = store.sources.upsert(b.id, "guide.md", "document", "x", {})
        old = store.sources.add_chunk(b.id, source, 0, "sha-old", "환불은 7일 이내", [])
        kept = store.sources.add_chunk(b.id, source, 1, "sha-kept", "Refunds take 5 days", [])
        old_facts = store.facts.add(b.id, source, old, [_fact("환불은 7일 이내"), _fact("교환은 3일 이내")],
                                    np.ones((2, 4), np.float32))
        kept_facts = store.facts.add(b.id, source, kept, [_fact("Refunds take 5 days")], np.ones((1, 4), np.float32))
        assert store.sources.retire_chunks(b.id, [old], 1_800_000_000.0, "removed from the document") == 2
        assert store.sources.retire_chunks(b.id, [old], 1_900_000_000.0, "again") == 0  # already closed: kept as it was
        assert store.sources.retire_chunks(b.id, [], 1.0, "nothing") == 0
    rows = {f.id: f for f in store.facts.get(b.id, old_facts + kept_facts)}
    assert [rows[i].valid_to for i in old_facts] == [1_800_000_000.0] * 2
    assert all(rows[i].superseded_by is None for i in old_facts) and rows[kept_facts[0]].valid_to is None
    assert {c.id: c.position for c in store.sources.chunks(source)} == {old: -1, kept: 1}


def test_a_source_keeps_the_scope_it_was_retained_for(store: AnyStore) -> None:
    with store.write():
        bank = store.banks.create("a", "fake", 4).id
        scope = Scope("jiwoo", "agent", "sess", ("일", "work"))
        jiwoo = store.sources.upsert(bank, "s1", "document", "지우의 메모", {}, scope)
        minji = store.sources.upsert(bank, "s2", "document", "Minji's note", {}, Scope("minji"))
        open_ = store.sources.upsert(bank, "s3", "document", "shared", {})
        again = store.sources.upsert(bank, "s4", "document", "again", {}, Scope("jiwoo"))
    assert store.sources.scopes([jiwoo, minji, open_]) == {
        jiwoo: scope, minji: Scope("minji"), open_: UNSCOPED}
    assert store.sources.scopes([]) == {}
    assert store.sources.of_user(bank, "jiwoo") == [jiwoo, again] and store.sources.of_user(bank, "nobody") == []
