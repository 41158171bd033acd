"""The learned profile-slot model (gieok.extract.slot_model) on everyday phrasings, Korean and English:
the statements a new user's support chat held, bare answers to a question, relatives, denials — and
the questions, plans, policies and other people's facts that must state nothing about the speaker."""

from __future__ import annotations

from typing import Any

import pytest

from gieok.errors import LLMError
from gieok.extract.slot_model import HOLDERS, RELATIONS, SLOTS, SlotValue, candidates, relation_of, slot_model, tokens
from gieok.providers import create
from gieok.providers.decisions import LLMDecisions


def _read(text: str, context: str = "") -> list[SlotValue]:
    model = slot_model()
    assert model is not None, "gieok/data/slots.npz ships with the package"
    return [v for v in model.extract(text, context) if v.holder != "other"]


def _has(found: list[SlotValue], slot: str, value: str, holder: str = "self", negated: bool = False) -> bool:
    return any(v.slot == slot and v.value == value and v.holder == holder and v.negated == negated for v in found)


STATED = [
    # (text, context, slot, value, holder, negated) — the phrasings a new user's chat held, and their like
    ("5월 17일이 제 생일이에요", "", "birthday", "5월 17일", "self", False),
    ("땅콩 알레르기가 있어서요", "", "allergy", "땅콩", "self", False),
    ("안녕하세요 저 박지민이에요", "", "name", "박지민", "self", False),
    ("hi, this is Daniel Lee, I emailed last week about my order", "", "name", "Daniel Lee", "self", False),
    ("저는 간호사예요", "", "job", "간호사", "self", False),
    ("I'm allergic to peanuts", "", "allergy", "peanuts", "self", False),
    ("I'm vegan", "", "diet", "vegan", "self", False),
    ("12월 3일이요", "생일이 언제세요?", "birthday", "12월 3일", "self", False),
    ("정은비요", "성함이 어떻게 되세요?", "name", "정은비", "self", False),
    ("엄마 생일이 10월 2일이야", "", "birthday", "10월 2일", "mother", False),
    ("My sister is a dentist in Ohio", "", "job", "dentist", "sister", False),
    ("카카오에서 일해요", "", "employer", "카카오", "self", False),
    ("I moved to Denver last year", "", "city", "Denver", "self", False),
]


@pytest.mark.parametrize(("text", "context", "slot", "value", "holder", "negated"), STATED)
def test_everyday_statements(text: str, context: str, slot: str, value: str, holder: str, negated: bool) -> None:
    found = _read(text, context)
    assert _has(found, slot, value, holder, negated), found


def test_a_relative_is_a_family_member_of_the_speaker() -> None:
    for text, value, relation in (("남동생이 다음 달에 결혼해요", "남동생", "brother"),
                                  ("우리 언니 이름은 지수야", "지수", "sister"),
                                  ("my sister Jisoo lives in Ohio", "Jisoo", "sister")):
        family = [v for v in _read(text) if v.slot == "family"]
        assert family and family[0].holder == "self" and family[0].value == value, (text, family)
        assert family[0].relation == relation


NOTHING = [
    "생일 언제야?",
    "When's your birthday?",
    "간호사 되고 싶어",
    "If I ever moved to Busan I'd get a dog",
    "생일 쿠폰은 생일 7일 전에 발급됩니다.",
    "알레르기 있는 사람 있어?",
    "고객님, 무엇을 도와드릴까요?",
    "Thanks so much, have a great day!",
]


@pytest.mark.parametrize("text", NOTHING)
def test_questions_plans_and_policies_state_nothing_about_the_speaker(text: str) -> None:
    assert _read(text) == []


def test_someone_elses_facts_are_not_the_speakers() -> None:
    for text in ("친구 민수는 간호사야", "My coworker Jake is vegan"):
        assert not any(v.holder == "self" and v.slot in ("job", "diet") for v in _read(text)), text


def test_values_are_the_messages_own_words_at_their_offsets() -> None:
    text = "안녕하세요. 주문 건 문의드려요. 참고로 저는 땅콩 알레르기가 있어요."
    for value in _read(text):
        assert text[value.start:value.end] == value.value
        assert value.slot in SLOTS and 0.0 < value.probability <= 1.0


def test_candidates_are_content_word_runs_and_kinship_words_are_exact() -> None:
    toks = tokens("my niece's birthday is May 5th")
    spans = {" ".join(t.form for t in toks[i:j]) for i, j in candidates(toks)}
    assert "May 5th" in spans and "niece" in spans and "my" not in spans and "'s" not in spans
    toks = tokens("우리 언니는 간호사야")
    at = next(k for k, t in enumerate(toks) if t.form == "간호사")
    assert relation_of(toks, at, at + 1) == "sister"
    assert RELATIONS["언니"] == "sister" and HOLDERS == ("self", "relative", "other")


def test_the_learned_decision_model_reads_profiles_and_leaves_other_people_out() -> None:
    learned = create("decision", "learned")
    found = learned.read_profile("제 남편은 치과의사고 저는 간호사예요")
    assert any(v.slot == "job" and v.holder == "self" and v.value == "간호사" for v in found), found
    assert all(v.holder != "other" for v in found)


class _FakeLLM:
    model = "fake"

    def __init__(self, facts: list[dict[str, Any]]) -> None:
        self.facts = facts
        self.prompts: list[str] = []

    def complete(self, prompt: str, **kwargs: Any) -> Any:
        self.prompts.append(prompt)
        return type("Response", (), {"data": {"facts": self.facts}})()


def test_an_llm_decision_model_reads_profiles_keeping_only_the_messages_own_words() -> None:
    llm = _FakeLLM([{"slot": "birthday", "holder": "self", "value": "5월 17일", "negated": False},
                    {"slot": "family", "holder": "sister", "value": "Jisoo", "negated": False},
                    {"slot": "job", "holder": "self", "value": "nurse", "negated": False},  # not its words
                    {"slot": "city", "holder": "other", "value": "Ohio", "negated": False}])
    found = LLMDecisions(llm).read_profile("5월 17일이 제 생일이고 my sister Jisoo lives in Ohio", "")
    assert [(v.slot, v.holder, v.value, v.relation) for v in found] == [
        ("birthday", "self", "5월 17일", None), ("family", "self", "Jisoo", "sister")]
    assert "5월 17일이 제 생일" in llm.prompts[0]


def test_an_llm_that_answers_without_a_list_of_facts_is_an_llm_error() -> None:
    for text in ("저 땅콩 알레르기 있어요", "I'm allergic to peanuts"):
        llm = _FakeLLM([])
        llm.facts = "none"  # type: ignore[assignment]
        with pytest.raises(LLMError, match="without a list of facts"):
            LLMDecisions(llm).read_profile(text)
