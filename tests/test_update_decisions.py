"""The decision task ``updates`` (gieok.providers.decisions): does a later statement update an earlier one?
Offline the supersede rules (gieok.lifecycle.detect_update) answer it; supersede asks the bank's decision
model for every candidate pair, so a bank on an LLM decision model gets the LLM's verdicts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gieok import InputError, Memory
from gieok.providers import create
from gieok.providers.decisions import TASKS
from gieok.providers.llms import ChatRequest, ScriptedLLM

MOVES = [
    ("나 부산에 살아.", "나 지난달에 서울로 이사했어."),
    ("I live in Boston.", "I moved to Denver last month."),
]
NOT_UPDATES = [
    # another holder: a relative's birthday beside one's own
    ("내 생일은 5월 3일이야.", "엄마 생일은 9월 1일이야."),
    ("My birthday is May 3.", "My mom's birthday is September 1."),
    # a plan, a question, a denial
    ("나 판교에서 일해.", "내년쯤 이직할까 생각 중이야."),
    ("I work at Google.", "I'm thinking about applying to Meta next year."),
    ("나 부산에 살아.", "서울로 이사 가야 할까?"),
    ("I live in Boston.", "Should I move to Denver?"),
    ("나 부산에 살아.", "서울로 이사 간 거 아니야, 아직 부산 살아."),
    ("I live in Boston.", "No, I didn't move to Denver. I still live in Boston."),
]


def _ask(earlier: str, later: str) -> bool:
    decision = create("decision", "learned").decide("updates", earlier=earlier, later=later, earlier_speaker="user",
                                                    later_speaker="user")
    assert decision.provider == "learned" and 0.5 <= decision.probability <= 1.0 and decision.reason
    return decision.yes


def test_updates_is_a_task_with_both_statements_and_their_speakers() -> None:
    assert TASKS["updates"].inputs == ("earlier", "later", "earlier_speaker", "later_speaker")
    assert TASKS["updates"].options == ("yes", "no")
    with pytest.raises(InputError, match="needs later_speaker"):
        create("decision", "learned").decide("updates", earlier="a", later="b", earlier_speaker="user")


@pytest.mark.parametrize(("earlier", "later"), MOVES)
def test_a_move_updates_the_city(earlier: str, later: str) -> None:
    assert _ask(earlier, later)


@pytest.mark.parametrize(("earlier", "later"), NOT_UPDATES)
def test_another_holder_a_plan_a_question_or_a_denial_does_not_update(earlier: str, later: str) -> None:
    assert not _ask(earlier, later)


def _say(mem: Memory, bank: str, mid: str, text: str, ts: str) -> None:
    mem.retain(bank, messages=[{"id": mid, "speaker": "user", "text": text, "timestamp": ts}], document_id=f"s-{mid}")


def _closed(mem: Memory, bank: str) -> list[str]:
    row = mem.store.banks.get(bank)
    assert row is not None
    facts = mem.store.facts.get(row.id, list(mem.store.facts.ids(row.id)))
    return [f.text for f in facts if f.valid_to is not None]


@pytest.mark.parametrize(("earlier", "later"), MOVES)
def test_retain_closes_the_old_city(mem: Memory, earlier: str, later: str) -> None:
    _say(mem, "b", "m1", earlier, "2026-03-01T09:00:00")
    _say(mem, "b", "m2", later, "2026-04-01T09:00:00")
    assert _closed(mem, "b") == [earlier]


@pytest.mark.parametrize(("earlier", "later"), [NOT_UPDATES[0], NOT_UPDATES[1], NOT_UPDATES[2],
                                                  NOT_UPDATES[3]])
def test_retain_keeps_a_relatives_birthday_or_a_plan_beside_ones_own(mem: Memory, earlier: str, later: str) -> None:
    _say(mem, "b", "m1", earlier, "2026-03-01T09:00:00")
    _say(mem, "b", "m2", later, "2026-04-01T09:00:00")
    assert _closed(mem, "b") == []


class UpdateOracle:
    """An LLM that answers ``updates`` as scripted (``verdict``), reads no profile values and answers
    every other decision with no."""

    def __init__(self, verdict: str) -> None:
        self.verdict = verdict
        self.asked: list[str] = []

    def __call__(self, request: ChatRequest) -> dict[str, object]:
        if request.operation == "decide:updates":
            self.asked.append(request.messages[0]["content"])
            return {"answer": self.verdict, "probability": 0.99}
        if request.operation == "decide:profile":
            return {"facts": []}
        return {"answer": "no", "probability": 0.9}


@pytest.fixture
def oracle_llm() -> Iterator[tuple[UpdateOracle, ScriptedLLM]]:
    oracle = UpdateOracle("yes")
    yield oracle, ScriptedLLM([oracle] * 200)


@pytest.mark.parametrize(("earlier", "later"), [
    ("내 생일은 5월 3일이야.", "엄마 생일은 9월 1일이야."),
    ("My birthday is May 3.", "My mom's birthday is September 1."),
])
def test_a_bank_on_the_llm_decision_model_gets_the_llms_verdict(db_path: str, fake_embedder: object,
                                                                oracle_llm: tuple[UpdateOracle, ScriptedLLM],
                                                                earlier: str, later: str) -> None:
    oracle, llm = oracle_llm
    with Memory(db_path, embedder="fake", llm=llm, decision_model="llm", llm_extraction=False) as mem:
        _say(mem, "b", "m1", earlier, "2026-03-01T09:00:00")
        _say(mem, "b", "m2", later, "2026-04-01T09:00:00")
        # the learned head says no here (above); the bank's LLM said yes, so its verdict closed the fact
        assert _closed(mem, "b") == [earlier]
        assert any(f"earlier: {earlier}" in asked and f"later: {later}" in asked for asked in oracle.asked)
        assert any(row.operation == "decide:updates" for row in mem.llm_usage("b").rows)
        oracle.verdict = "no"
        _say(mem, "c", "m1", earlier, "2026-03-01T09:00:00")
        _say(mem, "c", "m2", later, "2026-04-01T09:00:00")
        assert _closed(mem, "c") == []
