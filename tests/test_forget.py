"""Erasure with proof: forget by source, message, memory, entity and time; verify_erased scans tables,
FTS and vector shadow tables, and the file's bytes after VACUUM. Unique markers in Korean and English."""

from __future__ import annotations

import pytest

from gieok import Memory
from gieok.errors import InputError, MemoryNotFoundError, SourceNotFoundError

KO_MARKER = "기밀표식쥐라기호랑이칠칠"
EN_MARKER = "Zebraquartz Marigoldia"


def _conversation(mem: Memory, bank: str = "alice") -> None:
    mem.retain(bank, messages=[
        {"id": "m1", "speaker": "alice", "text": f"내 비밀 코드명은 {KO_MARKER} 이야, 김민지 팀장한테만 말했어",
         "timestamp": "2026-03-02T10:00:00+09:00"},
        {"id": "m2", "speaker": "bot", "text": "알겠어요, 기억할게요. 다른 이야기도 해 주세요.",
         "timestamp": "2026-03-02T10:00:30+09:00"},
        {"id": "m3", "speaker": "alice", "text": "나는 주말마다 한강에서 자전거를 타",
         "timestamp": "2026-03-02T10:01:00+09:00"},
    ], document_id="chat-1")
    mem.retain(bank, messages=[
        {"id": "e1", "speaker": "alice", "text": f"My favourite cafe is {EN_MARKER} near the Berlin gym",
         "timestamp": "2026-03-05T09:00:00+00:00"},
        {"id": "e2", "speaker": "bot", "text": "Noted, I will keep that in mind for later.",
         "timestamp": "2026-03-05T09:00:10+00:00"},
        {"id": "e3", "speaker": "alice", "text": "I also love hiking in the Alps every summer",
         "timestamp": "2026-03-05T09:01:00+00:00"},
    ], document_id="chat-2")


def test_forget_a_source_leaves_no_trace_even_in_the_file_bytes(mem: Memory) -> None:
    _conversation(mem)
    before = mem.verify_erased([KO_MARKER, EN_MARKER], deep=False)
    assert not before.clean and {f["table"] for f in before.found} >= {"messages", "facts"}
    result = mem.forget("alice", source_id="chat-1", verify=True)
    assert result.erased["facts"] >= 2 and result.erased["sources"] == 1
    assert result.proof is not None and result.proof.clean, result.proof
    proof = mem.verify_erased(KO_MARKER)
    assert proof.clean and "file" in proof.checked
    # the other conversation is untouched
    assert mem.verify_erased(EN_MARKER, deep=False).clean is False
    assert any(EN_MARKER in m.text for m in mem.recall("alice", "favourite cafe").memories)
    assert all("chat-1" != s.id for s in mem.sources("alice"))


def test_forget_one_message_cuts_it_from_the_evidence_and_the_replys_context(mem: Memory) -> None:
    _conversation(mem)
    reply = next(m for m in mem.recall("alice", "noted", limit=50).memories if m.source_ids == ["e2"])
    fact_id, dim = int(reply.id[2:]), mem.store.banks.get("alice").dim
    assert mem.store.search.vectors_of(dim, [fact_id], view="context")  # e2 answers e1: it has a context vector
    result = mem.forget("alice", source_id="e1", verify=True)
    assert result.proof is not None and result.proof.clean
    assert result.contexts_cleared >= 1
    assert mem.store.search.vectors_of(dim, [fact_id], view="context") == {}
    assert mem.store.search.vectors_of(dim, [fact_id])  # its own vector stays
    source = mem.source("alice", "chat-2")
    assert [m.id for m in source.messages] == ["e2", "e3"]
    assert mem.verify_erased("Berlin gym").clean


def test_forget_a_memory_cuts_its_text_out_of_the_message(mem: Memory) -> None:
    _conversation(mem)
    hit = next(m for m in mem.recall("alice", "비밀 코드명").memories if KO_MARKER in m.text)
    result = mem.forget("alice", memory_id=hit.id, verify=True)
    assert result.memory_ids == [hit.id] and result.proof is not None and result.proof.clean
    with pytest.raises(MemoryNotFoundError):
        mem.get("alice", hit.id)
    with pytest.raises(MemoryNotFoundError):
        mem.forget("alice", memory_id=hit.id)


