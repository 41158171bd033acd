"""Retain searches its new facts' nearest neighbours before the write lock, all at once
(gieok.engine.retain.link.find_nearest, ``store.search.vector_many``), and merges them in the lock with
the call's own facts (``nearest_after_write``): the semantic links and the versions closed are the same
as with one KNN per fact inside the lock, on SQLite and PostgreSQL, in Korean and English; a bank
another writer changed meanwhile is searched again. (The store's side — ``search.vector_many``,
``facts.last_id``, ``facts.newer_than`` — is in test_store_search.py and test_store_facts.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

import gieok.engine.retain.link as linking
import gieok.engine.retain.run as retain_module
from gieok import Memory

FIRST = [
    "I live in Boston now.", "My sister Jane works at Google.", "I drink oat milk lattes every morning.",
    "We use Jenkins for the deploy pipeline.", "My dentist appointment is on Friday.",
    "나 요즘 서울에 살아.", "언니는 삼성에 다녀.", "아침마다 라떼에 두유 넣어 마셔.",
    "배포는 젠킨스로 하고 있어.", "치과 예약은 금요일이야.",
    "Jane loves hiking in the mountains.", "제인은 산에서 등산하는 걸 좋아해.",
]
LATER = [
    "Actually I moved to Denver last month.", "Jane switched from Google to Stripe.",
    "I switched from oat milk to soy milk.", "We moved from Jenkins to GitHub Actions.",
    "Sorry, the dentist appointment is on Monday, not Friday.",
    "나 지난달에 부산으로 이사했어.", "언니가 삼성 다니다가 카카오로 옮겼어.",
    "라떼에 두유 말고 이제 귀리우유 넣어.", "배포를 젠킨스에서 깃허브 액션으로 바꿨어.",
    "아니, 치과 예약은 금요일 말고 월요일이야.",
    "Jane still loves hiking in the mountains.", "제인은 여전히 산에서 등산하는 걸 좋아해.",
    "The deploy pipeline runs on GitHub Actions now.", "이제 배포는 깃허브 액션에서 돌아가.",
    "My dentist is in Boston.", "치과는 서울에 있어.", "Oat milk lattes are my favourite.",
]


def _messages(lines: list[str], start: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": line, "id": f"m{start + i}",
             "timestamp": f"2026-0{1 + (start + i) // 28}-{1 + (start + i) % 28:02d}T10:00:00+00:00"}
            for i, line in enumerate(lines)]


def _retain_all(memory: Memory, bank: str, user: str | None) -> None:
    memory.retain(bank, _messages(FIRST, 0), user_id=user)
    memory.retain(bank, _messages(LATER, len(FIRST)), user_id=user)  # 17 facts: the store's batched read
    memory.retain(bank, _messages(["Jane moved to Stripe last week.", "언니는 이제 카카오에 다녀."], 40), user_id=user)
    # a message retained again with new text: its old facts go in this very call (some were neighbours)
    edited = _messages(["나 요즘 부산에 살아.", "Jane hikes in the mountains every weekend."], 5)
    memory.retain(bank, [{**edited[0], "id": "m5"}, {**edited[1], "id": "m50"}], user_id=user)


def _outcome(memory: Memory, bank: str) -> tuple[set[Any], set[Any]]:
    """The bank's links (by fact text, weight rounded) and closed versions (older text, newer text)."""
    store = memory.engine.store
    row = memory.engine.find_bank(bank)
    assert row is not None
    facts = {f.id: f for f in store.facts.get(row.id, list(store.facts.ids(row.id)))}
    links = {(facts[a].text, facts[b].text, kind, round(weight, 4))
             for a, b, kind, weight in store.graph.links_of(list(facts))}
    closed = {(f.text, facts[f.superseded_by].text) for f in facts.values() if f.superseded_by is not None}
    return links, closed


@pytest.mark.parametrize("user", [None, "민지"], ids=["shared", "one-user"])
def test_links_and_versions_match_one_search_per_fact_in_the_lock(store_mem: Memory, user: str | None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _retain_all(store_mem, "early", user)
    searched: list[int] = []
    monkeypatch.setattr(retain_module, "nearest_after_write", lambda *a, **k: searched.append(1))  # always stale
    _retain_all(store_mem, "late", user)
    assert searched  # the second bank did take the old path: every fact searched inside the lock
    early, late = _outcome(store_mem, "early"), _outcome(store_mem, "late")
    assert early == late
    links, closed = early
    assert any(kind == "semantic" for _, _, kind, _ in links) and closed  # the comparison is not empty


def test_the_lock_searches_nothing_when_the_bank_is_unchanged(store_mem: Memory,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    store_mem.retain("b", _messages(FIRST, 0))
    # supersede may search a stored candidate's own neighbours in the lock (closeness both ways); not linking
    monkeypatch.setattr(retain_module, "supersede_new_facts", lambda *a, **k: [])
    store = store_mem.engine.store
    searches: list[bool] = []
    vector = store.search.vector
    monkeypatch.setattr(store.search, "vector",
                        lambda *a, **k: searches.append(store._in_write()) or vector(*a, **k))
    store_mem.retain("b", _messages(LATER, len(FIRST)))
    assert True not in searches  # no KNN inside the write lock


def test_a_fact_another_writer_added_meanwhile_is_searched_again(store_mem: Memory,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the search and the lock another writer stores a fact: the lock searches again, so the
    new facts link to it as they would have."""
    store_mem.retain("b", _messages(FIRST + LATER, 0))  # enough facts to calibrate semantic links on
    find = linking.find_nearest

    def then_another_writer(*args: Any, **kwargs: Any) -> Any:
        found = find(*args, **kwargs)
        if not wrote:
            wrote.append(1)
            store_mem.retain("b", _messages(["Tom moved his band practice to the old garage downtown."], 90),
                             document_id="other")
        return found

    wrote: list[int] = []

    monkeypatch.setattr(retain_module, "find_nearest", then_another_writer)
    merged: list[Any] = []
    after = linking.nearest_after_write
    monkeypatch.setattr(retain_module, "nearest_after_write", lambda *a, **k: merged.append(after(*a, **k)))
    store_mem.retain("b", _messages(["Tom moved his band practice to the old garage."], 80))
    assert merged[-1] is None  # the outer retain's: stale, searched in the lock
    monkeypatch.undo()
    links, _ = _outcome(store_mem, "b")
    assert ("Tom moved his band practice to the old garage downtown.",
            "Tom moved his band practice to the old garage.") in \
        {(a, b) for a, b, kind, _ in links if kind == "semantic"} | \
        {(b, a) for a, b, kind, _ in links if kind == "semantic"}
