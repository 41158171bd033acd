"""Retain and recall through the public API, Korean and English, on a real SQLite file."""

from __future__ import annotations

import pytest

from gieok import (
    BankNotFoundError,
    EmbedderMismatchError,
    InputError,
    InvalidMessageError,
    InvalidTimeError,
    Memory,
    MemoryNotFoundError,
    SourceNotFoundError,
)
from gieok.records import DeletedBank

CHAT = [
    {"id": "m1", "speaker": "alice", "text": "나 땅콩 알레르기 있어", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "m2", "speaker": "assistant", "text": "알겠어요, 기억할게요.", "timestamp": "2026-05-04T09:00:05+09:00"},
    {"id": "m3", "speaker": "alice", "text": "지난주에 한라산에 올랐어. 정상에서 본 풍경이 최고였어!",
     "timestamp": "2026-05-04T09:01:00+09:00"},
    {"id": "m4", "speaker": "alice", "text": "ㅋㅋ 고마워", "timestamp": "2026-05-04T09:02:00+09:00"},
    {"id": "m5", "speaker": "alice", "text": "I switched from almond milk to oat milk last month.",
     "timestamp": "2026-05-05T08:00:00+09:00"},
    {"id": "m6", "speaker": "alice", "text": "ok thanks", "timestamp": "2026-05-05T08:00:30+09:00"},
    {"id": "m7", "speaker": "alice", "text": "My sister Hana lives in Toronto and loves hiking.",
     "timestamp": "2026-05-06T20:00:00+09:00"},
]


def test_retain_keeps_source_verbatim_and_skips_small_talk(mem: Memory) -> None:
    result = mem.retain("alice", messages=CHAT)
    # m2 is a reply with content ("알겠어요, 기억할게요." is an acknowledgement: small talk), m4/m6 small talk
    assert result.facts_added == 4
    assert result.chunks_total == len(CHAT)
    source = mem.source("alice", result.source_id)
    assert [m.text for m in source.messages] == [m["text"] for m in CHAT]
    assert [m.id for m in source.messages] == [m["id"] for m in CHAT]


def test_recall_korean_lemmas_reach_conjugated_text(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT)
    result = mem.recall("alice", "한라산 오르다", now="2026-06-01")
    top = result.memories[0]
    assert top.source_ids == ["m3"]
    assert "keyword" in top.channels and top.channels["keyword"].rank == 1
    assert top.mentioned_at is not None and top.mentioned_at.isoformat() == "2026-05-04T09:01:00+09:00"
    assert top.speaker == "alice" and top.kind == "world"


def test_recall_english_stems(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT)
    result = mem.recall("alice", "Who went hiking in Toronto?")
    assert result.memories[0].source_ids == ["m7"]
    assert result.memories[0].channels["keyword"].rank == 1


def test_recall_never_returns_small_talk_and_respects_limit(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT)
    result = mem.recall("alice", "고마워 thanks", limit=10)
    assert all(m.source_ids[0] not in ("m4", "m6") for m in result.memories)
    assert len(mem.recall("alice", "milk", limit=2).memories) == 2


def test_budget_is_filled_greedily_and_always_returns_the_best(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT)
    everything = mem.recall("alice", "alice", limit=50)
    assert len(everything.memories) == 4
    tiny = mem.recall("alice", "oat milk almond", max_tokens=1)
    assert len(tiny.memories) == 1 and tiny.memories[0].source_ids == ["m5"]
    budget = everything.memories[0].tokens + min(m.tokens for m in everything.memories[1:])
    bounded = mem.recall("alice", "alice", max_tokens=budget, limit=50)
    assert bounded.total_tokens <= budget
    assert bounded.total_tokens == sum(m.tokens for m in bounded.memories)
    assert len(bounded.memories) == 2  # the best, then the next one that fits (a larger one was skipped)


