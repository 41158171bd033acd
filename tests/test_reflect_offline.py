"""Offline reflect answers what recall found (issue #12, item 5), Korean and English.

Each case was reproduced on main: recall had the answer in its top 3 and reflect refused it, quoted
the wrong sentence (an agent's echo a later user statement replaced, a FAQ's question instead of its
answer, a name without the short sentence that answers), or said "저장된 기억을 찾지 못했어요" when
it had found memories. An LLM that cannot be reached falls back to the offline answer and says so,
and every cited memory leads back to the messages it rests on.
"""

from __future__ import annotations

import pytest
from fake_llm import FakeLLMServer

from gieok import Memory
from gieok.answering import MIN_SUPPORT
from gieok.engine.reflect.run import SEMANTIC_GATE_Z, _semantic_match
from gieok.errors import LLMUnavailableError
from gieok.providers.llms import OpenAICompatibleLLM, ScriptedLLM
from gieok.records import ChannelHit, RecalledMemory


def _chat(mem: Memory, bank: str, source: str, *turns: tuple[str, str, str, str]) -> None:
    mem.retain(bank, messages=[{"id": i, "speaker": who, "text": text, "timestamp": ts} for i, who, text, ts in turns],
               document_id=source)


def _support_chat(mem: Memory) -> None:
    """A Korean support chat whose user is stored as "user" and says who she is."""
    _chat(mem, "ko", "s1",
          ("a1", "assistant", "반가워요 서연님! 무엇을 도와드릴까요?", "2026-01-05T10:00:00+09:00"),
          ("u1", "user", "안녕하세요, 저는 서연이에요. 저는 갑각류 알레르기가 있어서 새우를 못 먹어요.",
           "2026-01-05T10:01:00+09:00"),
          ("a2", "assistant", "알겠습니다. 새우가 없는 메뉴로 추천해 드릴게요.", "2026-01-05T10:02:00+09:00"))
    _chat(mem, "ko", "s2",
          ("u2", "서연", "우리 팀장님은 박지훈 팀장님이에요. 회의 일정 좀 잡아 주세요.", "2026-01-12T10:01:00+09:00"))


def _english_chat(mem: Memory) -> None:
    _chat(mem, "en", "c1",
          ("e0", "user", "Hi, I'm Tom. I just moved to Austin from Denver.", "2026-02-01T09:59:00Z"),
          ("e1", "assistant", "Welcome to Austin, Tom! Since you're vegetarian, here are some veggie spots.",
           "2026-02-01T10:00:00Z"),
          ("e3", "user", "My daughter Lily loves the new school. She's six.", "2026-02-01T10:02:00Z"),
          ("e4", "user", "Actually I'm not vegetarian anymore; I started eating chicken last month.",
           "2026-03-01T10:00:00Z"))


GUIDES = {
    "ko": "## 환불 정책\n\n환불은 구매 후 14일까지 가능합니다. 영수증이 필요합니다.\n\n## 자주 묻는 질문\n\n"
          "Q. 배송은 얼마나 걸리나요?\nA. 보통 주문 후 2~3일 안에 도착합니다.\n\n"
          "## 응대 톤\n\n고객에게는 항상 존댓말을 씁니다.",
    "en": "# Help\n\n## Refunds\n\nRefunds are possible up to 14 days after purchase.\n\n## FAQ\n\n"
          "How long does shipping take?\nShipping usually takes 3 to 5 business days.\n\n"
          "Can I change my order?\nYes, within one hour of ordering.",
}


def _recalled_top3(mem: Memory, bank: str, question: str, needle: str) -> None:
    assert any(needle in m.text for m in mem.recall(bank, question, limit=3).memories), "recall has the answer"


@pytest.mark.parametrize(("question", "needle"), [
    ("서연님은 무슨 알레르기가 있어?", "갑각류 알레르기"),  # the user said "저는 서연이에요"
    ("팀장님 이름이 뭐야?", "박지훈"),  # 이름 asks for a name; the memory holds one without saying 이름
])
def test_korean_chat_answers_what_recall_found(mem: Memory, question: str, needle: str) -> None:
    _support_chat(mem)
    _recalled_top3(mem, "ko", question, needle)
    result = mem.reflect("ko", question)
    assert result.supported and needle in result.answer and result.mode == "offline" and result.refusal is None


@pytest.mark.parametrize(("question", "needle"), [
    ("Where did Tom live before Austin?", "from Denver"),  # the user said "I'm Tom"; moved from = lived
    ("How old is Lily?", "She's six."),  # the short answer sentence next to the name
])
def test_english_chat_answers_what_recall_found(mem: Memory, question: str, needle: str) -> None:
    _english_chat(mem)
    _recalled_top3(mem, "en", question, needle.split()[-1].strip("."))
    result = mem.reflect("en", question)
    assert result.supported and needle in result.answer


