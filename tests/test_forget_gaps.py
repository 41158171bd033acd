"""Erasure without gaps (issue #32, item 4), on both stores, in Korean and English: a retain still
queued (or running) when ``forget`` arrives never writes what was forgotten; ``forget(entity=)``
takes every fact naming the entity by any of its names, and its proof looks for each of them; a
corrected message's old value survives in no supersede reason."""

from __future__ import annotations

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

import gieok.engine.forget.run as forget_module
from gieok import Memory
from gieok.engine.forget.entity_facts import EntityNames
from gieok.engine.jobs import queue as jobs

QUEUED = [pytest.param({"id": "q1", "speaker": "user", "text": "내 사물함 비밀번호는 잔지바르쿡스 4417이야"},
                       "잔지바르쿡스", id="korean"),
          pytest.param({"id": "q1", "speaker": "user", "text": "My locker code is Zanzibarquux 4417"},
                       "Zanzibarquux", id="english")]


def _facts(mem: Memory, bank: str) -> list[str]:
    ctx = mem.engine.bank(bank)
    return [f.text for f in ctx.store.facts.get(ctx.bank.id, list(ctx.store.facts.ids(ctx.bank.id)))]


@pytest.mark.parametrize(("message", "marker"), QUEUED)
@pytest.mark.parametrize("by", ["source", "message"])
def test_forget_cancels_a_queued_retain(store_mem: Memory, message: dict[str, str], marker: str, by: str) -> None:
    store_mem.retain("b", messages=[{"id": "k1", "speaker": "user", "text": "I keep my bike in the garage"}],
                     document_id="keep")
    op = store_mem.submit_retain("b", messages=[message], document_id="chat")
    result = store_mem.forget("b", source_id="chat" if by == "source" else "q1", verify=True)
    assert result.erased["jobs"] == 1
    assert store_mem.operation(op.id).status == "cancelled"
    store_mem.run_jobs()
    assert not any(marker.casefold() in t.casefold() for t in _facts(store_mem, "b"))
    assert store_mem.verify_erased([marker]).clean
    assert result.proof is not None and result.proof.clean


@pytest.mark.parametrize(("message", "marker"), QUEUED)
def test_forget_rolls_back_a_retain_already_running(store_mem: Memory, message: dict[str, str], marker: str) -> None:
    op = store_mem.submit_retain("b", messages=[message], document_id="chat")
    claimed = jobs.claim_next(store_mem.engine, job_id=int(op.id.removeprefix("op-")))
    assert claimed is not None  # a worker holds it, and is planning the write
    store_mem.forget("b", source_id="chat")
    report = jobs.run_claimed(store_mem.engine, *claimed)
    assert report["status"] == "lost"  # its claim was gone when it committed: nothing written
    assert _facts(store_mem, "b") == []
    assert store_mem.verify_erased([marker]).clean


def test_forget_of_nothing_queued_still_says_not_found(store_mem: Memory) -> None:
    from gieok.errors import SourceNotFoundError

    store_mem.submit_retain("b", messages=[{"id": "x", "speaker": "user", "text": "hello there"}], document_id="other")
    with pytest.raises(SourceNotFoundError):
        store_mem.forget("b", source_id="chat")


ENTITY = [
    pytest.param("Caroline Pennyworthia-Smythe",
                 ["Caroline Pennyworthia-Smythe is my landlord.", "Pennyworthia-Smythe raised the rent again.",
                  "Caroline said the boiler is fixed."],
                 ["Pennyworthia", "Smythe"], id="english"),
    pytest.param("김민지", ["김민지 팀장은 회의에 늦었어.", "#민지 생일 파티 준비 중이야.",
                          "김 팀장님이 회의를 미뤘어."],
                 ["김민지", "민지"], id="korean"),
]
OTHERS = ["Caroline Brightwater plays the cello.", "박서준은 테니스를 배워."]


