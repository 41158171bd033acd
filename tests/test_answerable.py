"""Does this memory answer this question? The learned answerability head, the ``answers`` decision task,
and offline reflect asking the bank's decision model (Korean and English)."""

from __future__ import annotations

import pytest
from conftest import ScriptedAnswers

from gieok import Memory
from gieok.answering import answerable_model
from gieok.errors import LLMError
from gieok.providers import create
from gieok.providers.decisions import TASKS, LLMDecisions
from gieok.providers.llms import ScriptedLLM

WARRANTY = "전자제품은 배송일로부터 1년 동안 무상 수리가 가능합니다."
COUPON = "생일 쿠폰은 생일 7일 전에 발급됩니다."
BIRTHDAY = "5월 17일이 제 생일이에요"
WARRANTY_EN = "Electronics can be repaired free of charge for one year from the delivery date."
JOB_EN = "These days I work at Acme Robotics in Austin."


@pytest.fixture(scope="module")
def e5() -> object:
    return create("embedder", "e5-small")


@pytest.mark.parametrize("variant", ["e5-small", "lexical"])
def test_a_policy_line_does_not_answer_a_question_about_the_user(variant: str, e5: object) -> None:
    model = answerable_model()
    embedder = e5 if variant == "e5-small" else None
    for question, memory in (("내 생일 언제야?", WARRANTY), ("내 생일 언제야?", COUPON),
                             ("나 지금 어디서 일해?", WARRANTY), ("where do I work?", WARRANTY_EN)):
        judgment = model.judge(question, memory, "document", embedder)  # type: ignore[arg-type]
        assert not judgment.answers and judgment.variant == variant, (question, memory, judgment)
    said = model.judge("내 생일 언제야?", BIRTHDAY, "user", embedder)  # type: ignore[arg-type]
    policy = model.judge("내 생일 언제야?", COUPON, "document", embedder)  # type: ignore[arg-type]
    assert said.probability > policy.probability + 0.3
    job = model.judge("where do I work?", JOB_EN, "user", embedder)  # type: ignore[arg-type]
    warranty = model.judge("where do I work?", WARRANTY_EN, "document", embedder)  # type: ignore[arg-type]
    assert job.probability > warranty.probability + 0.3


def test_the_users_own_statement_answers_and_its_sentence_is_the_one_quoted(e5: object) -> None:
    model = answerable_model()
    said = model.judge("내 생일 언제야?", BIRTHDAY, "user", e5)  # type: ignore[arg-type]
    assert said.answers and said.sentence == BIRTHDAY and "p=" in said.reason
    greeting_first = model.judge("내 생일 언제야?", f"안녕하세요! 오늘도 잘 부탁드려요. {BIRTHDAY}.", "user", e5)  # type: ignore[arg-type]
    assert greeting_first.sentence.startswith("5월 17일")
    job = model.judge("where do I work?", f"Hi there! {JOB_EN}", "user", e5)  # type: ignore[arg-type]
    assert job.answers and "Acme Robotics" in job.sentence


def test_answers_is_a_task_of_every_decision_model() -> None:
    assert TASKS["answers"].inputs == ("question", "memory", "speaker") and TASKS["answers"].options == ("yes", "no")
    learned = create("decision", "learned")
    yes = learned.decide("answers", question="내 생일 언제야?", memory=BIRTHDAY, speaker="user")
    no = learned.decide("answers", question="where do I work?", memory=WARRANTY_EN, speaker="document")
    assert yes.provider == no.provider == "learned" and not no.yes and 0.5 <= no.probability <= 1.0
    assert yes.span == BIRTHDAY


def test_an_llm_answers_the_task_with_structured_output() -> None:
    llm = ScriptedLLM([{"answer": "no", "probability": 0.9}, {"answer": "yes", "probability": 0.8},
                       {"answer": "perhaps", "probability": 0.5}])
    model = LLMDecisions(llm)
    decision = model.decide("answers", question="내 생일 언제야?", memory=COUPON, speaker="document")
    assert not decision.yes and decision.provider == "llm" and decision.span is None
    assert COUPON in llm.requests[0].messages[0]["content"] and llm.requests[0].operation == "decide:answers"
    assert model.decide("answers", question="where do I work?", memory=JOB_EN, speaker="user").yes
    with pytest.raises(LLMError):
        model.decide("answers", question="where do I work?", memory=JOB_EN, speaker="user")


