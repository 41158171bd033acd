"""The public API end to end on the PostgreSQL store: retain, recall (Korean and English, as_of),
forget with proof, jobs — and the same answers as the SQLite store gives for the same input.

The server is the throw-away one of ``pg_server.py``; each test gets a fresh schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import Memory
from gieok.store import PostgresStore

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
KO_MARKER = "기밀표식쥐라기호랑이칠칠"
EN_MARKER = "Zebraquartz Marigoldia"
QUERIES = ["땅콩 들어간 과자 먹어도 돼?", "한라산 등산", "what milk do I drink now", "where does Hana live",
           "who likes hiking", "지난주에 뭐 했어?"]


@pytest.fixture
def pg_mem(pg_dsn_factory: Callable[[], str], fake_embedder: object) -> Iterator[Memory]:  # noqa: F811
    with Memory(store=PostgresStore(pg_dsn_factory()), embedder="fake") as memory:
        yield memory


def test_retain_and_recall_in_korean_and_english(pg_mem: Memory) -> None:
    result = pg_mem.retain("alice", messages=CHAT, document_id="chat-1")
    assert result.facts_added == 4 and result.chunks_total == len(CHAT)
    assert [m.text for m in pg_mem.source("alice", "chat-1").messages] == [m["text"] for m in CHAT]
    peanut = pg_mem.recall("alice", "땅콩 들어간 과자 먹어도 돼?", now="2026-05-10T09:00:00+09:00").memories
    assert "땅콩" in peanut[0].text and {"keyword", "semantic"} <= set(peanut[0].channels)
    hiking = pg_mem.recall("alice", "한라산 등산 했어?", now="2026-05-10T09:00:00+09:00").memories
    assert "한라산" in hiking[0].text  # "올랐어" and "한라산에" meet through Kiwi's lemmas
    milk = pg_mem.recall("alice", "what milk does she drink", limit=3).memories
    assert "oat milk" in milk[0].text
    hana = pg_mem.recall("alice", "Where does Hana live?", limit=3).memories
    assert "Toronto" in hana[0].text
    assert pg_mem.banks()[0].facts == 4 and pg_mem.sources("alice")[0].id == "chat-1"
    # re-retaining the same conversation changes nothing
    again = pg_mem.retain("alice", messages=CHAT, document_id="chat-1")
    assert again.facts_added == 0 and again.chunks_skipped == len(CHAT)


def test_recall_gives_the_same_answers_as_the_sqlite_store(pg_mem: Memory, tmp_path: Path) -> None:
    with Memory(str(tmp_path / "m.db"), embedder="fake") as sqlite_mem:
        for mem in (sqlite_mem, pg_mem):
            mem.retain("alice", messages=CHAT, document_id="chat-1")
            mem.retain("alice", text="The Berlin office moves to Alexanderplatz in June. 회의실은 3층이야.",
                       document_id="doc-1", timestamp="2026-05-07T10:00:00+00:00")
        for query in QUERIES:
            kwargs = {"now": "2026-05-10T09:00:00+09:00", "limit": 5, "explain": True}
            a, b = (m.recall("alice", query, **kwargs).memories for m in (sqlite_mem, pg_mem))
            assert [m.text for m in b] == [m.text for m in a], query
            assert [m.id for m in b] == [m.id for m in a], query
            for x, y in zip(a, b):
                assert y.channels.keys() == x.channels.keys(), query
                if "keyword" in x.channels:  # BM25 is the same formula on the same statistics
                    assert y.channels["keyword"].score == pytest.approx(x.channels["keyword"].score, rel=1e-6)


def test_forget_with_proof_checks_the_tables(pg_mem: Memory) -> None:
    pg_mem.retain("alice", messages=[
        {"id": "k1", "speaker": "alice", "text": f"내 비밀 코드명은 {KO_MARKER} 이야, 김민지 팀장한테만 말했어",
         "timestamp": "2026-03-02T10:00:00+09:00"},
        {"id": "k2", "speaker": "alice", "text": "나는 주말마다 한강에서 자전거를 타",
         "timestamp": "2026-03-02T10:01:00+09:00"},
    ], document_id="chat-ko")
    pg_mem.retain("alice", messages=[
        {"id": "e1", "speaker": "alice", "text": f"My favourite cafe is {EN_MARKER} near the Berlin gym",
         "timestamp": "2026-03-05T09:00:00+00:00"},
        {"id": "e2", "speaker": "alice", "text": "I also love hiking in the Alps every summer",
         "timestamp": "2026-03-05T09:01:00+00:00"},
    ], document_id="chat-en")
    before = pg_mem.verify_erased([KO_MARKER, EN_MARKER], deep=False)
    assert not before.clean and {f["table"] for f in before.found} >= {"messages", "facts", "chunks"}
    result = pg_mem.forget("alice", source_id="chat-ko", verify=True)
    assert result.erased["facts"] >= 2 and result.erased["sources"] == 1
    assert result.proof is not None and result.proof.clean and result.proof.vacuumed, result.proof
    assert "file" not in result.proof.checked  # a server database: the proof covers its tables
    assert pg_mem.verify_erased(KO_MARKER).clean
    # one message of the other conversation: cut from the evidence, the rest stays
    result = pg_mem.forget("alice", source_id="e1", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert [m.id for m in pg_mem.source("alice", "chat-en").messages] == ["e2"]
    assert pg_mem.verify_erased(EN_MARKER).clean
    assert any("Alps" in m.text for m in pg_mem.recall("alice", "hiking in the Alps").memories)
    entry = next(e for e in pg_mem.audit_log("alice") if e.operation == "forget")
    # no GIEOK_FINGERPRINT_KEY / fingerprint_key_file: a server database has no key, so no fingerprint
    assert entry.fingerprint is None and KO_MARKER not in str(entry)


def test_recall_as_of_sees_the_version_that_held_then(pg_mem: Memory) -> None:
    pg_mem.retain("u", messages=[{"id": "a1", "speaker": "user", "text": "The project deadline is Friday",
                                  "timestamp": "2026-03-02T10:00:00+09:00"}], document_id="s-a1")
    pg_mem.retain("u", messages=[{"id": "a2", "speaker": "user",
                                  "text": "Actually the project deadline moved to Monday",
                                  "timestamp": "2026-03-09T10:00:00+09:00"}], document_id="s-a2")
    query = "when is the project deadline"
    current = pg_mem.recall("u", query, limit=10, now="2026-03-10T10:00:00+09:00").memories
    monday = next(i for i, m in enumerate(current) if "Monday" in m.text)
    assert all(m.superseded_by and i > monday for i, m in enumerate(current) if m.text.endswith("is Friday"))
    newest = next(m for m in current if "Monday" in m.text)
    then = pg_mem.recall("u", query, limit=10, now="2026-03-05T10:00:00+09:00", as_of="2026-03-05T10:00:00+09:00")
    assert any(m.text.endswith("is Friday") for m in then.memories)
    assert not any("Monday" in m.text for m in then.memories)
    assert [v.text for v in pg_mem.history("u", newest.id)] == ["The project deadline is Friday",
                                                                 "Actually the project deadline moved to Monday"]
    # erasing the correction reopens the old version
    pg_mem.forget("u", memory_id=newest.id)
    assert any(m.text.endswith("is Friday") for m in pg_mem.recall("u", query, limit=10).memories)


def test_background_jobs_and_bank_deletion(pg_mem: Memory) -> None:
    pg_mem.retain("alice", messages=CHAT, document_id="chat-1")
    assert any(j.kind == "consolidate" for j in pg_mem.jobs("alice"))
    pg_mem.run_jobs(bank="alice")
    assert all(j.status != "queued" or j.kind != "consolidate" for j in pg_mem.jobs("alice"))
    counts = pg_mem.banks.delete("alice")
    assert counts.facts == 4 and pg_mem.banks() == []
    assert pg_mem.verify_erased(["나 땅콩 알레르기 있어", "My sister Hana lives in Toronto"]).clean


def test_erased_names_history_and_a_planted_leak_on_postgres(pg_mem: Memory,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import gieok.engine.forget.run as forget_module

    pg_mem.retain("b", messages=[
        {"id": "k1", "speaker": "alice", "text": "민지는 요즘 테니스를 배워", "timestamp": "2026-03-01T10:00:00+09:00"},
        {"id": "k2", "speaker": "alice", "text": "I met Caroline at the gym on Sunday",
         "timestamp": "2026-03-01T10:01:00+09:00"},
    ], document_id="keep")
    pg_mem.retain("b", messages=[
        {"id": "e1", "speaker": "alice", "text": "김민지 팀장은 Caroline Brightwater랑 속초 등대에서 만났어",
         "timestamp": "2026-03-02T10:00:00+09:00"},
    ], document_id="erase")
    pg_mem.run_jobs()
    markers = ["김민지", "속초", "등대", "Brightwater"]
    result = pg_mem.forget("b", source_id="erase", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert pg_mem.verify_erased(markers, deep=False).clean  # every table, any case, JSON escapes too
    assert sorted(e.name for e in pg_mem.entities("b")) == ["Caroline", "민지"]
    # a superseded version quoted in an observation's history
    pg_mem.retain("b", messages=[{"id": "v1", "speaker": "bob", "text": "The Zorblax report deadline is Friday",
                                  "timestamp": "2026-04-01T09:00:00+00:00"}])
    pg_mem.run_jobs()
    pg_mem.retain("b", messages=[{"id": "v2", "speaker": "bob",
                                  "text": "Actually the Zorblax report deadline moved to Monday",
                                  "timestamp": "2026-04-02T09:00:00+00:00"}])
    pg_mem.run_jobs()
    assert not pg_mem.verify_erased("Friday", deep=False).clean
    old = pg_mem.history("b", pg_mem.recall("b", "Zorblax deadline Monday").memories[0].id)[0]
    real = forget_module.prove_erased

    def planted_first(store: PostgresStore, forms: list[object], **kwargs: object) -> object:
        with store.write():
            store._require_write().execute(
                "INSERT INTO context_degrees (bank_id, key, degree) SELECT id, 'friday', 1 FROM banks")
        return real(store, forms, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(forget_module, "prove_erased", planted_first)
    result = pg_mem.forget("b", memory_id=old.id, verify=True)
    assert result.proof is not None and not result.proof.clean
    assert {f["table"] for f in result.proof.found} == {"context_degrees"}  # only the planted row