def test_a_users_later_statement_wins_over_an_agents_echo(mem: Memory) -> None:
    _english_chat(mem)
    result = mem.reflect("en", "Is Tom vegetarian?")
    assert result.supported and "not vegetarian anymore" in result.answer
    assert "Since you're vegetarian" not in result.answer
    assert [b["speaker"] for b in result.based_on] == ["user"]


def test_a_users_later_statement_wins_over_an_agents_echo_in_korean(mem: Memory) -> None:
    _chat(mem, "ko2", "c",
          ("u0", "user", "안녕하세요, 저는 민준이에요.", "2026-02-01T10:00:00+09:00"),
          ("a0", "assistant", "민준님, 채식하신다고 하셨으니 채식 식당으로 추천드릴게요.", "2026-02-01T10:01:00+09:00"),
          ("u1", "user", "이제 채식 안 해요. 요즘은 고기도 먹어요.", "2026-03-01T10:00:00+09:00"))
    result = mem.reflect("ko2", "민준님은 채식해?")
    assert result.supported and "이제 채식 안 해요" in result.answer and "추천드릴게요" not in result.answer


@pytest.mark.parametrize(("lang", "question", "answer", "not_quoted"), [
    ("ko", "환불은 구매 후 며칠까지 돼?", "14일까지 가능합니다", "##"),  # 며칠 asks for a count of days
    ("ko", "배송은 얼마나 걸려?", "2~3일 안에 도착합니다", "배송은 얼마나 걸리나요"),
    ("en", "How long does shipping take?", "3 to 5 business days", "How long does shipping take"),
    ("en", "Can I change my order?", "within one hour", "Can I change my order"),
])
def test_a_document_question_line_is_not_its_answer(mem: Memory, lang: str, question: str, answer: str,
                                                    not_quoted: str) -> None:
    mem.retain("doc", text=GUIDES[lang], document_id="guide")
    result = mem.reflect("doc", question)
    assert result.supported and answer in result.answer
    assert not any(not_quoted in quote for b in result.based_on for quote in b["quotes"])


@pytest.mark.parametrize(("question", "found_phrase", "nothing_phrase"), [
    ("서연님 생일은 언제야?", "관련 기억", "찾지 못했어요"),
    ("What is Tom's favourite car?", "related memor", "I found nothing stored"),
])
def test_a_refusal_says_whether_memories_were_found(mem: Memory, question: str, found_phrase: str,
                                                    nothing_phrase: str) -> None:
    mem.retain("nobody", text="잠깐 적어 둔 메모. A note to erase.", document_id="memo")
    mem.forget("nobody", source_id="memo")  # the bank exists and holds nothing
    empty = mem.reflect("nobody", question)
    assert not empty.supported and empty.refusal == "nothing_found" and nothing_phrase in empty.answer
    _support_chat(mem)
    _english_chat(mem)
    bank = "ko" if "서연" in question else "en"
    found = mem.reflect(bank, question)
    assert not found.supported and found.refusal == "insufficient"
    assert found_phrase in found.answer and nothing_phrase not in found.answer
    assert ("기억에 없" if bank == "ko" else "not in memory") in found.answer


@pytest.mark.parametrize(("bank", "question", "message_id", "speaker"), [
    ("ko", "서연님은 무슨 알레르기가 있어?", "u1", "user"),
    ("en", "How old is Lily?", "e3", "user"),
])
def test_based_on_leads_back_to_the_messages(mem: Memory, bank: str, question: str, message_id: str,
                                             speaker: str) -> None:
    _support_chat(mem)
    _english_chat(mem)
    cited = mem.reflect(bank, question).based_on[0]
    assert cited["source_ids"] == [message_id] and cited["speaker"] == speaker
    assert cited["source_id"] in ("s1", "c1") and cited["mentioned_at"].startswith("2026-0")
    assert cited["quotes"] and all(q in cited["text"] for q in cited["quotes"])


def test_based_on_of_a_mental_model_carries_provenance_too(mem: Memory) -> None:
    _support_chat(mem)
    mem.models.add("ko", "allergy", "서연님은 무슨 알레르기가 있어?")
    mem.run_jobs("ko")
    result = mem.reflect("ko", "서연님은 무슨 알레르기가 있어?")
    assert result.source == "mental_model" and result.mode == "lookup"
    assert result.based_on and result.based_on[0]["source_ids"] == ["u1"] and result.based_on[0]["text"]


@pytest.mark.parametrize(("question", "needle", "lang"), [
    ("서연님은 무슨 알레르기가 있어?", "갑각류", "ko"),
    ("How old is Lily?", "She's six.", "en"),
])
def test_an_unreachable_llm_falls_back_to_the_offline_answer(db_path: str, fake_embedder, question: str,  # noqa: ANN001
                                                             needle: str, lang: str) -> None:
    llm = ScriptedLLM([LLMUnavailableError("connection refused")] * 5, max_retries=4)
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        for bank in ("ko", "en"):
            mem.configure_llm(bank, enabled=False)
        _support_chat(mem)
        _english_chat(mem)
        for bank in ("ko", "en"):
            mem.configure_llm(bank, enabled=True)
        result = mem.reflect(lang, question)
    assert len(llm.requests) == 5, "every retry was tried before falling back"
    assert result.supported and needle in result.answer and result.language == lang
    assert result.mode == "offline_fallback" and "LLMUnavailableError" in (result.mode_reason or "")


