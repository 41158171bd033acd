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
          "Let me know if you need anything else.", "Hey Caroline, how are you?"]
CONTENT = ["서연님은 땅콩 알레르기가 있어요", "Congrats on the new job at Kakao!", "Welcome to Seoul!", "I love sushi",
           "Mel is my sister", "목요일 3시로 치과 예약 잡아드렸어요.", "I booked a table for two at Lupa for 7 pm.",
           "Good luck with the exam tomorrow!", "나 땅콩 알레르기 있어", "I will be there at noon"]


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