def test_forget_an_entity_removes_every_fact_naming_them_and_the_name(mem: Memory) -> None:
    _conversation(mem)
    result = mem.forget("alice", entity="김민지", verify=True)
    assert result.erased["facts"] >= 1 and result.erased["entities"] >= 1
    assert result.proof is not None and result.proof.clean, result.proof
    assert mem.verify_erased("김민지").clean


def test_forget_before_a_time_keeps_what_came_after(mem: Memory) -> None:
    _conversation(mem)
    result = mem.forget("alice", before="2026-03-04", verify=True)
    assert result.proof is not None and result.proof.clean
    assert mem.verify_erased(KO_MARKER).clean
    assert not mem.verify_erased(EN_MARKER, deep=False).clean


def test_erasing_a_correction_reopens_the_version_it_closed(mem: Memory) -> None:
    mem.retain("bob", messages=[
        {"id": "d1", "speaker": "bob", "text": "The report deadline is Friday",
         "timestamp": "2026-04-01T09:00:00+00:00"},
    ])
    mem.retain("bob", messages=[
        {"id": "d2", "speaker": "bob", "text": "Actually the report deadline moved to Monday",
         "timestamp": "2026-04-02T09:00:00+00:00"},
    ])
    old = next(m for m in mem.recall("bob", "report deadline", as_of="2026-04-01T12:00:00+00:00").memories
               if "Friday" in m.text)
    assert [v.text for v in mem.history("bob", old.id)][-1].endswith("Monday")
    new_id = mem.history("bob", old.id)[-1].id
    mem.forget("bob", memory_id=new_id)
    assert mem.history("bob", old.id)[-1].id == old.id
    assert any("Friday" in m.text for m in mem.recall("bob", "report deadline").memories)


def test_bad_forget_calls_fail_clearly_and_delete_nothing(mem: Memory) -> None:
    _conversation(mem)
    count = mem.banks()[0].facts
    with pytest.raises(InputError, match="one of"):
        mem.forget("alice")
    with pytest.raises(SourceNotFoundError):
        mem.forget("alice", source_id="no-such-thing")
    with pytest.raises(InputError):
        mem.verify_erased([])
    assert mem.banks()[0].facts == count


def test_audit_log_records_the_erasure_without_the_text(mem: Memory) -> None:
    _conversation(mem)
    mem.forget("alice", source_id="chat-1")
    entry = next(e for e in mem.audit_log("alice") if e.operation == "forget")
    assert entry.count >= 2 and entry.fingerprint and KO_MARKER not in str(entry)


def test_deleting_a_bank_is_proven_too(mem: Memory) -> None:
    _conversation(mem)
    mem.banks.delete("alice")
    assert mem.verify_erased([KO_MARKER, EN_MARKER]).clean


@pytest.mark.parametrize(("old", "new"), [
    ("환불은 구매 후 7일 이내에 됩니다.", "환불은 구매 후 14일 이내에 됩니다."),
    ("Refunds are accepted within 7 days.", "Refunds are accepted within 14 days."),
])
def test_forgetting_a_document_erases_the_sections_its_new_versions_left_out(mem: Memory, old: str, new: str) -> None:
    marker = "zebraquartz" if old.isascii() else "얼룩말석영"
    first = f"# Policy\n\n{old} {marker} section.\n\n# Contact\n\nWrite to the help desk."
    mem.retain("kb", text=first, document_id="policy.md")
    mem.retain("kb", text=first.replace(f"{old} {marker} section.", new), document_id="policy.md")
    assert not mem.verify_erased(marker, deep=False).clean  # the left-out section is kept as history
    result = mem.forget("kb", source_id="policy.md", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert mem.verify_erased(marker).clean
