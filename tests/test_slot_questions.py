"""The question side of the profile slots (gieok.extract.slot_question_model, read through
gieok.extract.slot_question.slot_question): which slot a question asks about, whose, whether before
now; the ``slot_question`` decision task; recall reading questions itself. Korean and English."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from conftest import registered

from gieok import Memory
from gieok.extract.slot_model import SLOTS
from gieok.extract.slot_question import slot_question
from gieok.extract.slot_question_model import candidates, relations, slot_question_model
from gieok.providers import create
from gieok.providers.decisions import TASKS, Decision, DecisionModel, LLMDecisions, Task
from gieok.providers.llms import ScriptedLLM


@pytest.mark.parametrize(("question", "slot", "relation", "person", "previous"), [
    ("내 생일 언제야?", "birthday", None, None, False),
    ("언니 이름이 뭐였지?", "name", "sister", None, False),
    ("지민 씨는 요즘 어디 살아?", "city", None, "지민", False),
    ("where did I work before Google?", "employer", None, None, True),
    ("What's my sister's name?", "name", "sister", None, False),
    ("Where does Priya live now?", "city", None, "Priya", False),
])
def test_a_question_is_read_for_its_slot_whose_and_time(question: str, slot: str, relation: str | None,
                                                        person: str | None, previous: bool) -> None:
    asked = slot_question(question)
    assert asked is not None, question
    assert (asked.slot, asked.relation, asked.person, asked.previous) == (slot, relation, person, previous)
    assert slot_question_model().bar <= asked.probability <= 1.0


@pytest.mark.parametrize("question", ["생일 쿠폰 언제 나와요?", "회사 회식 언제야?",
                                      "what allergy meds did the doctor give me?", "When's my performance review?"])
def test_a_question_that_only_uses_a_slots_word_asks_for_none(question: str) -> None:
    assert slot_question(question) is None


def test_kinship_words_are_read_whole_and_the_askers_own_first() -> None:
    assert relations("남동생 회사 어디야") == [(0, "brother")]  # not 동생, a sibling
    assert relations("형광펜 어디 있어") == []  # 형 is not read inside a word
    assert [key for _, key in relations("How many siblings does my dad have?")] == ["father", "sibling"]
    assert [key for _, key in relations("우리 엄마 언니 이름")] == ["mother", "sister"]


def test_name_candidates_are_spans_without_particles_or_kinship_words() -> None:
    assert "하은" in [c.text for c in candidates("하은이 생일 언제야?")]  # Kiwi reads 하 + 은
    assert "박소연" in [c.text for c in candidates("박소연 씨 직장이 어디였죠?")]  # 박 + 소연, one name
    assert "Mr. Okafor" in [c.text for c in candidates("Where does Mr. Okafor live?")]
    assert all(c.text != "sister" for c in candidates("What is my Sister's job?"))


def test_the_slot_question_task_is_answered_by_the_learned_provider() -> None:
    assert TASKS["slot_question"].options == (*SLOTS, "none")
    learned = create("decision", "learned")
    birthday = learned.decide("slot_question", question="내 생일 언제야?")
    assert (birthday.answer, birthday.provider) == ("birthday", "learned") and birthday.probability > 0.6
    employer = learned.decide("slot_question", question="where did I work before Google?")
    assert employer.answer == "employer" and "before now" in employer.reason
    for question in ("생일 쿠폰 언제 나와요?", "what allergy meds did the doctor give me?"):
        assert learned.decide("slot_question", question=question).answer == "none", question


def test_another_decision_model_chooses_the_slot_and_the_head_reads_whose() -> None:
    llm = ScriptedLLM([{"answer": "city", "probability": 0.9}, {"answer": "none", "probability": 0.8}])
    asked = slot_question("우리 언니 요즘 어디 살아?", LLMDecisions(llm))
    assert asked is not None and (asked.slot, asked.relation, asked.probability) == ("city", "sister", 0.9)
    assert llm.requests[0].json_schema["properties"]["answer"]["enum"][-1] == "none"  # type: ignore[index]
    assert slot_question("What's my sister's name?", LLMDecisions(llm)) is None


class Recorder(DecisionModel):
    """The learned answers, with the slot questions it was asked recorded."""

    name = "recorder"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def _decide(self, task: Task, inputs: Mapping[str, str]) -> Decision:
        if task.name == "slot_question":
            self.asked.append(inputs["question"])
        return create("decision", "learned").decide(task.name, **inputs)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    with registered(Recorder()) as model:
        yield model


@pytest.mark.parametrize(("statement", "question"), [
    ("제 생일은 6월 23일이에요.", "내 생일 언제야?"),
    ("I work at Kakao as a designer.", "Where do I work?"),
])
def test_recall_reads_the_question_with_the_learned_head_never_the_banks_model(mem: Memory, recorder: Recorder,
                                                                              statement: str, question: str) -> None:
    """Recall never calls an LLM: a bank whose decision model is another (an LLM) still has its
    questions read by the learned head."""
    mem.retain("b", messages=[{"id": "m1", "speaker": "서연", "text": statement},
                              {"id": "m2", "speaker": "서연", "text": "오늘 날씨 좋다. Nice weather today."}],
               document_id="chat")
    mem.configure_decisions("b", "recorder")
    top = mem.recall("b", question, limit=2, explain=True).memories
    assert recorder.asked == []
    assert top[0].source_ids == ["m1"] and "profile" in top[0].channels
