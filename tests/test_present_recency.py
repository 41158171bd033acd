"""A question about the present ("지금 어디 살아?", "Where does Tom live now?") or about an earlier
version ("원래 어디 살았어?") is a feature of every candidate the learned ranker reads (``asks_now``,
``asks_history``), beside each candidate's place among the pool's ages (``age_place``: 0 newest, 1
oldest). Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory

SAID = {"en": ["Tom lives in Austin near the lake", "Tom is in Denver these days"],
        "ko": ["태윤은 수원 호수공원 근처에 살아", "태윤 요즘 분당 정자동에 있어"]}
ASKED = {  # (question, asks about the present, asks about an earlier version)
    "en": [("Where does Tom live now?", True, False), ("Where does Tom live currently?", True, False),
           ("Where does Tom live?", False, False), ("Where did Tom live originally, before now?", False, True)],
    "ko": [("태윤 지금 어디 살아?", True, False), ("태윤 요즘 어디 살아?", True, False),
           ("태윤 어디 살아?", False, False), ("태윤 원래 어디 살았어? 지금 말고", False, True)],
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_what_the_question_asks_for_and_each_memorys_age(db_path: str, fake_embedder: object, lang: str) -> None:
    messages = [{"id": "old", "speaker": "user", "text": SAID[lang][0], "timestamp": "2025-01-10T12:00:00+09:00"},
                {"id": "new", "speaker": "user", "text": SAID[lang][1], "timestamp": "2026-04-30T12:00:00+09:00"}]
    with Memory(db_path, embedder="fake", supersede=False) as memory:
        memory.retain(lang, messages, document_id="chat")
        for question, now, history in ASKED[lang]:
            found = {m.source_ids[0]: m.explanation["features"]  # type: ignore[index]
                     for m in memory.recall(lang, question, limit=5, explain=True,
                                            now="2026-05-01T12:00:00+09:00").memories}
            assert {i: f["asks_now"] for i, f in found.items()} == {"old": float(now), "new": float(now)}, question
            assert found["old"]["asks_history"] == float(history), question
            assert (found["new"]["age_place"], found["old"]["age_place"]) == (0.0, 1.0)
            assert found["old"]["log_age_days"] > found["new"]["log_age_days"]
