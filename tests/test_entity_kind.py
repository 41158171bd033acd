"""The learned entity-kind head (gieok.entities._kind_model) and its route through the decision model."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from conftest import registered

from gieok import Memory
from gieok.entities import extract_mentions, kind_model, span_at
from gieok.providers import registry
from gieok.providers.decisions import Decision, DecisionModel, Task


def judged(text: str, span: str) -> str:
    return kind_model().judge(text, *span_at(text, span)).kind


def kinds(text: str) -> dict[str, str]:
    return {m.name: m.kind for m in extract_mentions(text)}


def test_korean_places_are_places_not_people() -> None:
    assert kinds("성남시 정자동으로 이사했어요") == {"성남시": "place", "정자동": "place"}
    assert kinds("배송지를 마포구로 바꿔주세요")["마포구"] == "place"
    assert kinds("제주도에 놀러 갔어") == {"제주도": "place"}
    # the report: 배송지 was listed as a person; the head is not sure what it is, and says so
    assert kinds("배송지를 마포구로 바꿔주세요")["배송지"] != "person"


def test_forms_of_address_are_no_entities() -> None:
    assert judged("고객님 배송지 확인 부탁드립니다", "고객님") == "none"
    assert judged("Hi there, thanks for reaching out to support today.", "support") == "none"


@pytest.mark.parametrize(("text", "name"), [
    ("박지민 고객님 안녕하세요", "박지민"),
    ("민지 씨가 내일 온대", "민지"),
    ("I talked to Dr. Kim on Friday.", "Kim"),
])
def test_people_are_people(text: str, name: str) -> None:
    assert kinds(text)[name] == "person"


def test_organisations_and_things() -> None:
    assert kinds("삼성전자 다니는 친구가 있어") == {"삼성전자": "org"}
    assert kinds("She got an offer from Google.") == {"Google": "org"}
    assert judged("ChatGPT 써봤어?", "ChatGPT") == "thing"


def test_the_speaker_and_known_names_keep_what_is_exact() -> None:
    found = extract_mentions("I painted a sunset with Mel.", speaker="Mel")
    assert [(m.name, m.kind) for m in found] == [("Mel", "person")]
    # a known name is never dropped as a non-name: resolution keeps its entity's kind
    found = extract_mentions("고객님 배송지 확인 부탁드립니다", known=["고객님"])
    assert [m.name for m in found] == ["고객님", "배송지"]


def test_the_decision_task_goes_through_the_provider_registry() -> None:
    model = registry.create("decision", "learned")
    decision = model.decide("entity_kind", text="성남시 정자동으로 이사했어요", mention="정자동", start="4")
    assert (decision.task, decision.answer, decision.provider) == ("entity_kind", "place", "learned")
    assert 0.5 < decision.probability <= 1.0
    english = model.decide("entity_kind", text="She got an offer from Google.", mention="Google", start="22")
    assert english.answer == "org"


def test_extraction_asks_the_judge_it_is_given() -> None:
    asked: list[str] = []

    def judge(text: str, start: int, end: int) -> tuple[str, float]:
        asked.append(text[start:end])
        return ("none", 0.9) if text[start:end] == "Google" else ("place", 0.9)

    found = extract_mentions("We flew from Google to Jeju, 제주도 좋더라.", kind_of=judge)
    assert [(m.name, m.kind) for m in found] == [("Jeju", "place"), ("제주도", "place")]
    assert "Google" in asked


class Gazetteer(DecisionModel):
    """A plugin that calls every name a place except those it was told name nothing; records its questions."""

    name = "gazetteer"
    tasks = frozenset({"entity_kind"})

    def __init__(self, nothing: frozenset[str]) -> None:
        self.nothing = nothing
        self.asked: list[str] = []

    def _decide(self, task: Task, inputs: Mapping[str, str]) -> Decision:
        if task.name != "entity_kind":
            return Decision(task.name, "no", 0.99, self.name)
        self.asked.append(inputs["mention"])
        answer = "none" if inputs["mention"] in self.nothing else "place"
        return Decision(task.name, answer, 0.95, self.name)


@pytest.fixture
def gazetteer() -> Iterator[Gazetteer]:
    with registered(Gazetteer(frozenset({"Jordan", "민지"}))) as model:
        yield model


def test_retain_takes_kinds_from_the_banks_decision_model(mem: Memory, gazetteer: Gazetteer) -> None:
    mem.configure_decisions("atlas", "gazetteer")
    mem.retain("atlas", text="Yesterday I met Jordan and Caroline at the museum. 민지랑 정자동에서 밥 먹었어.",
               document_id="note")
    known = {e.name: e.kind for e in mem.entities("atlas")}
    assert known == {"Caroline": "place", "정자동": "place"}  # Jordan and 민지 judged none: no entity
    assert {"Jordan", "Caroline", "민지", "정자동"} <= set(gazetteer.asked)


def test_offline_retain_lists_places_as_places(mem: Memory) -> None:
    korean = "성남시 정자동으로 이사했어요. 고객님 배송지를 마포구로 바꿔드렸습니다."
    mem.retain("shop", text=korean, document_id="chat")
    mem.retain("shop", text="She got an offer from Google. I talked to Dr. Kim on Friday.", document_id="chat-en")
    kinds = {e.name: e.kind for e in mem.entities("shop")}
    assert kinds["성남시"] == kinds["정자동"] == kinds["마포구"] == "place"
    assert kinds["Google"] == "org" and kinds["Kim"] == "person"
    assert "고객님" not in kinds and "고객" not in kinds and kinds.get("배송지") != "person"
