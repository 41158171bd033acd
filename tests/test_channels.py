"""Entities, links, the graph and temporal channels, explain and the reranker, through the public API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from gieok import Memory
from gieok.providers.rerankers import Reranker, RerankerUnavailableError

KST = timezone(timedelta(hours=9))
TEAM = [
    {"id": "k1", "speaker": "지우", "text": "우리 팀장님 김민지 씨가 이번에 승진했어",
     "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "k2", "speaker": "지우", "text": "민지 씨는 요즘 필라테스에 푹 빠졌대",
     "timestamp": "2026-05-05T09:00:00+09:00"},
    {"id": "k3", "speaker": "지우", "text": "김 팀장님이 지난주에 부산 출장 갔다 왔어",
     "timestamp": "2026-05-12T09:00:00+09:00"},
    {"id": "k4", "speaker": "지우", "text": "사촌 민수가 어제 놀러 왔어",
     "timestamp": "2026-05-12T10:00:00+09:00"},
    {"id": "k5", "speaker": "지우", "text": "회사 동료 이민수 대리는 회의 때 늘 늦어",
     "timestamp": "2026-05-12T11:00:00+09:00"},
    {"id": "e1", "speaker": "Jiwoo", "text": "Caroline Smith joined our book club in Seoul.",
     "timestamp": "2026-03-02T20:00:00+09:00"},
    {"id": "e2", "speaker": "Jiwoo", "text": "Caroline said she trains for a marathon every morning.",
     "timestamp": "2026-03-03T20:00:00+09:00"},
]


def _entities(mem: Memory) -> dict[str, list[str]]:
    """canonical name → message ids of the facts that mention it (a test-only look into the store)."""
    rows = mem.store._conn().execute(  # type: ignore[attr-defined]
        "SELECT e.canonical_name, f.message_ids FROM entities e JOIN mentions m ON m.entity_id = e.id "
        "JOIN facts f ON f.id = m.fact_id ORDER BY f.id"
    ).fetchall()
    out: dict[str, list[str]] = {}
    for name, ids in rows:
        out.setdefault(name, []).extend(__import__("json").loads(ids))
    return out


def test_korean_and_english_names_resolve_to_one_entity_and_namesakes_stay_apart(mem: Memory) -> None:
    mem.retain("jiwoo", messages=TEAM)
    entities = _entities(mem)
    assert entities["김민지"] == ["k1", "k2", "k3"]      # 김민지 씨 / 민지 씨 / 김 팀장님
    assert entities["민수"] == ["k4"] and entities["이민수"] == ["k5"]  # cousin and coworker kept apart
    assert entities["Caroline Smith"] == ["e1", "e2"]
    assert "지우" not in entities and "Jiwoo" not in entities  # speakers are not made hub entities


def test_retain_resolves_relative_dates_against_the_message_time(mem: Memory) -> None:
    mem.retain("jiwoo", messages=TEAM)
    busan = mem.recall("jiwoo", "부산 출장", limit=1).memories[0]
    assert busan.source_ids == ["k3"]
    assert busan.occurred_start == datetime(2026, 5, 4, tzinfo=KST)  # "지난주" said on Tue 2026-05-12
    assert busan.occurred_end == datetime(2026, 5, 11, tzinfo=KST)
    assert busan.mentioned_at == datetime(2026, 5, 12, 9, tzinfo=KST)


def test_graph_channel_reaches_a_fact_through_a_shared_entity(mem: Memory) -> None:
    mem.retain("jiwoo", messages=TEAM)
    result = mem.recall("jiwoo", "김 팀장님은 무슨 운동 해?", explain=True, limit=10)
    pilates = next(m for m in result.memories if m.source_ids == ["k2"])
    assert "graph" in pilates.channels
    assert pilates.explanation is not None and "graph" in pilates.explanation["channels"]


CHAT = [
    {"id": "a1", "speaker": "Caroline", "text": "I painted a sunset over the lake last weekend.",
     "timestamp": "2026-06-01T10:00:00"},
    {"id": "a2", "speaker": "Melanie", "text": "Lovely! I painted my kids at the beach too.",
     "timestamp": "2026-06-01T10:01:00"},
    {"id": "a3", "speaker": "Caroline", "text": "My next one will be a mural of sunflowers.",
     "timestamp": "2026-06-01T10:02:00"},
    {"id": "b1", "speaker": "김민지", "text": "요즘 주말마다 수채화를 그려",
     "timestamp": "2026-06-02T10:00:00+09:00"},
    {"id": "b2", "speaker": "이서준", "text": "나도 유화 그리는 거 좋아해",
     "timestamp": "2026-06-02T10:01:00+09:00"},
    {"id": "b3", "speaker": "김민지", "text": "다음엔 해바라기 벽화를 그릴 거야",
     "timestamp": "2026-06-02T10:02:00+09:00"},
]


def test_context_vectors_can_be_turned_off_to_halve_the_embedding(db_path: str, fake_embedder) -> None:
    embedded = []
    for on in (True, False):
        messages = [{"id": "q", "speaker": "ann", "text": f"제주도 한라산 올라가 봤어? ({on})"},
                    {"id": "r", "speaker": "ben", "text": f"Yes, twice! ({on})"}]  # not in the embedder's cache
        with Memory(db_path, embedder="fake", context_vectors=on) as mem:
            before = sum(n for _, n in fake_embedder.calls)
            mem.retain(f"b{on}", messages=messages)
            embedded.append(sum(n for _, n in fake_embedder.calls) - before)
            bank = mem.store.banks.get(f"b{on}")
            ids = [int(m.id[2:]) for m in mem.recall(f"b{on}", "한라산", limit=10).memories]
            assert bool(mem.store.search.vectors_of(bank.dim, ids, view="context")) is on
    assert embedded == [3, 2]  # two own vectors, and the reply's context vector when on


@pytest.mark.parametrize(("query", "said_by", "other"), [
    ("What did Mel paint?", {"a2"}, {"a1", "a3", "b1", "b2", "b3"}),
    ("What does Caroline want to paint next?", {"a1", "a3"}, {"a2", "b1", "b2", "b3"}),
    ("민지는 뭘 그려?", {"b1", "b3"}, {"a1", "a2", "a3", "b2"}),
    ("서준이 좋아하는 그림은?", {"b2"}, {"a1", "a2", "a3", "b1", "b3"}),
])
def test_graph_channel_finds_what_a_named_speaker_said(mem: Memory, query: str, said_by: set[str],
                                                       other: set[str]) -> None:
    """A person the query names who speaks in the bank: their own words answer it, though they rarely
    name themselves ("Mel" is Melanie, "민지" is 김민지)."""
    from gieok.engine.recall.channels import graph_channel

    mem.retain("chat", messages=CHAT)
    bank = mem.store.banks.get("chat")
    by_message = {m.source_ids[0]: int(m.id[2:]) for m in mem.recall("chat", "그림 paint", limit=50).memories}
    assert len(by_message) == len(CHAT)
    ranked = graph_channel(mem.store, bank, query, [], 100,
                           pool=mem.store.facts.get(bank.id, sorted(by_message.values())))
    reached = {mid for mid, fid in by_message.items() if fid in {i for i, _ in ranked}}
    assert said_by <= reached and not (reached & other)


def test_keyword_terms_of_a_query_add_the_full_names_of_whom_it_names(mem: Memory) -> None:
    from gieok.engine.recall.gather import query_terms

    mem.retain("jiwoo", messages=TEAM)
    bank = mem.store.banks.get("jiwoo")
    assert "김민지" in query_terms(mem.store, bank, "민지 씨는 무슨 운동 해?")  # written 김민지 in k1
    assert "smith" in query_terms(mem.store, bank, "Does Caroline like marathons?")
    cousin = query_terms(mem.store, bank, "사촌 민수는 언제 놀러 왔어?")
    assert "민수" in cousin and "이민수" not in cousin  # the namesake stays apart


def test_temporal_channel_korean_and_english(mem: Memory) -> None:
    mem.retain("jiwoo", messages=TEAM)
    korean = mem.recall("jiwoo", "지난달 초에 무슨 일 있었어?", now="2026-04-10T12:00:00+09:00", explain=True)
    assert korean.time_range is not None and korean.time_range[0].date().isoformat() == "2026-03-01"
    top = [m.source_ids[0] for m in korean.memories if "temporal" in m.channels]
    assert set(top) == {"e1", "e2"}
    english = mem.recall("jiwoo", "what happened last week?", now="2026-05-19T12:00:00+09:00", explain=True)
    found = {m.source_ids[0] for m in english.memories if "temporal" in m.channels}
    assert {"k3", "k4", "k5"} <= found and "e1" not in found
    explanation = english.memories[0].explanation
    assert explanation is not None and set(explanation) >= {"channels", "fused", "features", "contributions",
                                                             "ranker", "multipliers", "time_range"}
    assert all(0.9 <= v <= 1.1 for v in explanation["multipliers"].values())


@pytest.mark.parametrize("question, reply, query", [
    ("제주도 한라산 올라가 봤어?", "응, 두 번이나!", "한라산 등산"),
    ("Have you climbed Mount Fuji?", "Yes, twice!", "climbed Mount Fuji"),
])
def test_semantic_channel_adds_the_similarity_of_a_replys_context(db_path: str, fake_embedder, question: str,
                                                                    reply: str, query: str) -> None:
    """A reply shares no word with the question it answers; its second vector (with that question) finds it,
    and its semantic score is the mean of both cosines."""
    with Memory(db_path, embedder="fake", channels="semantic") as mem:
        mem.retain("b", messages=[{"id": "q", "speaker": "ann", "text": question},
                                  {"id": "r", "speaker": "ben", "text": reply}])
        hits = {m.source_ids[0]: m for m in mem.recall("b", query, limit=10).memories}
    q = fake_embedder.embed_query(query)
    own, context = fake_embedder.embed([f"ben: {reply}", f"ann: {question}\nben: {reply}"], "document")
    assert hits["r"].channels["semantic"].score == pytest.approx(float(own @ q + context @ q) / 2, abs=1e-5)
    assert float(context @ q) > float(own @ q)
    asked = fake_embedder.embed([f"ann: {question}"], "document")[0]
    assert hits["q"].channels["semantic"].score == pytest.approx(float(asked @ q), abs=1e-5)  # no context


def test_channels_setting_turns_channels_off(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake", channels="keyword") as mem:
        mem.retain("jiwoo", messages=TEAM)
        result = mem.recall("jiwoo", "필라테스", limit=10)
        assert result.memories and all(set(m.channels) == {"keyword"} for m in result.memories)


class _ByLength(Reranker):
    model_id = "by-length"

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.fail = fail

    def score_pairs(self, query: str, documents: list[str]) -> list[float]:
        if self.fail:
            raise RerankerUnavailableError("down")
        return [float(len(d)) for d in documents]


@pytest.mark.parametrize("fail", [False, True])
def test_reranker_reorders_the_fused_top_or_falls_back(db_path: str, fake_embedder, fail: bool) -> None:
    with Memory(db_path, embedder="fake") as plain:
        plain.retain("jiwoo", messages=TEAM)
        fused = [m.id for m in plain.recall("jiwoo", "민지 필라테스 부산", limit=5).memories]
    with Memory(db_path, embedder="fake", reranker=_ByLength(fail)) as mem:
        result = mem.recall("jiwoo", "민지 필라테스 부산", limit=5)
        if fail:
            assert [m.id for m in result.memories] == fused
        else:
            lengths = [len(m.text) for m in result.memories]
            assert lengths == sorted(lengths, reverse=True)
            assert all(m.channels["rerank"].rank == i for i, m in enumerate(result.memories, start=1))
