"""Consolidation into observations, reflect (offline and with an LLM over real HTTP on loopback),
mental models, metering and the spend ceiling. Korean and English."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from conftest import registered

from gieok import Memory
from gieok.errors import SpendLimitError
from gieok.providers.decisions import Decision, DecisionModel, Task
from gieok.providers.llms import OpenAICompatibleLLM, ScriptedLLM

sys.path.insert(0, str(Path(__file__).parent))
from fake_llm import FakeLLMServer  # noqa: E402


def _say(mem: Memory, bank: str, mid: str, speaker: str, text: str, ts: str) -> None:
    mem.retain(bank, messages=[{"id": mid, "speaker": speaker, "text": text, "timestamp": ts}], document_id=f"s-{mid}")


def _minji(mem: Memory) -> None:
    _say(mem, "b", "k1", "user", "김민지 팀장은 매주 토요일에 수영을 해", "2026-03-02T10:00:00+09:00")
    _say(mem, "b", "k2", "user", "김민지 팀장은 판교에 살아", "2026-03-03T10:00:00+09:00")
    _say(mem, "b", "e1", "user", "My friend Caroline adopted a rescue dog named Biscuit", "2026-03-04T10:00:00+00:00")


def _of(mem: Memory, bank: str, name: str) -> list:  # noqa: ANN001 - RecalledMemory
    return [o for o in mem.observations(bank) if o.text.split(":")[0] == name]


def _topics_unique(mem: Memory, bank: str) -> bool:
    row = mem.store.banks.get(bank)
    assert row is not None
    keys = [(o.topic, o.user_id) for o in mem.store.observations.all(row.id)]
    return len(keys) == len(set(keys))


def test_consolidation_creates_then_updates_observations_of_each_topic(mem: Memory) -> None:
    _minji(mem)
    reports = mem.run_jobs()
    assert [r.kind for r in reports] == ["consolidate"] and reports[0].status == "done"
    assert _of(mem, "b", "Caroline")
    minji = _of(mem, "b", "김민지")
    text = " ".join(o.text for o in minji)
    assert "수영" in text and "판교" in text and sorted(f for o in minji for f in o.based_on) == ["f-1", "f-2"]
    _say(mem, "b", "k3", "user", "김민지 팀장은 요즘 테니스도 배워", "2026-03-05T10:00:00+09:00")
    mem.run_jobs()
    again = _of(mem, "b", "김민지")
    assert {o.id for o in minji} <= {o.id for o in again} and _topics_unique(mem, "b"), "updated, not duplicated"
    assert "테니스" in " ".join(o.text for o in again) and len({f for o in again for f in o.based_on}) == 3


class _Always(DecisionModel):
    """A decision model that gives one triage answer to everything (consolidation's mechanics
    under test, not the head)."""

    name = "always"
    tasks = frozenset({"triage"})

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def _decide(self, task: Task, inputs: Mapping[str, str]) -> Decision:
        return Decision(task.name, self.answer, 0.99, self.name)


@pytest.fixture
def adds_all(mem: Memory) -> Iterator[Memory]:
    with registered(_Always("adds")):
        yield mem


def test_observation_history_says_what_each_earlier_text_rested_on(adds_all: Memory) -> None:
    # erasing one of those facts must find the earlier text that quoted it (see test_forget_leaks)
    mem = adds_all
    _minji(mem)
    mem.configure_decisions("b", "always")
    mem.run_jobs()
    first = next(o for o in mem.observations("b") if o.text.startswith("김민지"))
    _say(mem, "b", "k3", "user", "김민지 팀장은 요즘 테니스도 배워", "2026-03-05T10:00:00+09:00")
    mem.run_jobs()
    bank = mem.store.banks.get("b")
    assert bank is not None
    entry = mem.store.observations.get(bank.id, [int(first.id[2:])])[0].history[-1]
    assert entry["previous"] == first.text and entry["based_on"] == sorted(int(i[2:]) for i in first.based_on)


def test_a_trimmed_history_keeps_the_lineage_of_what_it_drops() -> None:
    from gieok.engine.jobs.consolidate import HISTORY, _trimmed

    history = [{"added": [i], "based_on": [100 + i], "previous": str(i)} for i in range(HISTORY + 3)]
    kept = _trimmed(history)
    assert len(kept) == HISTORY and kept[-1] == history[-1]
    assert {0, 1, 2, 100, 101, 102, 103} <= set(kept[0]["based_on"])


def test_an_older_statement_never_overwrites_a_newer_belief(mem: Memory) -> None:
    _say(mem, "v", "n2", "user", "The report deadline moved to Monday", "2026-04-02T09:00:00+00:00")
    mem.run_jobs()
    # said earlier, told late
    _say(mem, "v", "n1", "user", "The report deadline is Friday", "2026-04-01T09:00:00+00:00")
    mem.run_jobs()
    text = " ".join(o.text for o in mem.observations("v"))
    assert "Monday" in text and "Friday" not in text


def test_a_crash_mid_consolidation_resumes_without_loss_or_duplicates(mem: Memory, fake_embedder) -> None:
    _minji(mem)
    original = fake_embedder.embed_batch
    calls = {"n": 0}

    def flaky(texts, kind):  # noqa: ANN001, ANN202
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("power cut")
        return original(texts, kind)

    fake_embedder.embed_batch = flaky  # type: ignore[method-assign]
    mem.run_jobs()
    fake_embedder.embed_batch = original  # type: ignore[method-assign]
    _say(mem, "b", "k9", "user", "김민지 팀장은 커피를 좋아해", "2026-03-06T10:00:00+09:00")
    mem.run_jobs()
    topics = [o.text.split(":")[0] for o in mem.observations("b")]
    assert _topics_unique(mem, "b") and {"김민지", "Caroline"} <= set(topics)
    assert _topics_unique(mem, "b")
    assert len({f for o in _of(mem, "b", "김민지") for f in o.based_on}) == 3


def test_reflect_offline_quotes_memory_or_refuses_in_the_question_language(mem: Memory) -> None:
    _minji(mem)
    ko = mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")
    assert ko.supported and "수영" in ko.answer and ko.language == "ko"
    assert ko.based_on and all(q in b["text"] for b in ko.based_on for q in b["quotes"])
    en = mem.reflect("b", "What is the name of Caroline's dog?")
    assert en.supported and "Biscuit" in en.answer and en.based_on[0]["id"].startswith(("f-", "o-"))
    no = mem.reflect("b", "김민지 팀장의 생일은 언제야?")
    assert not no.supported and "기억에 없" in no.answer and no.source == "none"
    no_en = mem.reflect("b", "What car does Caroline drive?")
    assert not no_en.supported and "not in memory" in no_en.answer
    assert any(step["action"] == "recall facts" for step in no_en.steps), "raw facts searched before refusing"


@pytest.mark.parametrize(("old", "new", "question", "current", "stale"), [
    ("프로젝트 마감은 금요일이야", "아니, 금요일 말고 월요일이 프로젝트 마감이야", "프로젝트 마감 언제야?",
     "월요일", "마감은 금요일이야"),
    ("The project deadline is Friday", "Actually the project deadline moved to Monday",
     "When is the project deadline?", "Monday", "deadline is Friday"),
])
def test_reflect_answers_from_the_current_version_not_the_replaced_one(mem: Memory, old: str, new: str,
                                                                         question: str, current: str,
                                                                         stale: str) -> None:
    mem.retain("v", messages=[{"id": "o", "speaker": "u", "text": old, "timestamp": "2026-03-02T10:00:00+09:00"},
                              {"id": "n", "speaker": "u", "text": new, "timestamp": "2026-03-09T10:00:00+09:00"}])
    assert any(m.superseded_by for m in mem.recall("v", question, limit=10).memories), "the old one is recalled"
    answer = mem.reflect("v", question)
    assert answer.supported and current in answer.answer
    assert not any(stale in b["text"] for b in answer.based_on)


def test_mental_model_is_answered_by_reflect_and_refreshed_after_consolidation(mem: Memory) -> None:
    _minji(mem)
    model = mem.models.add("b", "minji-sport", "김민지 팀장은 무슨 운동을 해?")
    assert model.answer and "수영" in model.answer and model.based_on
    looked_up = mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")
    assert looked_up.source == "mental_model" and looked_up.answer == model.answer
    first = model.refreshed_at
    _say(mem, "b", "k4", "user", "김민지 팀장은 운동으로 수영 말고 테니스도 해", "2026-03-07T10:00:00+09:00")
    kinds = [r.kind for r in mem.run_jobs()]
    assert kinds == ["consolidate", "refresh_models"]
    assert mem.models.get("b", "minji-sport").refreshed_at >= first
    # erasing what the answer cited clears the answer
    cited = mem.models.get("b", "minji-sport").based_on
    mem.forget("b", memory_id=cited[0])
    assert mem.models.get("b", "minji-sport").answer is None


def _llm_memory(db_path: str, llm, fake_embedder) -> Memory:  # noqa: ANN001
    return Memory(db_path, embedder="fake", llm=llm)


def test_reflect_with_an_llm_over_http_drops_a_fabricated_quote(db_path: str, fake_embedder) -> None:
    with FakeLLMServer() as server:
        llm = OpenAICompatibleLLM(server.base_url, "gpt-4o-mini", max_retries=0)
        with _llm_memory(db_path, llm, fake_embedder) as mem:
            mem.configure_llm("b", enabled=False)
            _minji(mem)
            mem.configure_llm("b", enabled=True)
            server.queue_json({"action": "recall", "query": "Caroline dog"})
            fid = next(m.id for m in mem.recall("b", "Caroline dog").memories if "Biscuit" in m.text)
            server.queue_json({"action": "answer", "cited": [fid], "answer":
                               f'Caroline\'s dog is "a rescue dog named Biscuit" [{fid}]. '
                               f'She said "Biscuit hates the vet" [{fid}].'})
            result = mem.reflect("b", "What is Caroline's dog called?")
            assert result.supported and "Biscuit" in result.answer and "hates the vet" not in result.answer
            assert result.dropped_quotes == ["Biscuit hates the vet"]
            assert result.based_on[0]["quotes"] == ["a rescue dog named Biscuit"]
            bodies = [r.body for r in server.requests]
            assert bodies[0]["response_format"]["type"] == "json_schema"
            assert "a rescue dog named Biscuit" in json.dumps(bodies[1]["messages"], ensure_ascii=False)
            usage = mem.llm_usage("b")
            assert usage.rows[0].operation == "reflect" and usage.rows[0].calls == 2
            assert usage.spent_usd > 0


def test_reflect_with_an_llm_refuses_when_only_invented_evidence_remains(db_path: str, fake_embedder) -> None:
    llm = ScriptedLLM([
        {"action": "answer", "answer": "", "cited": []},  # gives up before searching raw facts...
        {"action": "answer", "answer": '그녀는 "매일 아침 요가를 한다" [f-999].', "cited": ["f-999"]},
    ])
    with _llm_memory(db_path, llm, fake_embedder) as mem:
        mem.configure_llm("b", enabled=False)
        _minji(mem)
        mem.configure_llm("b", enabled=True)
        result = mem.reflect("b", "김민지 팀장은 아침에 뭐 해?")
        assert not result.supported and "기억에 없" in result.answer
        assert any(s.get("forced") for s in result.steps), "raw facts were recalled for it before it could refuse"


def test_the_spend_ceiling_stops_background_llm_work(db_path: str, fake_embedder) -> None:
    replies = [{"text": "수영을 한다", "fact_ids": [1]}] * 10
    llm = ScriptedLLM(replies, model="gpt-4o-mini")
    with _llm_memory(db_path, llm, fake_embedder) as mem:
        mem.configure_llm("b", enabled=False)
        _minji(mem)
        mem.configure_llm("b", enabled=True, spend_limit_usd=1e-9)
        reports = mem.run_jobs()
        assert reports[0].status == "failed" and "spend" in reports[0].error.lower()
        assert len(llm.requests) == 1, "one call, then the ceiling stopped the job"
        with pytest.raises(SpendLimitError):
            mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")


def test_retain_extracts_narrative_facts_with_an_llm_and_falls_back_without(db_path: str, fake_embedder) -> None:
    from gieok.providers.llms import LLMUnavailableError

    reply = {"facts": [
        {"text": "민지는 2026년 5월 4일 주에 부산에 갔다", "kind": "world",
         "occurred_start": "2026-05-04T00:00:00+09:00",
         "occurred_end": "2026-05-11T00:00:00+09:00", "entities": ["민지", "부산"], "message_ids": ["m1"]},
        {"text": "민지는 부산 여행 때문에 마감을 미뤘다", "kind": "world", "message_ids": ["m1", "m2"],
         "causes": [{"fact": 0, "relation": "caused_by"}]},
    ]}
    llm = ScriptedLLM([reply, LLMUnavailableError("server down")], model="gpt-4o-mini")
    with _llm_memory(db_path, llm, fake_embedder) as mem:
        mem.retain("x", messages=[
            {"id": "m1", "speaker": "민지", "text": "지난주에 부산 갔어", "timestamp": "2026-05-12T10:00:00+09:00"},
            {"id": "m2", "speaker": "민지", "text": "그래서 마감 미뤘어", "timestamp": "2026-05-12T10:01:00+09:00"},
        ])
        facts = mem.recall("x", "민지 부산 마감", limit=10).memories
        narrative = {m.text: m for m in facts}
        assert set(narrative) == {"민지는 2026년 5월 4일 주에 부산에 갔다", "민지는 부산 여행 때문에 마감을 미뤘다"}
        trip = narrative["민지는 2026년 5월 4일 주에 부산에 갔다"]
        assert trip.occurred_start is not None and trip.occurred_start.date().isoformat() == "2026-05-04"
        cause = narrative["민지는 부산 여행 때문에 마감을 미뤘다"]
        assert cause.source_ids == ["m1", "m2"]
        bank_id = mem.store.banks.get("x").id  # type: ignore[union-attr]
        links = mem.store.graph.links_of([int(cause.id[2:])], ("caused_by",))
        assert [(a, b) for a, b, _t, _w in links] == [(int(cause.id[2:]), int(trip.id[2:]))]
        assert mem.llm_usage("x").rows[0].operation == "extract"
        # the LLM is down: the deterministic extractor keeps retain working
        mem.retain("x", messages=[{"id": "m3", "speaker": "민지", "text": "오늘은 집에서 쉬었어",
                                   "timestamp": "2026-05-13T10:00:00+09:00"}])
        assert any(m.text == "오늘은 집에서 쉬었어" for m in mem.recall("x", "집에서 쉬었어").memories)
        assert bank_id


def test_documents_are_extracted_by_the_llm_per_chunk_and_consolidated_by_it(db_path: str, fake_embedder) -> None:
    doc_reply = {"facts": [
        {"text": "Acme moved its headquarters to Busan in 2025", "kind": "world"},
        {"text": "Acme hired 40 engineers in Busan because of the move", "kind": "world",
         "causes": [{"fact": 0, "relation": "caused_by"}]},
    ]}
    llm = ScriptedLLM([doc_reply,
                       {"text": "Acme is headquartered in Busan and is hiring there", "fact_ids": [1, 2, 99]}],
                      model="gpt-4o-mini")
    with _llm_memory(db_path, llm, fake_embedder) as mem:
        mem.retain("d", text="Acme Corp moved HQ to Busan last year. They hired 40 engineers there.",
                   document_id="acme", timestamp="2026-01-10")
        texts = sorted(m.text for m in mem.recall("d", "Acme Busan", limit=10).memories)
        assert texts == ["Acme hired 40 engineers in Busan because of the move",
                         "Acme moved its headquarters to Busan in 2025"]
        assert mem.store.graph.links_of([2], ("caused_by",))
        mem.run_jobs()
        obs = mem.observations("d")
        assert len(obs) >= 1 and obs[0].text.endswith("Acme is headquartered in Busan and is hiring there")
        assert sorted(obs[0].based_on) == ["f-1", "f-2"], "an id the LLM was not given (99) is dropped"
        operations = {r.operation for r in mem.llm_usage("d").rows}
        assert operations == {"extract", "consolidate"}
        assert len(llm.requests) == 2 and "Acme Corp moved HQ" in llm.requests[0].messages[-1]["content"]
