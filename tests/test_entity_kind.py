"""The learned entity-kind head (gieok.entities._kind_model) and its route through the decision model."""

from __future__ import annotations

import pytest

from gieok.entities import extract_mentions, kind_model, span_at
from gieok.providers import registry


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
