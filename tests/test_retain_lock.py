"""Retain holds the write lock only for writing: supersede verdicts are judged
(gieok.engine.retain.supersede.prejudge_updates) and entity mentions resolved (gieok.engine.retain.resolve)
before it is taken, with the same outcome as doing it inside; a resolution another writer made stale
meanwhile is done again under the lock. Korean and English."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gieok.engine.retain.resolve as resolution
import gieok.engine.retain.run as retain_module
import gieok.engine.retain.supersede as versions
from gieok import Memory

ENGLISH = [
    "I live in Boston now.", "My sister Jane works at Google.", "I drink oat milk lattes every morning.",
    "We use Jenkins for the deploy pipeline.", "My dentist appointment is on Friday.",
    "Actually I moved to Denver last month.", "Jane switched from Google to Stripe.",
    "I switched from oat milk to soy milk.", "We moved from Jenkins to GitHub Actions.",
    "Sorry, the dentist appointment is on Monday, not Friday.",
]
KOREAN = [
    "나 요즘 서울에 살아.", "언니는 삼성에 다녀.", "아침마다 라떼에 두유 넣어 마셔.",
    "배포는 젠킨스로 하고 있어.", "치과 예약은 금요일이야.",
    "나 지난달에 부산으로 이사했어.", "언니가 삼성 다니다가 카카오로 옮겼어.",
    "라떼에 두유 말고 이제 귀리우유 넣어.", "배포를 젠킨스에서 깃허브 액션으로 바꿨어.",
    "아니, 치과 예약은 금요일 말고 월요일이야.",
]


def _messages(lines: list[str], start: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": line, "id": f"m{start + i}",
             "timestamp": f"2026-0{1 + (start + i) // 28}-{1 + (start + i) % 28:02d}T10:00:00+00:00"}
            for i, line in enumerate(lines)]


class _LockWatch:
    """Counts the update decisions asked inside and outside the store's write transaction."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.inside = self.outside = 0
        store = memory.engine.store
        judge = versions.ask

        def counted(*args: Any) -> Any:
            if store._in_write():  # type: ignore[attr-defined]
                self.inside += 1
            else:
                self.outside += 1
            return judge(*args)

        monkeypatch.setattr(versions, "ask", counted)


def _closed(memory: Memory) -> set[tuple[str, str]]:
    store = memory.engine.store
    bank = memory.engine.find_bank("b")
    assert bank is not None
    rows = store.facts.get(bank.id, list(range(1, 500)))
    by_id = {r.id: r.text for r in rows}
    return {(r.text, by_id[r.superseded_by]) for r in rows if r.superseded_by is not None}


@pytest.fixture
def two_memories(tmp_path: Path, fake_embedder: object) -> Iterator[tuple[Memory, Memory]]:
    with Memory(str(tmp_path / "a.db"), embedder="fake") as a, Memory(str(tmp_path / "b.db"), embedder="fake") as b:
        yield a, b