def test_an_llm_server_answering_503_falls_back_over_http(db_path: str, fake_embedder) -> None:  # noqa: ANN001
    with FakeLLMServer() as server:
        server.queue_error(503)
        llm = OpenAICompatibleLLM(server.base_url, "gpt-4o-mini", max_retries=0)
        with Memory(db_path, embedder="fake", llm=llm) as mem:
            mem.configure_llm("en", enabled=False)
            _english_chat(mem)
            mem.configure_llm("en", enabled=True)
            result = mem.reflect("en", "Where did Tom live before Austin?")
        assert len(server.requests) == 1
    assert result.supported and "Denver" in result.answer and result.mode == "offline_fallback"
    assert result.to_dict()["mode_reason"]


def _recalled(memory_id: str, text: str, speaker: str, cosine: float) -> RecalledMemory:
    return RecalledMemory(memory_id, text, 1.0, "world", "fact", "c1", [memory_id], speaker, None, None, None,
                          {"semantic": ChannelHit(1, cosine)}, 10)


@pytest.mark.parametrize(("question", "answers", "names_only", "speaker"), [
    # the answer paraphrases the question; the short memory only names who is asked about
    ("박 과장님 아기 이름이 뭐였죠?", "박 과장님 딸 돌잔치가 다음 주래요. 하윤이라고 지었대요.",
     "박 과장님, 오 과장님 ㅋㅋ", "하은"),
    ("What did Jon name his new puppy?", "Jon's new puppy is called Biscuit, he adopted him last week.",
     "Haha, Jon!", "Gina"),
])
def test_the_semantic_gate_needs_more_than_the_name(question: str, answers: str, names_only: str,
                                                     speaker: str) -> None:
    """A memory far more similar than usual is quoted only when it is about who is asked and covers
    enough of the question (``SEMANTIC_MIN_COVERAGE``): a two-word memory naming the person is
    similar to every question about them and answers none."""
    stats = lambda text: (0.2, 0.05)  # noqa: E731  the bank's usual cosine to the question: 0.2 ± 0.05
    strong = 0.2 + 0.05 * (SEMANTIC_GATE_Z + 1)
    found = [_recalled("f-1", answers, speaker, strong), _recalled("f-2", names_only, speaker, strong),
             _recalled("f-3", "날씨가 좋았어요. The weather was nice.", speaker, 0.2)]
    assert [m.id for m in _semantic_match(question, found, stats)] == ["f-1"]
    weak = [_recalled("f-1", answers, speaker, 0.2 + 0.05 * (SEMANTIC_GATE_Z - 1)), *found[1:]]
    assert _semantic_match(question, weak, stats) == []


@pytest.mark.parametrize(("question", "answer", "speaker", "wrong_person"), [
    ("민지 팀장이 다니는 헬스장은 어느 동네에 있어?", "민지 팀장님은 매일 아침 합정역 앞 핏앤코어에서 운동하신대",
     "지현", "수아 팀장님은 매일 아침 합정역 앞 핏앤코어에서 운동하신대"),
    ("What does Tom bake for his daughter's birthday?", "Tom bakes a chocolate cake for his daughter every year.",
     "Gina", "Thanks, Tom! I bake a chocolate cake for my daughter every year."),
])
def test_recalls_first_memory_answers_with_half_the_question(question: str, answer: str, speaker: str,
                                                             wrong_person: str) -> None:
    """Recall's first memory answers when it is about who is asked and covers half the question's
    weighted terms (``TOP_MIN_COVERAGE``), below the lexical gate; the same memory further down does
    not, nor a first memory about someone else."""
    from gieok.answering import EvidenceItem, support
    from gieok.engine.reflect.run import TOP_MIN_COVERAGE, _extractive

    others = [_recalled("f-2", "날씨가 좋았어. The weather was nice.", speaker, 0.2),
              _recalled("f-3", "책 얘기를 했어. We talked about books.", speaker, 0.2)]
    first = _recalled("f-1", answer, speaker, 0.3)
    items = [EvidenceItem(m.id, m.text, 1.0, speaker=m.speaker) for m in [first, *others]]
    assert TOP_MIN_COVERAGE <= support(question, items)["f-1"].coverage < MIN_SUPPORT
    result = _extractive(question, [first, *others], [])
    assert result is not None and result.based_on[0]["id"] == "f-1" and result.steps[-1]["action"] == "top memory"
    assert _extractive(question, [*others, first], []) is None
    assert _extractive(question, [_recalled("f-1", wrong_person, speaker, 0.3), *others], []) is None
