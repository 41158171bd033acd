"""The browsing calls the web UI reads through: a bank's overview, facts by message, a fact's
connections, an entity's neighbourhood, pinning, creating an empty bank. Korean and English."""

from __future__ import annotations

import pytest

from gieok import EntityNotFoundError, Memory, MemoryNotFoundError, SourceNotFoundError

CHAT = [
    {"id": "b1", "speaker": "민지", "text": "민지는 하나랑 토론토에 살아.", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "b2", "speaker": "Minji", "text": "Hana and Minji moved to Toronto with Jisoo.",
     "timestamp": "2026-05-12T09:01:00+09:00"},
    {"id": "b3", "speaker": "Minji", "text": "I live in Seoul now.", "timestamp": "2026-05-20T09:00:00+09:00"},
]


def test_overview_counts_and_weeks(mem: Memory) -> None:
    mem.retain("민지", CHAT, document_id="chat-1")
    view = mem.browse.overview("민지")
    assert view.sources == 1 and view.facts == 3 and view.entities >= 2
    assert sum(sum(w.classes.values()) for w in view.weeks) == 3
    assert [w.week for w in view.weeks] == sorted(w.week for w in view.weeks)
    assert view.last_activity and view.jobs.failed == 0 and view.jobs.queued + view.jobs.running >= 1
    mem.retain("민지", [{"id": "b4", "speaker": "민지", "text": "다음 달에 하나랑 밴쿠버 가. We fly on June 3."}],
               document_id="chat-1")
    assert mem.browse.overview("민지").bytes > view.bytes > 0


def test_source_facts_connections_entity_and_pin(mem: Memory) -> None:
    mem.retain("a", CHAT, document_id="chat-1")
    by_message = mem.browse.source_facts("a", "chat-1")
    assert set(by_message) == {"b1", "b2", "b3"}
    fact = by_message["b2"][0]
    linked = mem.browse.connections("a", fact.id)
    assert {"Toronto", "Jisoo"} <= set(linked.entities)
    toronto = mem.browse.entity("a", "toronto")
    assert toronto.entity.name == "Toronto" and [f.id for f in toronto.facts] == [fact.id]
    assert {n.name for n in toronto.neighbours} >= {"Jisoo", "Minji"}
    assert all(n.weight == 1 for n in toronto.neighbours) and toronto.edges
    assert mem.pin("a", fact.id).pinned is True
    assert mem.get("a", fact.id).decay_class == "pinned"
    unpinned = mem.pin("a", fact.id, pinned=False)
    assert unpinned.pinned is False and unpinned.decay_class == "stable"
    with pytest.raises(SourceNotFoundError):
        mem.browse.source_facts("a", "nope")
    with pytest.raises(MemoryNotFoundError):
        mem.browse.connections("a", "f-999")
    with pytest.raises(EntityNotFoundError):
        mem.browse.entity("a", "Nobody")


def test_create_bank_is_empty_and_idempotent(mem: Memory) -> None:
    assert mem.banks.create("빈 은행").facts == 0
    assert mem.banks.create("빈 은행").name == "빈 은행"
    assert mem.browse.overview("빈 은행").weeks == []


def test_an_entity_is_found_by_its_korean_or_english_name_or_an_alias(mem: Memory) -> None:
    mem.retain("k", [{"role": "user", "content": "서연이는 부산에 살아.", "id": "k1"},
                     {"role": "user", "content": "서연이가 부산에서 카페를 열었어.", "id": "k2"},
                     {"role": "user", "content": "Jane Park moved to Busan.", "id": "k3"},
                     {"role": "user", "content": "Jane likes the beach in Busan.", "id": "k4"}])
    names = {e.name: e for e in mem.entities("k")}
    for wanted in ("서연", "부산", "busan", "Jane"):
        found = next(e for n, e in names.items() if wanted.casefold() in
                     (x.casefold() for x in (n, *e.aliases)))
        view = mem.browse.entity("k", wanted)
        assert view.entity.name == found.name and view.entity.facts == found.facts == 2
        assert len(view.facts) == found.facts


def test_merge_suggestions_pair_names_that_can_be_one_and_never_namesakes(mem: Memory) -> None:
    mem.retain("s", CHAT, document_id="chat-1")
    store = mem.store
    bank = store.banks.get("s")
    with store.write():
        for name, kind in (("민지", "person"), ("김민지", "person"), ("이민지", "person"), ("Caroline", "unknown"),
                           ("Caroline Smith", "person"), ("Jane Smith", "person"), ("John Smith", "person"),
                           ("Room 101", "place"), ("Room 102", "place"), ("Caroline", "place")):
            store.graph.save_entity(bank.id, None, name, kind, [name], [], {}, None, [f"test:{name}:{kind}"])
    found = mem.browse.merge_suggestions("s")
    pairs = {frozenset(s.entities) for s in found}
    wanted = ({"민지", "김민지"}, {"민지", "이민지"}, {"Caroline", "Caroline Smith"})
    assert {frozenset(w) for w in wanted} <= pairs
    for never in ({"김민지", "이민지"}, {"John Smith", "Jane Smith"}, {"Jane Smith", "Caroline Smith"},
                  {"Room 101", "Room 102"}):
        assert frozenset(never) not in pairs
    assert all(s.reason and 0.5 <= s.similarity <= 1.0 for s in found)
    assert mem.browse.merge_suggestions("s", limit=1) == found[:1]
