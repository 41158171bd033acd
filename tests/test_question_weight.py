"""A memory that only asks ("What did you eat in Busan?") states nothing the question "What did Sam
eat in Busan?" needs: the learned ranker reads that as a feature (``question_only``) beside the
ones that answer. Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory

CHATS = {
    "en": ([("Mina", "What did you eat in Busan last weekend?"),
            ("Sam", "Pork soup near the station in Busan, last weekend, it was great.")],
           "What did Sam eat in Busan last weekend?"),
    "ko": ([("민아", "지난 주말에 부산에서 뭐 먹었어?"),
            ("수호", "부산역 근처에서 돼지국밥 먹었어, 지난 주말에 부산에서.")],
           "수호 지난 주말에 부산에서 뭐 먹었어?"),
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_memory_that_only_asks_is_marked_for_the_ranker(db_path: str, fake_embedder: object, lang: str) -> None:
    said, question = CHATS[lang]
    with Memory(db_path, embedder="fake") as memory:
        memory.retain(lang, [{"id": f"m{i}", "speaker": who, "text": text, "timestamp": "2026-05-04T12:00:00+09:00"}
                             for i, (who, text) in enumerate(said)], document_id="chat")
        found = {m.source_ids[0]: m for m in memory.recall(lang, question, limit=5, explain=True).memories}
    assert found["m0"].explanation is not None and found["m0"].explanation["features"]["question_only"] == 1.0
    assert found["m1"].explanation is not None and found["m1"].explanation["features"]["question_only"] == 0.0