def _chat(mem: Memory, bank: str, *turns: tuple[str, str]) -> None:
    mem.retain(bank, messages=[{"id": f"m{i}", "speaker": who, "text": text,
                                "timestamp": f"2026-05-04T10:0{i}:00+09:00"} for i, (who, text) in enumerate(turns)],
               document_id="chat")


@pytest.mark.parametrize(("bank", "question", "turns", "answer_word"), [
    ("ko", "내 생일 언제야?", (("assistant", COUPON), ("user", BIRTHDAY)), "5월 17일"),
    ("en", "Where do I work?", (("assistant", WARRANTY_EN), ("user", JOB_EN)), "Acme"),
])
def test_reflect_answers_from_the_memory_the_decision_model_is_sure_of(
        mem: Memory, scripted_answers: ScriptedAnswers, bank: str, question: str, turns: tuple[tuple[str, str], ...],
        answer_word: str) -> None:
    _chat(mem, bank, *turns)
    mem.configure_decisions(bank, "scripted-answers")
    scripted_answers.sure = {answer_word: 0.93}
    result = mem.reflect(bank, question)
    assert result.supported and answer_word in result.answer and result.mode == "offline"
    asked = [s for s in result.steps if s["action"] == "decide answers"]
    assert asked and all(s["provider"] == "scripted-answers" for s in asked)
    assert max(s["probability"] for s in asked) == pytest.approx(0.93)
    assert all(a["question"] == question for a in scripted_answers.asked)


COUPON_EN = "Birthday coupons are issued 7 days before your birthday."


@pytest.mark.parametrize(("bank", "question", "turns", "closest", "probability"), [
    ("ko", "내 생일 언제야?", (("assistant", COUPON),), "생일 쿠폰", 0.3),  # below the Korean bar, 0.5
    ("en", "When is my birthday?", (("assistant", COUPON_EN),), "Birthday coupons", 0.05),  # below 0.1
])
def test_reflect_refuses_below_the_bar_and_says_what_it_found(
        mem: Memory, scripted_answers: ScriptedAnswers, bank: str, question: str, turns: tuple[tuple[str, str], ...],
        closest: str, probability: float) -> None:
    _chat(mem, bank, *turns)
    mem.configure_decisions(bank, "scripted-answers")
    scripted_answers.sure = {closest: probability}
    result = mem.reflect(bank, question)
    assert not result.supported and result.refusal == "insufficient" and result.based_on == []
    assert closest in result.answer and f"{probability:.2f}" in result.answer and "scripted-answers" in result.answer
    asked = [s for s in result.steps if s["action"] == "decide answers"]
    assert asked[0]["answer"] == "no" and asked[0]["probability"] == pytest.approx(probability)
    assert not asked[0]["kept"]


@pytest.mark.parametrize(("bank", "question", "policy", "said", "needle"), [
    ("ko", "내 생일 언제야?", COUPON, BIRTHDAY, "5월 17일"),
    ("en", "Where do I work?", WARRANTY_EN, JOB_EN, "Acme Robotics"),
])
def test_the_learned_model_keeps_reflect_off_a_policy_line(
        db_path: str, bank: str, question: str, policy: str, said: str, needle: str) -> None:
    with Memory(db_path, embedder="e5-small") as mem:
        _policy_then_said(mem, bank, question, policy, said, needle)


def _policy_then_said(mem: Memory, bank: str, question: str, policy: str, said: str, needle: str) -> None:
    mem.retain(bank, text=policy, document_id="policy.txt")
    only_policy = mem.reflect(bank, question)
    assert not only_policy.supported, only_policy.answer
    _chat(mem, bank, ("user", said))
    result = mem.reflect(bank, question)
    assert result.supported and needle in result.answer, result.answer
    assert all(b["text"] != policy for b in result.based_on)
