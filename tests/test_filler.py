"""Filler stays out of the facts (issue #12, item 4): acknowledgements, greetings, reactions, an
assistant's offer to help and system prompts are kept verbatim in the source but are not memories;
a reply that carries content still is. Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory
from gieok.extract import is_small_talk

FILLER = ["축하해!", "축하드려요!", "반가워요 서연님! 무엇을 도와드릴까요?", "재밌겠다!", "부러워요ㅎㅎ",
          "좋은 하루 되세요!",
          "Congrats!", "Sounds fun!", "That's awesome, Mel!", "How can I help you today?", "I'm so happy for you!",
          "Let me know if you need anything else.", "Hey Caroline, how are you?",
          # inflected forms of listed words, read through their morphemes (Kiwi lemmas, interjections)
          "우와 진짜 대박이다!", "대박이에요 진짜", "그렇네", "맞죠", "음 그렇구나", "Feel free to ask anytime."]
CONTENT = ["서연님은 땅콩 알레르기가 있어요", "Congrats on the new job at Kakao!", "Welcome to Seoul!", "I love sushi",
           "Mel is my sister", "목요일 3시로 치과 예약 잡아드렸어요.", "I booked a table for two at Lupa for 7 pm.",
           "Good luck with the exam tomorrow!", "나 땅콩 알레르기 있어", "I will be there at noon",
           # a listed word in a sentence that says something
           "대박 나 합격했어", "진짜 맛있다", "인정받았어 회사에서", "오호 제주 가?"]


@pytest.mark.parametrize("text", FILLER)
def test_filler_is_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", CONTENT)
def test_content_is_not(text: str) -> None:
    assert not is_small_talk(text)


def test_a_support_chat_keeps_filler_in_the_source_only(mem: Memory) -> None:
    said = [
        {"id": "s0", "role": "system", "text": "당신은 친절한 상담원입니다. You always answer in one sentence."},
        {"id": "a1", "speaker": "assistant", "text": "반가워요 서연님! 무엇을 도와드릴까요?"},
        {"id": "u1", "speaker": "서연", "text": "저 땅콩 알레르기 있어요. 땅콩 없는 식당 추천해 주세요."},
        {"id": "a2", "speaker": "assistant", "text": "망원동 '바다정원'을 추천드려요, 땅콩 없는 메뉴가 있어요."},
        {"id": "u2", "speaker": "서연", "text": "고마워요ㅎㅎ"},
        {"id": "a3", "speaker": "assistant", "text": "Sounds fun! Let me know if you need anything else."},
        {"id": "u3", "speaker": "Seoyeon", "text": "I got the job at Kakao!"},
        {"id": "a4", "speaker": "assistant", "text": "Congrats!"},
    ]
    result = mem.retain("서연", said, document_id="chat")
    assert result.facts_added == 3  # u1, a2 (a recommendation), u3
    kept = mem.source("서연", "chat").messages
    assert [m.id for m in kept] == [m["id"] for m in said]  # every message stays, verbatim
    top = mem.recall("서연", "서연님 알레르기 뭐 있어?").memories
    assert "땅콩 알레르기" in top[0].text
    texts = {m.text for m in mem.recall("서연", "도와드릴까요 system 상담원 Congrats", limit=20).memories}
    assert not texts & {"반가워요 서연님! 무엇을 도와드릴까요?", "Congrats!", said[0]["text"]}
    assert "망원동 '바다정원'을 추천드려요, 땅콩 없는 메뉴가 있어요." in {
        m.text for m in mem.recall("서연", "식당 추천", limit=5).memories}


# --- the learned second opinion (gieok.extract.filler_model) ------------------------------------

from gieok.extract.filler_model import filler_model, names_something  # noqa: E402


@pytest.mark.parametrize(("text", "names"), [
    ("It's Shia Labeouf!", True), ("She's six.", True), ("I moved here in 2019", True),
    ("Thanks, Mel!", False), ("Hang in there.", False), ("lol same", False),
    ("보리는 잘 있어?", True), ("팀장님은 알아?", True), ("걔 요즘 바빠", True), ("3시에 봐", True),
    ("ㅋㅋ 진짜 웃기다", False), ("좋은 아침이에요!", False), ("서연님 안녕하세요!", False), ("민수 씨 어디야?", False),
])
def test_what_names_something_is_left_to_the_lists(text: str, names: bool) -> None:
    assert names_something(text) is names


def test_a_model_ships_for_the_default_embedder_only() -> None:
    model = filler_model("e5-small")
    assert model is not None and model.weights.shape == (384,) and 0.5 < model.threshold < 1.0
    assert filler_model("fake") is None  # another embedder: the word lists alone decide


def test_the_model_drops_unlisted_filler_and_keeps_short_content(tmp_path: object) -> None:
    """With the bundled embedder: reactions the lists do not name yield no fact; short content,
    an answer to a question and a message that names something still do. Korean and English."""
    said = [
        ("u1", "user", "Ugh, what a day. Hang in there, me."),
        ("a1", "assistant", "Aww, hang in there!"),
        ("u2", "user", "I'm vegan."),
        ("a2", "assistant", "How did the kids take the news?"),
        ("u3", "user", "They were thrilled."),
        ("u4", "user", "우와 짱이다ㅠㅠ"),
        ("u5", "user", "나 채식해."),
        ("u6", "user", "It's Shia Labeouf!"),
    ]
    with Memory(f"{tmp_path}/m.db", embedder="e5-small") as memory:
        memory.retain("b", [{"id": i, "speaker": s, "text": t} for i, s, t in said], document_id="chat")
        kept = {m.source_ids[0] for m in memory.recall("b", "vegan kids thrilled 채식 Shia", limit=20).memories}
        assert len(memory.source("b", "chat").messages) == len(said)  # every message stays verbatim
    assert {"u2", "u3", "u5", "u6"} <= kept
    assert not kept & {"a1", "u4"}