def test_document_rechunk_only_changed_chunks(mem: Memory, fake_embedder) -> None:
    # three paragraphs of ~1,000 characters: each its own chunk (chunk_chars = 1,500)
    paragraphs = [
        "Quarterly report draft. Revenue grew 12% in Q3. " * 20,
        "3분기 비용은 작년과 비슷했다. 채용은 9월에 멈췄다. " * 30,
        "Hiring paused in September. The Busan office opens next year. " * 16,
    ]
    doc = "\n\n".join(paragraphs)
    first = mem.retain("alice", text=doc, document_id="report-q3", timestamp="2026-10-01")
    assert first.chunks_total == 3 and first.chunks_skipped == 0 and first.facts_added >= 3
    again = mem.retain("alice", text=doc, document_id="report-q3")
    assert again.facts_added == 0 and again.chunks_skipped == 3
    calls_before = len(fake_embedder.calls)
    edited = doc.replace("3분기 비용은 작년과 비슷했다.", "3분기 비용은 작년보다 20% 늘었다.")
    changed = mem.retain("alice", text=edited, document_id="report-q3")
    assert changed.chunks_total == 3 and changed.chunks_skipped == 2
    assert changed.facts_removed >= 1 and changed.facts_added >= 1
    assert len(fake_embedder.calls) > calls_before  # only the changed chunk was embedded again
    recalled = mem.recall("alice", "비용이 늘다")
    assert recalled.memories[0].source_ids == ["report-q3"]
    assert "20% 늘었다" in recalled.memories[0].text
    assert all("비슷했다" not in m.text for m in mem.recall("alice", "비용", limit=100).memories)
    assert mem.source("alice", "report-q3").text == edited


def test_reretain_conversation_is_idempotent_and_updates_changed_messages(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT, document_id="chat-1")
    again = mem.retain("alice", messages=CHAT, document_id="chat-1")
    assert again.facts_added == 0 and again.chunks_skipped == len(CHAT)
    edited = [dict(m) for m in CHAT]
    edited[0]["text"] = "나 땅콩이 아니라 호두 알레르기 있어"
    result = mem.retain("alice", messages=edited, document_id="chat-1")
    assert result.facts_added == 1 and result.facts_removed == 1
    hits = mem.recall("alice", "호두 알레르기").memories
    assert hits[0].text == "나 땅콩이 아니라 호두 알레르기 있어"
    assert all("땅콩 알레르기 있어" != m.text for m in mem.recall("alice", "땅콩", limit=50).memories)


def test_messages_retained_one_call_at_a_time_get_conversation_context(mem: Memory, fake_embedder) -> None:
    mem.retain("alice", messages=[{"id": "q1", "speaker": "bob", "text": "Where did you go skiing?"}], document_id="c")
    mem.retain("alice", messages=[{"id": "a1", "speaker": "alice", "text": "Niseko, twice!"}], document_id="c")
    hit = mem.recall("alice", "skiing trip", limit=5).memories
    answer = next(m for m in hit if m.source_ids == ["a1"])
    assert "keyword" in answer.channels  # found through the question it answers


