"""Consolidation triage: the learned head (gieok.extract.triage_model) for real, the ``triage``
decision task through the registry (learned and LLM-backed), and consolidation acting on each
answer — chatter joins nothing, a restatement is cited without changing the text, a fact that adds
updates it, an unrelated one starts another observation. Korean and English."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

from gieok import Memory
from gieok.engine.retain.plan import embed_text
from gieok.extract.triage_model import fact_embed_text, observation_embed_text
from gieok.providers import create, registry
from gieok.providers.decisions import Decision, DecisionModel, LearnedDecisions, Task
from gieok.providers.llms import ScriptedLLM

sys.path.insert(0, str(Path(__file__).parent))
from conftest import FakeEmbedder, registered  # noqa: E402
from pg_server import pg_dsn_factory  # noqa: E402, F401

HEAD_CASES = [
    # (observation, fact, speaker, expected): a restatement in other words, an update, another
    # person on the same topic, chatter
    ("사용자는 고양이 두 마리(치즈, 보리)를 키운다.", "고양이 두 마리 키워요, 치즈하고 보리", "user", "restates"),
    ("민호는 매주 토요일 아침에 한강에서 러닝을 한다.", "이제 토요일 말고 일요일 저녁에 뛰어, 코스도 바꿨고",
     "민호", "adds"),
    ("사용자는 삼성전자에서 일한다.", "제 동생도 삼성 다녀요 반도체 쪽이요", "user", "unrelated"),
    ("사용자는 판교에 산다.", "ㅋㅋㅋ 그치", "user", "chatter"),
    ("The user works at Google as a designer.", "I'm a designer over at Google", "user", "restates"),
    ("The user works at Google as a designer.", "I just got promoted to design lead last week", "user", "adds"),
    ("The user works at Google as a designer.", "My sister works at Google too, as an engineer", "user", "unrelated"),
    ("The user works at Google as a designer.", "lol yeah", "user", "chatter"),
]


@pytest.mark.parametrize(("observation", "fact", "speaker", "expected"), HEAD_CASES)
def test_the_learned_head_triages_a_fact_against_an_observation(observation: str, fact: str, speaker: str,
                                                                 expected: str) -> None:
    decision = create("decision", "learned").decide("triage", observation=observation, fact=fact, speaker=speaker)
    assert decision.answer == expected and decision.provider == "learned", decision.reason
    assert 0.25 <= decision.probability <= 1.0 and expected in decision.reason


@pytest.mark.parametrize(("observation", "fact", "speaker", "expected"), [HEAD_CASES[1], HEAD_CASES[5]])
def test_the_learned_head_reads_the_stored_vectors_it_is_handed(monkeypatch: pytest.MonkeyPatch, observation: str,
                                                                fact: str, speaker: str, expected: str) -> None:
    e5 = create("embedder", "e5-small")
    stored = e5.embed([observation_embed_text(observation), fact_embed_text(fact, speaker)], "document")
    model = LearnedDecisions()

    def no_embedder(kind: str, name: str, **options: object) -> object:
        raise AssertionError(f"the head built a {kind} {name} although it was handed the vectors")

    monkeypatch.setattr(registry, "create", no_embedder)
    hinted = model.decide("triage", hints={"vectors": (stored[0], stored[1]), "embedder": "e5-small"},
                          observation=observation, fact=fact, speaker=speaker)
    assert hinted.answer == expected and model._embedder is None, hinted.reason
    # the answer rests on the vectors handed: the fact's own vector as the observation's reads otherwise
    same = model.decide("triage", hints={"vectors": (stored[1], stored[1]), "embedder": "e5-small"},
                        observation=observation, fact=fact, speaker=speaker)
    assert same.reason != hinted.reason and model._embedder is None


@pytest.mark.parametrize(("text", "speaker"), [("나 판교 살아", "민지"), ("I live in Austin", "user"), ("혼잣말", "")])
def test_the_head_reads_a_fact_embedded_as_retain_embeds_it(text: str, speaker: str) -> None:
    assert fact_embed_text(text, speaker) == embed_text(text, speaker or None)


@pytest.mark.parametrize(("observation", "embedded"), [
    ("지민은 성수동에 살고 마케터로 일한다.", "지민: 지민은 성수동에 살고 마케터로 일한다."),
    ("사용자는 판교에 산다.", "user: 사용자는 판교에 산다."),
    ("The user works at Google as a designer.", "user: The user works at Google as a designer."),
    ("Daniel's sister lives in Austin.", "Daniel: Daniel's sister lives in Austin."),
    ("민호: 토요일마다 뛰어. 코스 바꿨어", "민호: 토요일마다 뛰어. 코스 바꿨어"),  # consolidation's, kept
])
def test_an_observation_is_embedded_as_said_by_its_subject(observation: str, embedded: str) -> None:
    assert observation_embed_text(observation) == embedded


@pytest.mark.parametrize(("observation", "fact"), [
    ("사용자는 땅콩 알레르기가 있다.", "저 땅콩 먹으면 두드러기 나요"),
    ("The user is allergic to peanuts.", "peanuts make me break out in hives"),
])
def test_the_llm_decision_model_answers_triage_through_the_registry(observation: str, fact: str) -> None:
    llm = ScriptedLLM([{"answer": "restates", "probability": 0.9}])
    model = create("decision", "llm", llm=llm)
    decision = model.decide("triage", observation=observation, fact=fact, speaker="user")
    assert decision.answer == "restates" and decision.provider == "llm"
    request = llm.requests[0]
    assert request.json_schema is not None
    assert request.json_schema["properties"]["answer"]["enum"] == ["restates", "adds", "unrelated", "chatter"]
    assert observation in request.messages[0]["content"] and fact in request.messages[0]["content"]
    assert request.operation == "decide:triage"


class Scripted(DecisionModel):
    """Answers triage from a table keyed by a word of the fact; records what it was asked."""

    name = "scripted-triage"
    tasks = frozenset({"triage"})

    def __init__(self) -> None:
        self.table: dict[str, str] = {}
        self.asked: list[Mapping[str, str]] = []
        self.hints: list[Mapping[str, object]] = []

    def _decide_with(self, task: Task, inputs: Mapping[str, str], hints: Mapping[str, object]) -> Decision:
        self.hints.append(dict(hints))
        return self._decide(task, inputs)

    def _decide(self, task: Task, inputs: Mapping[str, str]) -> Decision:
        self.asked.append(dict(inputs))
        answer = next((a for word, a in self.table.items() if word in inputs["fact"]), "adds")
        return Decision(task.name, answer, 0.9, self.name)


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    with registered(Scripted()) as model:
        yield model


def _say(mem: Memory, mid: str, text: str, day: int) -> None:
    mem.retain("b", [{"id": mid, "speaker": "user", "text": text, "timestamp": f"2026-03-{day:02d}T10:00:00+09:00"}],
               document_id=f"s-{mid}")


# said by the user about themself, naming no one: one topic, the speaker (names would make topics of
# their own); the answers are scripted, so the statements are chosen to replace none of the others
LATER = {
    "ko": ("나 매일 아침 6시에 일어나서 수영해", [("주말엔 보통 집에서 쉬어", "restates"),
                                       ("출근하는 데 지하철로 한 시간 걸려", "adds"),
                                       ("우리 집 고양이는 세 살이야", "unrelated"), ("ㅋㅋㅋ 그치 진짜", "chatter")]),
    "en": ("I get up at 6 every morning to swim", [("I usually rest at home on weekends", "restates"),
                                                   ("my office is near the station", "adds"),
                                                   ("my cat is three years old", "unrelated"),
                                                   ("lol yeah totally", "chatter")]),
}


def _fact_id(mem: Memory, text: str) -> str | None:
    return next((m.id for m in mem.recall("b", text, limit=20).memories if m.text == text), None)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_consolidation_acts_on_each_triage_answer(store_mem: Memory, scripted: Scripted, lang: str) -> None:
    mem, (first, later) = store_mem, LATER[lang]
    _say(mem, "m0", first, 1)
    mem.configure_decisions("b", "scripted-triage")
    mem.run_jobs("b")
    [observation] = mem.observations("b")
    scripted.table = {text: answer for text, answer in later}
    for n, (text, _answer) in enumerate(later, start=1):
        _say(mem, f"m{n}", text, n + 1)
    mem.run_jobs("b")
    assert scripted.asked and all(a["observation"] and a["speaker"] == "user" for a in scripted.asked)
    assert all("(2026-" not in a["observation"] for a in scripted.asked), "asked without the dates"
    after = {o.id: o for o in mem.observations("b")}
    updated = after[observation.id]
    restated, added, other, chatter = (_fact_id(mem, text) for text, _ in later)
    assert restated in updated.based_on and later[0][0] not in updated.text, "cited, the text unchanged by it"
    assert added in updated.based_on and later[1][0] in updated.text and first in updated.text
    assert chatter is None or all(chatter not in o.based_on for o in after.values()), "chatter joins nothing"
    [sibling] = [o for o in after.values() if o.id != observation.id]
    name = observation.text.split(":")[0]
    assert sibling.text.startswith(f"{name}: ") and later[2][0] in sibling.text and other in sibling.based_on


@pytest.mark.parametrize(("first", "again"), [
    ("나 매일 아침 6시에 일어나서 수영해", "아침마다 수영해 6시에 일어나서"),
    ("I get up at 6 every morning to swim", "every morning I'm up at six for a swim"),
])
def test_a_restatement_in_other_words_leaves_the_observation_text_as_it_was(mem: Memory, first: str,
                                                                             again: str) -> None:
    _say(mem, "r0", first, 1)
    mem.run_jobs("b")
    [before] = mem.observations("b")
    _say(mem, "r1", again, 2)
    mem.run_jobs("b")
    [after] = mem.observations("b")
    assert after.id == before.id and after.text == before.text and len(after.based_on) == 2


@pytest.mark.parametrize(("document", "said"), [
    ("# 반품 정책\n\n전자제품은 배송일로부터 1년 동안 무상 수리를 받을 수 있습니다. 단순 변심 반품은 7일 이내에 "
     "가능하며 왕복 배송비는 고객 부담입니다.\n\n# 쿠폰\n\n생일 쿠폰은 생일 7일 전에 발급됩니다. 쿠폰은 발급일로부터 "
     "30일 동안 사용할 수 있습니다.", "제 생일은 5월 17일이에요"),
    ("# Returns\n\nElectronics carry a one-year free repair warranty from the delivery date. Change-of-mind "
     "returns are accepted within 7 days and the customer pays shipping both ways.\n\n# Coupons\n\nBirthday "
     "coupons are issued 7 days before the birthday and stay valid for 30 days.", "My birthday is May 17"),
])
def test_no_observation_copies_a_document_chunk(mem: Memory, document: str, said: str) -> None:
    mem.retain("b", text=document, document_id="policy.md", timestamp="2026-05-04T09:00:00+09:00")
    _say(mem, "c1", said, 4)
    mem.run_jobs("b")
    observations = mem.observations("b")
    assert observations, "the conversation is consolidated"
    passages = [p for p in document.split("\n\n") if not p.startswith("#")]
    for passage in passages:
        for sentence in passage.split(". "):
            assert all(sentence[:30] not in o.text for o in observations), sentence


def _unit(vector: object) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_consolidation_hands_the_decision_model_the_stored_vectors(store_mem: Memory, scripted: Scripted,
                                                                   fake_embedder: FakeEmbedder, lang: str) -> None:
    mem, (first, later) = store_mem, LATER[lang]
    _say(mem, "v0", first, 1)
    mem.run_jobs("b")
    mem.configure_decisions("b", "scripted-triage")
    scripted.table = {later[1][0]: "adds", later[2][0]: "unrelated"}
    _say(mem, "v1", later[1][0], 2)
    _say(mem, "v2", later[2][0], 3)
    mem.run_jobs("b")
    [one, two] = scripted.hints
    assert all(h["embedder"] == "fake" for h in scripted.hints)
    stored = {t: _unit(fake_embedder.embed([embed_text(t, "user")], "document")[0]) for t in (first, *dict(later))}
    observation, fact = one["vectors"]  # type: ignore[misc]
    assert np.allclose(_unit(observation), stored[first], atol=1e-4)  # one statement: its own stored vector
    assert np.allclose(_unit(fact), stored[later[1][0]], atol=1e-4)
    # the fact that added: the observation's vector is its statements' mean, still embedding nothing
    observation, fact = two["vectors"]  # type: ignore[misc]
    assert np.allclose(_unit(observation), _unit(stored[first] + stored[later[1][0]]), atol=1e-3)