@pytest.mark.parametrize(("entity", "texts", "markers"), ENTITY)
def test_forget_entity_takes_every_fact_naming_it(store_mem: Memory, entity: str, texts: list[str],
                                                  markers: list[str]) -> None:
    messages = [{"id": f"m{i}", "speaker": "user", "text": t} for i, t in enumerate([*texts, *OTHERS])]
    store_mem.retain("b", messages=messages, document_id="chat")
    result = store_mem.forget("b", entity=entity, verify=True)
    left = _facts(store_mem, "b")
    assert not [t for t in left if any(m in t for m in markers)], left
    assert "Caroline Brightwater plays the cello." in left  # a namesake's fact stays
    assert result.proof is not None and result.proof.clean, result.proof.found


@pytest.mark.parametrize(("entity", "texts", "markers"), ENTITY)
def test_entity_proof_reports_a_leftover_named_by_another_form(store_mem: Memory, monkeypatch: pytest.MonkeyPatch,
                                                               entity: str, texts: list[str],
                                                               markers: list[str]) -> None:
    """An erasure that misses a fact naming the entity by a short form is reported, never clean."""
    messages = [{"id": f"m{i}", "speaker": "user", "text": t} for i, t in enumerate(texts)]
    store_mem.retain("b", messages=messages, document_id="chat")

    def mentions_only(store: object, bank: object, named: EntityNames) -> list[int]:  # the graph's links alone
        return [i for i in store.erasure.fact_ids(bank.id, entity_ids=named.entity_ids)  # type: ignore[attr-defined]
                if texts[1][:4] not in store.facts.get(bank.id, [i])[0].text]  # type: ignore[attr-defined]

    monkeypatch.setattr(forget_module, "facts_naming", mentions_only)
    result = store_mem.forget("b", entity=entity, verify=True)
    assert result.proof is not None and not result.proof.clean
    assert {f["form"] for f in result.proof.found} == {"name"}


CORRECTED = [
    pytest.param(["I live in Springfield.", "I moved to Quixoteville last week.", "I moved to Harborton last week."],
                 "Quixoteville", id="english"),
    pytest.param(["I live in Springfield.", "I moved to 퀵소트빌 last week.", "I moved to 하버턴 last week."],
                 "퀵소트빌", id="korean"),
]


@pytest.mark.parametrize(("texts", "old"), CORRECTED)
def test_corrected_message_leaves_no_old_value_in_supersede_reason(store_mem: Memory, texts: list[str],
                                                                   old: str) -> None:
    for i, (mid, text) in enumerate(zip(["m1", "m2", "m2"], texts)):
        store_mem.retain("b", messages=[{"id": mid, "speaker": "user", "text": text,
                                         "timestamp": f"2026-0{i + 1}-01T10:00:00+00:00"}], document_id="chat")
    assert store_mem.verify_erased([old]).clean
    ctx = store_mem.engine.bank("b")
    assert [r for _i, r in ctx.store.versions.reasons(ctx.bank.id)]  # the new value closed the old one again


@pytest.mark.parametrize(("entity", "erased", "kept"), [
    pytest.param("김민지", "김민지 팀장은 회의에 늦었어.", "이민지는 테니스를 배워.", id="korean"),
    pytest.param("Rose Hawthorne", "Rose Hawthorne signed the lease.", "I planted a rose by the hawthorne hedge.",
                 id="english"),
])
def test_forget_entity_spares_namesakes_and_common_words(store_mem: Memory, entity: str, erased: str,
                                                         kept: str) -> None:
    """A part of the name another entity answers to (민지 of 이민지), or a lower-case word, names nobody."""
    store_mem.retain("b", messages=[{"id": "m1", "speaker": "user", "text": erased},
                                    {"id": "m2", "speaker": "user", "text": kept}], document_id="chat")
    store_mem.forget("b", entity=entity)
    assert _facts(store_mem, "b") == [kept]