def test_get_banks_sources_and_persistence(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("alice", messages=CHAT, document_id="chat-1")
        mem.retain("bob", text="Bob likes 김치찌개.", document_id="bob-notes")
        memory_id = mem.recall("alice", "oat milk").memories[0].id
    with Memory(db_path, embedder="fake") as mem:
        assert [(b.name, b.sources, b.facts) for b in mem.banks()] == [("alice", 1, 4), ("bob", 1, 1)]
        assert [s.id for s in mem.sources("alice")] == ["chat-1"]
        got = mem.get("alice", memory_id)
        assert got.text == "I switched from almond milk to oat milk last month." and got.source_ids == ["m5"]
        with pytest.raises(MemoryNotFoundError):
            mem.get("bob", memory_id)  # ids do not cross banks
        # banks are isolated: bob's recall never sees alice's facts
        assert all(m.source_id == "bob-notes" for m in mem.recall("bob", "oat milk almond").memories)


def test_delete_bank_removes_everything(mem: Memory) -> None:
    mem.retain("alice", messages=CHAT)
    mem.retain("bob", messages=[{"id": "b1", "speaker": "bob", "text": "Bob's cat is Nabi"}])
    counts = mem.banks.delete("alice")
    assert counts == DeletedBank(facts=4, chunks=7, messages=7, sources=1)
    assert [b.name for b in mem.banks()] == ["bob"]
    with pytest.raises(BankNotFoundError):
        mem.recall("alice", "땅콩")
    assert mem.recall("bob", "cat Nabi").memories[0].source_ids == ["b1"]


@pytest.mark.parametrize(
    ("messages", "error", "fragment"),
    [
        ([{"id": "x", "speaker": "a"}], InvalidMessageError, "has no text"),
        ([{"id": "x", "speaker": "a", "text": "   "}], InvalidMessageError, "has no text"),
        ([{"id": "x", "speaker": "a", "text": "hi there friend", "timestamp": "어제쯤"}],
         InvalidMessageError, "ISO 8601"),
        ([{"id": "x", "text": "a"}, {"id": "x", "text": "b"}], InvalidMessageError, "appears twice"),
        (["just a string"], InvalidMessageError, "expected an object"),
        ([], InvalidMessageError, "empty"),
    ],
)
def test_bad_input_raises_typed_errors_and_loses_nothing(mem: Memory, messages, error, fragment) -> None:
    mem.retain("alice", messages=CHAT)
    before = mem.recall("alice", "oat milk", limit=50).memories
    with pytest.raises(error, match=fragment):
        mem.retain("alice", messages=messages)
    after = mem.recall("alice", "oat milk", limit=50).memories
    assert [m.id for m in after] == [m.id for m in before]


def test_other_errors(mem: Memory) -> None:
    with pytest.raises(BankNotFoundError, match="retain something"):
        mem.recall("nobody", "anything")
    mem.retain("alice", messages=CHAT)
    with pytest.raises(InputError):
        mem.retain("alice", messages=CHAT, text="both")
    with pytest.raises(InputError):
        mem.recall("alice", "  ")
    with pytest.raises(InvalidTimeError):
        mem.recall("alice", "milk", now="next tuesday-ish")
    with pytest.raises(SourceNotFoundError):
        mem.source("alice", "nope")
    with pytest.raises(InputError, match="document"):
        mem.retain("alice", text="a doc", document_id=mem.sources("alice")[0].id)


def test_a_bank_refuses_another_embedder(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("alice", messages=CHAT)
    with Memory(db_path, embedder="use-multilingual") as other:
        with pytest.raises(EmbedderMismatchError, match="fake"):
            other.recall("alice", "milk")
        with pytest.raises(EmbedderMismatchError):
            other.retain("alice", messages=[{"id": "z", "text": "new stuff here"}])


def test_a_database_from_before_context_vectors_gains_them_when_opened(db_path: str, fake_embedder) -> None:
    """Migration 0005 adds the context-vector table to a file whose banks predate it; the facts
    already there keep their one vector and recall still finds them."""
    first = [{"id": "a", "speaker": "ann", "text": "제주도 한라산 올라가 봤어?"},
             {"id": "b", "speaker": "ben", "text": "Yes, twice!"}]
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("old", messages=first)
        with mem.store.write():
            conn = mem.store._require_write()  # type: ignore[attr-defined]
            conn.execute("DROP TABLE vecctx_64")
            conn.execute("DELETE FROM schema_migrations WHERE name = '0005_context_vectors'")
    with Memory(db_path, embedder="fake") as mem:
        assert [m.source_ids for m in mem.recall("old", "Yes twice", limit=1).memories] == [["b"]]
        mem.retain("old", messages=[{"id": "c", "speaker": "ann", "text": "How was the hike?"},
                                    {"id": "d", "speaker": "ben", "text": "Windy but great"}])
        reply = next(m for m in mem.recall("old", "windy hike", limit=10).memories if m.source_ids == ["d"])
        assert mem.store.search.vectors_of(64, [int(reply.id[2:])], view="context")
