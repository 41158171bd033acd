"""``present_recency``: a question about the present ("지금 어디 살아?", "Where does Tom live now?")
lets the latest statement count more than recency's usual ±5 %; a question without such a word, and
one about the past, keep the usual reach. Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory

SAID = {"en": ["Tom lives in Austin near the lake", "Tom is in Denver these days"],
        "ko": ["태윤은 수원 호수공원 근처에 살아", "태윤 요즘 분당 정자동에 있어"]}
ASKED = {  # (question, asks about the present)
    "en": [("Where does Tom live now?", True), ("Where does Tom live currently?", True),
           ("Where does Tom live?", False), ("Where did Tom live originally, before now?", False)],
    "ko": [("태윤 지금 어디 살아?", True), ("태윤 요즘 어디 살아?", True), ("태윤 어디 살아?", False),
           ("태윤 원래 어디 살았어? 지금 말고", False)],
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_question_about_now_widens_recency(db_path: str, fake_embedder: object, lang: str) -> None:
    messages = [{"id": "old", "speaker": "user", "text": SAID[lang][0], "timestamp": "2025-01-10T12:00:00+09:00"},
                {"id": "new", "speaker": "user", "text": SAID[lang][1], "timestamp": "2026-04-30T12:00:00+09:00"}]
    with Memory(db_path, embedder="fake", supersede=False) as memory:
        memory.retain(lang, messages, document_id="chat")
        for question, present in ASKED[lang]:
            found = {m.source_ids[0]: m for m in memory.recall(lang, question, limit=5, explain=True,
                                                                now="2026-05-01T12:00:00+09:00").memories}
            recency = {i: m.explanation["multipliers"]["recency"] for i, m in found.items() if m.explanation}
            reach = 0.3 if present else 0.05  # present_recency's default, recency's usual reach
            assert recency["new"] == pytest.approx(1 + reach, abs=0.01), question
            assert 1 - reach <= recency["old"] < 1 - reach + 0.5 * reach, question  # 15 months old
            if present:
                assert recency["new"] / recency["old"] > 1.5


def test_the_reach_is_a_setting(db_path: str, fake_embedder: object) -> None:
    with Memory(db_path, embedder="fake", present_recency=0.05) as memory:
        memory.retain("b", [{"speaker": "user", "text": SAID["en"][1], "timestamp": "2025-01-10T12:00:00+09:00"}])
        hit = memory.recall("b", "Where does Tom live now?", explain=True, now="2026-05-01T12:00:00+09:00").memories[0]
        assert hit.explanation is not None and hit.explanation["multipliers"]["recency"] < 0.97
