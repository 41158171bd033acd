"""When the query names exactly one of the speakers it recalls — "What would Caroline pursue?" — the
learned ranker knows, for each candidate, whether that speaker said it (``names_speaker``) or
someone else did (``other_speaker``): a friend's "Wow, Caroline! What jobs are you thinking of?" is
not Caroline's answer. Korean and English."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gieok import Memory
from gieok.engine.recall.score import _one_named_speaker

CHATS = {
    "en": ([("Melanie", "Caroline, which fields would you pursue: counseling, mental health or writing fields?"),
            ("Caroline", "I'm keen on counseling.")],
           "Which fields would Caroline pursue: counseling, mental health or writing?"),
    "ko": ([("수아", "지현아 해보고 싶었던 마케팅 일이 어떤 거야?"),
            ("지현", "글로벌 마케팅 해보고 싶었어")],
           "지현이 해보고 싶었던 마케팅 일은 어떤 거야?"),
}


def _said_by(*speakers: str | None) -> list[Any]:
    return [SimpleNamespace(speaker=s) for s in speakers]  # the helper reads only who said each fact


@pytest.mark.parametrize(("query", "named"), [
    ("What would Caroline pursue?", "Caroline"), ("What did Caroline tell Melanie?", None),
    ("Where is the park?", None),
    ("지현이 다니는 회사는?", "지현"), ("지현과 수아는 어디 갔어?", None), ("회사 어디야?", None),
])
def test_the_one_speaker_a_query_names(query: str, named: str | None) -> None:
    assert _one_named_speaker(query, _said_by("Caroline", "Melanie", "지현", "수아", None)) == named


def test_one_speaker_alone_is_nothing_to_tell_apart() -> None:
    assert _one_named_speaker("What would Caroline pursue?", _said_by("Caroline", "Caroline", None)) is None


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_ranker_knows_who_the_query_names(db_path: str, fake_embedder: object, lang: str) -> None:
    said, question = CHATS[lang]
    with Memory(db_path, embedder="fake") as memory:
        memory.retain(lang, [{"id": f"m{i}", "speaker": who, "text": text, "timestamp": "2026-05-04T12:00:00+09:00"}
                             for i, (who, text) in enumerate(said)], document_id="chat")
        found = {m.source_ids[0]: m.explanation for m in memory.recall(lang, question, limit=5, explain=True).memories}
    friend, named = found["m0"], found["m1"]
    assert friend is not None and named is not None
    assert (friend["features"]["other_speaker"], friend["features"]["names_speaker"]) == (1.0, 0.0)
    assert (named["features"]["other_speaker"], named["features"]["names_speaker"]) == (0.0, 1.0)


@pytest.mark.parametrize(("said", "question"), [
    ([("Caroline", "What did you think of the pottery class?"), ("Melanie", "It was fun."),
      ("Caroline", "I love painting sunsets.")], "What does Caroline love?"),
    ([("지현", "너 주말에 뭐 했어?"), ("수아", "그냥 집에 있었어"), ("지현", "나 요즘 클라이밍에 빠졌어")],
     "지현이 요즘 빠진 건?"),
])
def test_the_graph_credits_what_a_named_speaker_states_not_what_they_ask(
        db_path: str, fake_embedder: object, said: list[tuple[str, str]], question: str) -> None:
    with Memory(db_path, embedder="fake") as memory:
        memory.retain("b", [{"id": f"m{i}", "speaker": who, "text": text} for i, (who, text) in enumerate(said)],
                      document_id="chat")
        found = {m.source_ids[0]: m for m in memory.recall("b", question, limit=5, explain=True).memories}
    assert "graph" in found["m2"].channels  # the named speaker's statement
    assert "m0" not in found or "graph" not in found["m0"].channels  # their question is not about them
