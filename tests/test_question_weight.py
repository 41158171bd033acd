"""With ``question_weight`` below 1, a memory that only asks ranks below the one that answers it:
"What did you eat in Busan?" states nothing the question "What did Sam eat in Busan?" needs. The
default (1) keeps questions in place (README: it lowered BEAM). Korean and English."""

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


def _ranked(memory: Memory, lang: str) -> list[str]:
    said, question = CHATS[lang]
    memory.retain(lang, [{"id": f"m{i}", "speaker": who, "text": text, "timestamp": "2026-05-04T12:00:00+09:00"}
                         for i, (who, text) in enumerate(said)], document_id="chat")
    return [m.source_ids[0] for m in memory.recall(lang, question, limit=5, explain=True).memories]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_answer_ranks_above_the_question(db_path: str, fake_embedder: object, lang: str) -> None:
    # other_speaker_weight off: the question names Sam, whose own answer that setting alone lifts
    with Memory(db_path, embedder="fake", other_speaker_weight=1.0) as memory:
        assert _ranked(memory, lang)[0] == "m0"  # the question shares more of the query's words
    with Memory(db_path + ".2", embedder="fake", question_weight=0.8, other_speaker_weight=1.0) as memory:
        ranked = _ranked(memory, lang)
        assert ranked[:2] == ["m1", "m0"]
        top = memory.recall(lang, CHATS[lang][1], limit=5, explain=True).memories
        question = next(m for m in top if m.source_ids == ["m0"])
        assert question.explanation is not None and question.explanation["multipliers"]["question"] == 0.8
