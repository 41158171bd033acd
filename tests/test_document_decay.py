"""Reference documents do not fade (issue #12, item 3): a retained document's facts are class
"document" and survive maintenance months later, while chat small talk of the same age fades; the
caller may still ask a document to fade; explain reports the classifier's verdict. Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory

GUIDE = {
    "ko": ("## 환불 정책\n\n환불은 구매 후 14일까지 가능합니다. 영수증이 필요합니다.\n\n"
           "## 응대 톤\n\n고객에게는 항상 존댓말을 쓰고, 사과는 한 번만 분명하게 합니다.",
           "환불은 구매 후 며칠까지 돼?", "14일"),
    "en": ("## Refund policy\n\nRefunds are possible up to 14 days after purchase with a receipt.\n\n"
           "## Tone\n\nAlways greet customers by name and apologise once, clearly.",
           "How many days after purchase can I get a refund?", "14 days"),
}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_document_is_still_recalled_after_six_months_of_maintenance(mem: Memory, lang: str) -> None:
    text, question, answer = GUIDE[lang]
    mem.retain("support", text=text, document_id="guide", timestamp="2026-01-05T09:00:00Z")
    mem.retain("support", messages=[{"id": "c1", "speaker": "user", "text": "오늘 날씨 좋네 ㅎㅎ" if lang == "ko"
                                     else "Nice weather today, haha.", "timestamp": "2026-01-05T09:00:00Z"}])
    recalled = mem.recall("support", question, limit=20, now="2026-01-06").memories
    document_facts = [m for m in recalled if m.source_id == "guide"]
    assert document_facts and {m.decay_class for m in document_facts} == {"document"}
    mem.maintain("support", now="2026-07-05T09:00:00Z")
    found = mem.recall("support", question, now="2026-07-05T09:00:00Z").memories
    assert found and answer in found[0].text and found[0].source_id == "guide"
    chat = [m for m in mem.recall("support", "weather 날씨", now="2026-07-05T09:00:00Z", limit=20).memories
            if m.source_id != "guide"]
    assert chat == []  # the small talk of the same day faded and was archived


def test_a_caller_may_let_a_document_fade(mem: Memory) -> None:
    mem.retain("notes", text="이번 주 점심 메뉴: 월요일 김치찌개, 화요일 비빔밥.", document_id="menu",
               timestamp="2026-01-05T09:00:00Z", decay_class="transient")
    assert {m.decay_class for m in mem.recall("notes", "점심 메뉴", now="2026-01-06").memories} == {"transient"}
    mem.maintain("notes", now="2026-07-05T09:00:00Z")
    assert mem.recall("notes", "점심 메뉴", now="2026-07-05T09:00:00Z").memories == []


def test_explain_reports_the_decay_verdict(mem: Memory) -> None:
    mem.retain("u", messages=[
        {"id": "a", "speaker": "민지", "text": "나 땅콩 알레르기 있어.", "timestamp": "2026-01-05T09:00:00+09:00"},
        {"id": "b", "speaker": "Minji", "text": "I'm a bit tired today.", "timestamp": "2026-01-05T09:01:00+09:00"}])
    mem.retain("u", text="Office hours are 9 to 6 on weekdays.", document_id="handbook")
    verdicts = {m.text: m.explanation["decay"] for m in mem.recall("u", "알레르기 tired office hours", explain=True,
                                                                     limit=10).memories}
    allergy = next(v for t, v in verdicts.items() if "땅콩" in t)
    assert allergy["class"] == "pinned" and allergy["reason"] and allergy["strength"] == 1.0
    tired = next(v for t, v in verdicts.items() if "tired" in t)
    assert tired["class"] == "transient" and tired["reason"]
    office = next(v for t, v in verdicts.items() if "Office" in t)
    assert office["class"] == "document" and "document" in office["reason"]
