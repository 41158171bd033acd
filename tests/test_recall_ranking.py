"""Ranking slips a user notices (issue #12, item 6): a habitual "주말에 / on the weekend" is not last
weekend, and a replaced version never outranks what replaced it unless the question asks about the
past. Korean and English."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from gieok import Memory
from gieok.engine.recall.score import asks_for_history
from gieok.temporal import parse_time_range

NOW = datetime(2026, 5, 13, 12, tzinfo=timezone.utc)  # a Wednesday
LAST_WEEKEND = (datetime(2026, 5, 9, tzinfo=timezone.utc), datetime(2026, 5, 11, tzinfo=timezone.utc))


@pytest.mark.parametrize("habit", [
    "주말에 무슨 운동 해?", "주말마다 테니스 쳐", "매주 주말 등산 가", "주말엔 보통 집에 있어", "주말에 시간 있어?",
    "What do you do on the weekend?", "I usually relax on the weekend", "What sport do you play at the weekend?"])
def test_a_habitual_weekend_is_not_a_date(habit: str) -> None:
    assert parse_time_range(habit, NOW) is None


@pytest.mark.parametrize("past", [
    "주말에 뭐 했어?", "주말에 한라산에 올랐어", "주말 잘 보냈어?", "지난 주말", "주말에",
    "What did you do on the weekend?", "I went hiking on the weekend.", "over the weekend", "last weekend"])
def test_a_weekend_in_the_past_tense_is_the_last_one(past: str) -> None:
    assert parse_time_range(past, NOW) == LAST_WEEKEND


def test_a_habit_question_keeps_full_scores(mem: Memory) -> None:
    mem.retain("k", messages=[
        {"id": "c", "speaker": "민지", "text": "나는 주말마다 테니스 쳐.", "timestamp": "2026-01-05T09:00:00+09:00"},
        {"id": "d", "speaker": "Minji", "text": "I play squash on the weekend.",
         "timestamp": "2026-01-06T09:00:00+09:00"}])
    for question in ("주말에 무슨 운동 해?", "What sport do you play on the weekend?"):
        found = mem.recall("k", question, explain=True, now=NOW)
        assert found.time_range is None
        assert found.memories and all("time" not in m.explanation["multipliers"] for m in found.memories)


REPLACED = {
    "en": ([("I work at Samsung as a data engineer.", "2026-01-05T09:00:00Z"),
            ("Big news: I left Samsung and joined Kakao last week.", "2026-03-05T09:00:00Z")],
           "Where do I work?", "Where did I use to work originally?"),
    "ko": ([("나 삼성에서 데이터 엔지니어로 일해.", "2026-01-05T09:00:00+09:00"),
            ("나 삼성 그만두고 지난주에 카카오로 이직했어.", "2026-03-05T09:00:00+09:00")],
           "나 어디서 일해?", "나 원래 어디서 일했지?"),
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_replacement_ranks_above_the_version_it_replaced(mem: Memory, lang: str) -> None:
    said, now_question, past_question = REPLACED[lang]
    mem.retain(lang, messages=[{"id": f"m{i}", "speaker": "user", "text": text, "timestamp": ts}
                               for i, (text, ts) in enumerate(said)])
    found = mem.recall(lang, now_question, explain=True, now="2026-03-10")
    texts = [m.text for m in found.memories]
    old = next(m for m in found.memories if m.text == said[0][0])
    assert old.superseded_by is not None, "the precondition: the later message replaced the first"
    assert texts.index(said[1][0]) < texts.index(said[0][0])
    assert asks_for_history(past_question)
    past = mem.recall(lang, past_question, explain=True, now="2026-03-10").memories
    assert all("replaced" not in m.explanation["multipliers"] for m in past)
    assert said[0][0] in [m.text for m in past]


def test_replacements_first_moves_only_a_replaced_version_and_says_so() -> None:
    from gieok.engine.recall.score import Candidate, Features, replacements_first
    from gieok.records import FactRow

    def fact(i: int, by: int | None) -> FactRow:
        return FactRow(id=i, bank_id=1, source_id=1, source_external_id="s", chunk_id=1, text=f"t{i}", kind="world",
                       speaker=None, message_ids=[], occurred_start=None, occurred_end=None, mentioned_at=None,
                       utc_offset=None, valid_from=None, valid_to=1.0 if by else None, importance=0.5, pinned=False,
                       decay_class="standard", expires_at=None, tokens=3, superseded_by=by)

    def scored(i: int, score: float, by: int | None = None) -> Candidate:
        return Candidate(score, 3, Features(fact(i, by), {}, score))

    # 1 was replaced by 2 and 2 by 3 (a chain); 4 is unrelated and stays where it is
    ranked = replacements_first([scored(1, 0.9, by=2), scored(4, 0.8), scored(2, 0.5, by=3), scored(3, 0.1)],
                                lambda f: f.valid_to is not None)
    order = [c.features.fact.id for c in ranked if c.features is not None]
    assert order.index(3) < order.index(2) < order.index(1)
    assert order.index(4) < order.index(3)  # the unrelated one keeps its place above the chain's lift
    moved = {c.features.fact.id: c.multipliers for c in ranked if c.features is not None}
    assert moved[3]["replaces"] > 1.0  # the current version took the place of the one it replaced
    assert moved[1]["replaced"] < 1.0  # the first version stepped down below its replacement
    assert "replaces" not in moved[2]  # a replaced version is never lifted
    assert moved[4] == {}


@pytest.mark.parametrize(("question", "old", "new"), [
    ("민지는 무슨 운동 해?", "민지는 요즘 수영을 배워.", "민지는 주말마다 테니스를 쳐."),
    ("What sport does Tom play?", "Tom is learning to swim.", "Tom plays tennis every Sunday."),
])
def test_fusion_rrf_orders_by_the_channels_ranks_alone(db_path: str, fake_embedder, question: str,
                                                        old: str, new: str) -> None:
    """fusion="rrf": each memory's score is plain RRF over the channels that found it (k = 20, equal
    weights), the fixed formula to compare the learned ranker against; a bad value is refused."""
    from gieok.errors import ConfigError

    with Memory(db_path, embedder="fake", fusion="rrf") as mem:
        mem.retain("w", messages=[{"id": "o", "speaker": "a", "text": old, "timestamp": "2025-05-13T09:00:00Z"},
                                  {"id": "n", "speaker": "a", "text": new, "timestamp": "2026-05-12T09:00:00Z"}])
        found = mem.recall("w", question, explain=True, now=NOW).memories
        assert len(found) == 2
        for memory in found:
            explanation = memory.explanation
            assert explanation is not None and "contributions" not in explanation
            expected = sum(1 / (20 + hit["rank"]) for hit in explanation["channels"].values())  # type: ignore[union-attr]
            assert memory.score == pytest.approx(expected) == pytest.approx(explanation["fused"])
        assert found[0].score >= found[1].score
    with pytest.raises(ConfigError, match="learned, rrf"):
        Memory(db_path, embedder="fake", fusion="weighted")
