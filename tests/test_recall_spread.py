"""A long message makes many facts that match a question alike: the learned ranker sees, for each
candidate, how many candidates share its message and its place among them (``same_message``,
``message_place``), so it can spread its top results over messages. Korean and English."""

from __future__ import annotations

import math

import pytest

from gieok import Memory

CASES = {
    "en": ("The staging deploy uses Docker images. The staging deploy runs on two Kubernetes nodes. "
           "The staging deploy needs a Postgres database. The staging deploy has a health check endpoint.",
           ["The staging deploy failed on Monday night.", "Tom fixed the staging deploy on Tuesday."],
           "staging deploy"),
    "ko": ("스테이징 배포는 도커 이미지를 써. 스테이징 배포는 쿠버네티스 노드 두 대에서 돌아. "
           "스테이징 배포에는 포스트그레스 데이터베이스가 필요해. 스테이징 배포에는 헬스 체크 엔드포인트가 있어.",
           ["스테이징 배포가 월요일 밤에 실패했어.", "화요일에 민수가 스테이징 배포를 고쳤어."],
           "스테이징 배포"),
}


def _retain(mem: Memory, bank: str, long: str, short: list[str]) -> None:
    messages = [{"id": "long", "speaker": "assistant", "text": long, "timestamp": "2026-03-02T09:00:00Z"}]
    messages += [{"id": f"m{i}", "speaker": "user", "text": text, "timestamp": f"2026-03-0{3 + i}T09:00:00Z"}
                 for i, text in enumerate(short)]
    mem.retain(bank, messages=messages)


@pytest.mark.parametrize("lang", CASES)
def test_the_ranker_sees_how_many_candidates_share_a_message(db_path: str, fake_embedder: object, lang: str) -> None:
    long, short, query = CASES[lang]
    # a message longer than max_fact_chars is split into sentence-group facts: here, one per sentence
    with Memory(db_path, embedder="fake", max_fact_chars=40) as mem:
        _retain(mem, "b", long, short)
        ranked = mem.recall("b", query, limit=10, explain=True).memories
    pieces = [m.explanation["features"] for m in ranked if m.source_ids[0] == "long"]  # type: ignore[index]
    alone = [m.explanation["features"] for m in ranked if m.source_ids[0] != "long"]  # type: ignore[index]
    assert len(pieces) >= 3 and alone
    assert all(f["same_message"] == pytest.approx(math.log(len(pieces)), abs=1e-3) for f in pieces)
    assert sorted(f["message_place"] for f in pieces) == list(range(len(pieces)))
    assert all(f["same_message"] == 0.0 and f["message_place"] == 0.0 for f in alone)


REPLIES = {
    "en": ("Which vet should I take Coco to?", "Yes, the one on Elm Street.",
           "The clinic on Elm Street is open late on Fridays. Parking is behind the bakery next door. "
           "Bring the vaccination booklet along. Ask for doctor Park, who knows small dogs well.",
           "Coco"),
    "ko": ("코코 어느 동물병원에 데려가야 해?", "응, 느티나무길에 있는 곳.",
           "느티나무길 병원은 금요일에 늦게까지 열어. 주차는 옆 빵집 뒤에 하면 돼. "
           "접종 수첩을 꼭 챙겨 가. 소형견을 잘 아는 박 선생님을 찾아.",
           "데려가"),
}


@pytest.mark.parametrize("lang", REPLIES)
def test_only_a_short_reply_borrows_the_question_words(db_path: str, fake_embedder: object, lang: str) -> None:
    question, short, long, word = REPLIES[lang]
    with Memory(db_path, embedder="fake", channels="keyword", max_fact_chars=60) as mem:
        for bank, reply in (("short", short), ("long", long)):
            mem.retain(bank, messages=[
                {"id": "q", "speaker": "user", "text": question, "timestamp": "2026-03-02T09:00:00Z"},
                {"id": "a", "speaker": "assistant", "text": reply, "timestamp": "2026-03-02T09:01:00Z"}])
        # a short answer says little without its question, so the question's words find it
        assert "a" in {m.source_ids[0] for m in mem.recall("short", word, limit=5).memories}
        # a long one carries its own words: the question's words find the question, not each piece of the answer
        assert [m.source_ids[0] for m in mem.recall("long", word, limit=5).memories] == ["q"]