@pytest.mark.parametrize("lines", [ENGLISH, KOREAN], ids=["english", "korean"])
def test_supersede_is_judged_before_the_write_lock(lines: list[str], mem: Memory,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mem.retain("b", _messages(lines[:5], 0))  # what the bank held before
    watch = _LockWatch(mem, monkeypatch)
    mem.retain("b", _messages(lines[5:] * 3, 5))  # a later session restating its updates
    assert watch.outside > 0
    assert watch.inside <= max(2, watch.outside // 10), (watch.inside, watch.outside)


@pytest.mark.parametrize("lines", [ENGLISH, KOREAN], ids=["english", "korean"])
def test_verdicts_judged_early_close_the_same_versions(lines: list[str], two_memories: tuple[Memory, Memory],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    early, late = two_memories
    for memory in (early, late):
        if memory is late:  # everything judged inside the lock, as before
            monkeypatch.setattr(retain_module, "prejudge_updates", lambda *a, **k: {})
        memory.retain("b", _messages(lines[:5], 0))
        memory.retain("b", _messages(lines[5:], 5))
    closed = _closed(early)
    assert closed == _closed(late)
    assert len(closed) >= 2  # the updates above do close something: the comparison is not empty


def test_a_document_is_judged_early_too_and_its_sections_stay_open(mem: Memory,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    watch = _LockWatch(mem, monkeypatch)
    guide = "\n\n".join(["# Refunds\nRefunds take 5 days.", "# 환불\n환불은 5일 걸려요.",
                         "# Update\nRefunds now take 3 days.", "# 변경\n환불은 이제 3일 걸려요."])
    mem.retain("b", text=guide, document_id="guide")
    assert watch.inside == 0
    assert _closed(mem) == set()


NAMED = {
    "english": ["My sister Jane works at Google in Mountain View.", "Jane and Tom went hiking near Denver.",
                "Tom Baker is my manager at Google.", "Jane said Tom is moving to Seattle."],
    "korean": ["민지 언니는 판교에 있는 네이버에 다녀.", "민지랑 지호가 주말에 북한산에 갔어.",
               "김지호 팀장님은 우리 팀 매니저야.", "민지가 그러는데 지호는 부산으로 이사 간대."],
}


def _graph(memory: Memory) -> set[tuple[str, str, tuple[str, ...], int]]:
    """The bank's entities as (name, kind, aliases, facts naming it): what resolution decided."""
    bank = memory.engine.find_bank("b")
    assert bank is not None
    return {(row.canonical_name, row.kind, tuple(sorted(row.aliases)), n)
            for row, n in memory.engine.store.graph.entities(bank.id)}


class _ResolveWatch:
    """Counts entity resolutions scored inside and outside the store's write transaction."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.inside = self.outside = 0
        store = memory.engine.store
        score = resolution._RESOLVER.resolve

        def counted(*args: object, **kwargs: object) -> object:
            if store._in_write():  # type: ignore[attr-defined]
                self.inside += 1
            else:
                self.outside += 1
            return score(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(resolution._RESOLVER, "resolve", counted)


@pytest.mark.parametrize("lang", ["english", "korean"])
def test_entities_are_resolved_before_the_write_lock(lang: str, mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = NAMED[lang]
    mem.retain("b", _messages(lines[:2], 0))
    watch = _ResolveWatch(mem, monkeypatch)
    mem.retain("b", _messages(lines[2:], 2))
    assert watch.outside >= 2 and watch.inside == 0, (watch.inside, watch.outside)


@pytest.mark.parametrize("lang", ["english", "korean"])
def test_entities_resolved_early_equal_resolving_in_the_lock(lang: str, two_memories: tuple[Memory, Memory],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    early, late = two_memories
    lines = NAMED[lang]
    for memory in (early, late):
        if memory is late:  # no plan: everything resolved inside the lock
            monkeypatch.setattr(retain_module, "plan_entities", lambda *a, **k: None)
        memory.retain("b", _messages(lines[:2], 0))
        memory.retain("b", _messages(lines[2:], 2))
    graph = _graph(early)
    assert graph == _graph(late)
    assert any(n >= 2 for *_, n in graph)  # a name met twice is one entity: the comparison is not empty


@pytest.mark.parametrize(("lang", "name", "first", "second"), [
    ("english", "Jane", "My sister Jane works at Google.", "Last spring my sister Jane moved to Denver."),
    ("korean", "민지", "민지는 네이버에 다녀.", "민지는 작년 봄에 부산으로 이사했어."),
])
def test_a_resolution_made_stale_by_another_writer_is_done_again(lang: str, name: str, first: str, second: str,
                                                                mem: Memory,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    mem.retain("b", _messages(["hello there, nice to meet you" if lang == "english" else "안녕, 반가워"], 0))
    plan = retain_module.plan_entities
    replans: list[object] = []

    def plan_then_race(store: object, bank: object, facts: object, found: object) -> object:
        planned = plan(store, bank, facts, found)  # type: ignore[arg-type]
        if not replans:  # another writer names the same person before this retain takes the lock
            replans.append(planned)
            mem.retain("b", [{"role": "user", "content": first, "id": "other", "timestamp": "2026-02-01T10:00:00Z"}],
                       document_id="other-source")
        return planned

    monkeypatch.setattr(retain_module, "plan_entities", plan_then_race)
    mem.retain("b", _messages([second], 1))
    named = [row for row, _ in mem.engine.store.graph.entities(mem.engine.find_bank("b").id)  # type: ignore[union-attr]
             if row.canonical_name == name]
    assert len(named) == 1, named  # one person, not a second entity from the stale plan
    assert mem.engine.store.graph.entities(mem.engine.find_bank("b").id)[0][1] >= 2  # type: ignore[union-attr]


@pytest.mark.parametrize(("common", "rare"), [("deploy", "kubernetes"), ("배포", "쿠버네티스")])
def test_a_long_message_does_not_search_for_its_commonest_words(common: str, rare: str) -> None:
    # a word in more of the call's facts than versions._COMMON_TERM picks none of them over another;
    # searching for it costs postings as long as the message (quadratic over a long one)
    many = [f"{common} {rare}{i % 7} step {i}" if common.isascii() else f"{common} {rare}{i % 7} 단계 {i}"
            for i in range(versions._COMMON_TERM + 10)]
    queries = versions._search_terms(many)
    stems = {t for q in queries for t in q}
    assert not any(t.startswith(common[:4]) for t in stems), stems
    assert all(queries)  # each fact still searches for its own words
    few = many[:10]
    assert versions._search_terms(few) == [list(versions.keyword_terms(t)) for t in few]  # a short call keeps all
