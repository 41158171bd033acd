"""Versions (supersede, as_of, history), decay classes, decay pass, TTL and the job queue, through the
public API, in Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory
from gieok.errors import InputError, MemoryNotFoundError


def _say(mem: Memory, bank: str, mid: str, text: str, ts: str, speaker: str = "user") -> None:
    mem.retain(bank, messages=[{"id": mid, "speaker": speaker, "text": text, "timestamp": ts}], document_id=f"s-{mid}")


def _find(mem: Memory, bank: str, query: str, needle: str, **kw) -> object | None:
    return next((m for m in mem.recall(bank, query, limit=10, **kw).memories if needle in m.text), None)


@pytest.mark.parametrize("old, new, query, old_word, new_word", [
    ("마감은 금요일이야", "아니, 금요일 말고 월요일이 마감이야", "마감 언제야?", "금요일이야", "월요일"),
    ("나 삼성 다녀", "나 삼성 다니다가 카카오로 옮겼어", "어느 회사 다녀?", "삼성 다녀", "카카오"),
    ("I drink almond milk every morning", "I switched from almond milk to oat milk", "what milk do I drink",
     "every morning", "oat milk"),
    ("The project deadline is Friday", "Actually the project deadline moved to Monday", "when is the project deadline",
     "is Friday", "Monday"),
])
def test_an_update_closes_the_old_version_and_as_of_still_sees_it(mem: Memory, old, new, query, old_word,
                                                                   new_word) -> None:
    _say(mem, "u", "a1", old, "2026-03-02T10:00:00+09:00")
    _say(mem, "u", "a2", new, "2026-03-09T10:00:00+09:00")
    now = "2026-03-10T10:00:00+09:00"
    current = mem.recall("u", query, limit=10, now=now).memories
    assert any(new_word in m.text for m in current)
    _replaced_rank_below_their_replacements(current)
    newest = next(m for m in current if new_word in m.text)
    assert newest.supersedes, "the new version says which statement it replaced"
    then = mem.recall("u", query, limit=10, now="2026-03-05T10:00:00+09:00", as_of="2026-03-05T10:00:00+09:00")
    assert any(old_word in m.text for m in then.memories)
    assert not any(new_word in m.text for m in then.memories), "as_of hides what was said later"
    versions = mem.history("u", newest.id)
    assert [v.text for v in versions] == [old, new]
    assert versions[0].valid_to is not None and versions[0].superseded_by == newest.id
    assert versions[1].valid_to is None


def _replaced_rank_below_their_replacements(memories: list) -> None:
    """A replaced version may still be recalled (a message says more than what changed), but marked,
    and below the statement that replaced it."""
    position = {m.id: i for i, m in enumerate(memories)}
    for i, m in enumerate(memories):
        if m.superseded_by is not None:
            assert position.get(m.superseded_by, -1) < i, (m.text, "outranks its replacement")


@pytest.mark.parametrize(("old", "new", "query", "old_word", "new_word"), [
    ("마감은 금요일이야", "아니, 금요일 말고 월요일이 마감이야", "마감 언제야?", "금요일이야", "월요일"),
    ("The project deadline is Friday", "Actually the project deadline moved to Monday", "when is the deadline",
     "is Friday", "Monday"),
])
def test_replaced_versions_rank_below_their_replacements(db_path: str, fake_embedder, old: str, new: str,
                                                          query: str, old_word: str, new_word: str) -> None:
    with Memory(db_path, embedder="fake") as mem:
        _say(mem, "u", "a1", old, "2026-03-02T10:00:00+09:00")
        _say(mem, "u", "a2", new, "2026-03-09T10:00:00+09:00")
        found = mem.recall("u", query, limit=10, explain=True).memories
        old_one = [m for m in found if old_word in m.text and new_word not in m.text]
        assert old_one and old_one[0].superseded_by is not None
        assert old_one[0].explanation is not None and old_one[0].explanation["features"]["replaced"] == 1.0
        _replaced_rank_below_their_replacements(found)
        # as the bank stood before the change, only the old version was there
        before = mem.recall("u", query, limit=10, as_of="2026-03-05T10:00:00+09:00").memories
        assert [m.text for m in before if new_word in m.text] == []


def test_an_older_statement_retained_late_does_not_supersede_a_newer_one(mem: Memory) -> None:
    _say(mem, "late", "n1", "회의는 4시로 옮겼어", "2026-05-10T09:00:00+09:00")
    _say(mem, "late", "n0", "회의는 3시야", "2026-05-08T09:00:00+09:00")  # said earlier, retained later
    current = mem.recall("late", "회의 몇 시야?", limit=10, now="2026-05-11T09:00:00+09:00").memories
    assert any("4시" in m.text for m in current)
    assert all(m.superseded_by is not None for m in current if "3시" in m.text)
    _replaced_rank_below_their_replacements(current)


def test_unrelated_and_additive_statements_do_not_supersede(mem: Memory) -> None:
    _say(mem, "add", "t1", "I like green tea", "2026-01-01T09:00:00+00:00")
    _say(mem, "add", "t2", "I also like coffee", "2026-01-02T09:00:00+00:00")
    _say(mem, "add", "t3", "커피도 좋아해", "2026-01-03T09:00:00+09:00")
    texts = [m.text for m in mem.recall("add", "what drinks do I like", limit=10).memories]
    assert "I like green tea" in texts and "I also like coffee" in texts


def test_decay_classes_come_from_wording_and_can_be_overridden(mem: Memory) -> None:
    _say(mem, "d", "p1", "나 땅콩 알레르기 있어, 꼭 기억해 줘", "2026-01-01T09:00:00+09:00")
    _say(mem, "d", "p2", "I'm so tired today", "2026-01-01T09:00:00+00:00")
    _say(mem, "d", "p3", "I work as a nurse at Seoul Hospital", "2026-01-01T09:00:00+00:00")
    classes = {m.text: m.decay_class for m in mem.recall("d", "알레르기 tired nurse", limit=10).memories}
    assert classes["나 땅콩 알레르기 있어, 꼭 기억해 줘"] == "pinned"
    assert classes["I'm so tired today"] == "transient"
    assert classes["I work as a nurse at Seoul Hospital"] == "stable"
    mem.retain("d", messages=[{"id": "p4", "text": "오늘 점심은 김밥", "timestamp": "2026-01-01T12:00:00+09:00"}],
               decay_class="pinned")
    assert _find(mem, "d", "점심", "김밥").decay_class == "pinned"  # type: ignore[union-attr]
    with pytest.raises(InputError, match="decay_class"):
        mem.retain("d", messages=[{"text": "x"}], decay_class="forever")


def test_the_decay_pass_archives_faded_transient_facts_but_never_pinned_ones(mem: Memory) -> None:
    _say(mem, "fade", "f1", "I'm hungry right now", "2026-01-01T09:00:00+00:00")
    _say(mem, "fade", "f2", "My birthday is on March 3rd, remember this", "2026-01-01T09:00:00+00:00")
    _say(mem, "fade", "f3", "오늘 너무 피곤해", "2026-01-01T09:00:00+09:00")
    mem.settings.values["refresh_on_recall"] = False  # type: ignore[index]
    reports = mem.maintain("fade", now="2027-06-01T00:00:00+00:00")
    decay = next(r for r in reports if r.kind == "decay")
    assert decay.status == "done" and decay.result["archived"] == 2
    recalled = mem.recall("fade", "hungry birthday 피곤", limit=10, now="2027-06-01").memories
    assert [m.text for m in recalled if m.type == "fact"] == ["My birthday is on March 3rd, remember this"]
    # the observations were rebuilt without what faded
    assert mem.observations("fade") and not any("hungry" in o.text or "피곤" in o.text
                                                for o in mem.observations("fade"))
    # history still holds the archived fact, and as_of before the archive sees it
    old = _find(mem, "fade", "hungry", "hungry", as_of="2026-06-01", now="2026-06-01")
    assert old is not None


def test_recalling_a_memory_refreshes_its_strength(mem: Memory) -> None:
    _say(mem, "used", "u1", "I'm meeting Jisoo for lunch on Friday", "2026-01-01T09:00:00+00:00")
    _say(mem, "used", "u2", "I'm going to the gym tonight", "2026-01-01T09:00:00+00:00")
    for _ in range(3):
        mem.recall("used", "lunch with Jisoo", limit=1, now="2026-03-01T00:00:00+00:00")
    mem.maintain("used", now="2026-03-02T00:00:00+00:00")
    mem.settings.values["refresh_on_recall"] = False  # type: ignore[index]  (look without touching)
    recalled = mem.recall("used", "Jisoo lunch gym tonight", limit=10, now="2026-03-02").memories
    strengths = {m.text: m.strength for m in recalled}
    assert strengths.get("I'm going to the gym tonight", 0.0) < strengths["I'm meeting Jisoo for lunch on Friday"]


def test_ttl_hides_at_once_and_the_purge_erases(mem: Memory) -> None:
    mem.retain("ttl", messages=[{"id": "t1", "text": "임시 출입 코드는 파란고래야",
                                 "timestamp": "2026-01-01T09:00:00+09:00"}],
               expires_at="2026-01-02T00:00:00+09:00")
    mem.retain("ttl", messages=[{"id": "t2", "text": "The wifi guest network is OrangeOtter",
                                 "timestamp": "2026-01-01T09:00:00+00:00"}], ttl=3600)
    assert _find(mem, "ttl", "출입 코드", "파란고래", now="2026-01-01T12:00:00+09:00") is not None
    assert _find(mem, "ttl", "출입 코드", "파란고래", now="2026-01-03T00:00:00+09:00") is None
    mem.maintain("ttl", now="2099-01-01T00:00:00+00:00")
    assert mem.verify_erased(["파란고래", "OrangeOtter"]).clean
    with pytest.raises(InputError, match="ttl"):
        mem.retain("ttl", messages=[{"text": "x y z"}], ttl=-5)


def test_history_of_an_unknown_memory_is_a_clear_error(mem: Memory) -> None:
    _say(mem, "h", "h1", "I live in Busan", "2026-01-01T09:00:00+00:00")
    with pytest.raises(MemoryNotFoundError):
        mem.history("h", "f-999")
    one = mem.recall("h", "where do I live").memories[0]
    assert [v.id for v in mem.history("h", one.id)] == [one.id]


def test_a_failing_job_is_retried_then_marked_failed_with_its_error(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from gieok.engine.jobs import queue as jobs

    _say(mem, "j", "j1", "hello there friend", "2026-01-01T09:00:00+00:00")
    calls = []

    def boom(ctx):  # noqa: ANN001, ANN202
        calls.append(ctx.payload)
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(jobs.HANDLERS, "boom", boom)
    bank_id = mem.store.banks.get("j").id  # type: ignore[union-attr]
    with mem.store.write():
        mem.store.jobs.enqueue(bank_id, "boom", {"fact_ids": [1]})
    for t in ("2099-01-01T00:00:00+00:00", "2099-01-02T00:00:00+00:00", "2099-01-03T00:00:00+00:00"):
        mem.run_jobs(now=t)
    job = next(j for j in mem.jobs("j") if j.kind == "boom")
    assert job.status == "failed" and job.attempts == 3 and "disk on fire" in job.last_error
    assert len(calls) == 3


def test_a_recall_never_waits_for_a_writer_and_its_marks_land_later(mem: Memory) -> None:
    import threading
    import time

    _say(mem, "w", "w1", "I keep my passport in the blue drawer", "2026-01-01T09:00:00+00:00")
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with mem.store.write():
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    holding.wait(5)
    started = time.monotonic()
    hit = mem.recall("w", "where is my passport", limit=1).memories[0]
    assert time.monotonic() - started < 2.0, "recall waited for the writer"
    release.set()
    thread.join()
    fact_id = int(hit.id[2:])
    assert mem.store.versions.state_of([fact_id])[fact_id]["recall_count"] == 0  # not yet written...
    mem.run_jobs()
    assert mem.store.versions.state_of([fact_id])[fact_id]["recall_count"] == 1  # ...flushed by the next pass


@pytest.mark.parametrize("query, old_word", [("마감 원래 언제였어?", "금요일이야"),
                                             ("When was the deadline originally?", "Friday")])
def test_a_question_about_the_earlier_version_recalls_it(mem: Memory, query: str, old_word: str) -> None:
    _say(mem, "hist", "h1", "마감은 금요일이야", "2026-03-02T10:00:00+09:00")
    _say(mem, "hist", "h2", "아니, 금요일 말고 월요일이 마감이야", "2026-03-02T10:05:00+09:00")
    _say(mem, "hist", "h3", "The deadline is Friday", "2026-03-02T10:00:00+00:00")
    _say(mem, "hist", "h4", "Actually the deadline moved to Monday", "2026-03-02T10:05:00+00:00")
    memories = mem.recall("hist", query, limit=10).memories
    old = next(m for m in memories if old_word in m.text)
    assert old.superseded_by is not None, "the earlier version comes back, marked as replaced"
    explained = next(m for m in mem.recall("hist", query, limit=10, explain=True).memories if m.id == old.id)
    assert explained.explanation is not None and "replaces" not in explained.explanation["multipliers"]
    assert explained.explanation["features"]["asks_history"] == 1.0
    plain = mem.recall("hist", "마감 언제야? when is the deadline", limit=10).memories
    _replaced_rank_below_their_replacements(plain)
