"""Redaction inside retain: secrets never reach the file, policies per bank, refusals store nothing."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

from gieok import BlockedContentError, ConfigError, Memory

SECRETS = {
    "openai_key": "sk-proj-" + "a1B2" * 12,
    "anthropic_key": "sk-ant-api03-" + "Zx9_" * 20 + "AA",
    "github_token": "ghp_" + "k3Y7" * 9,
    "kr_phone": "010-9876-5432",
    "kr_rrn": "900101-1234568",
    "email": "minji.kim@example.co.kr",
    "credit_card": "4111 1111 1111 1111",
}
MESSAGES = [
    {"id": "s1", "speaker": "민지", "text": f"내 키는{SECRETS['openai_key']}이야 잘 보관해 줘",
     "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "s2", "speaker": "민지", "text": f"연락처는 {SECRETS['kr_phone']}, 메일은 {SECRETS['email']}"},
    {"id": "s3", "speaker": "Minji",
     "text": f"Use {SECRETS['anthropic_key']} and {SECRETS['github_token']} for the deploy"},
    {"id": "s4", "speaker": "민지", "text": f"주민번호 {SECRETS['kr_rrn']} 카드 {SECRETS['credit_card']} 로 결제했어"},
]


def _raw_bytes(db_path: str) -> bytes:
    return b"".join(Path(p).read_bytes() for p in glob.glob(db_path + "*"))


def test_secrets_never_reach_the_database_file(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake") as mem:
        result = mem.retain("minji", messages=MESSAGES)
        assert result.redactions == len(SECRETS)
        mem.retain("minji", text=f"Ops notes. The DB is postgres://admin:{'hunter2hunter2'}@db.internal:5432/app",
                   document_id="ops", metadata={"owner": SECRETS["email"]})
        stored = mem.source("minji", result.source_id).messages
        assert "[REDACTED:openai_key]" in stored[0].text and "[REDACTED:kr_phone]" in stored[1].text
        for memory in mem.recall("minji", "키 연락처 deploy 결제", limit=50).memories:
            assert not any(secret in memory.text for secret in SECRETS.values())
        audit = mem.audit_log("minji")
        assert {e.type for e in audit} >= set(SECRETS)
        assert all(secret not in str(audit) for secret in SECRETS.values())
    raw = _raw_bytes(db_path)
    for name, secret in {**SECRETS, "db_password": "hunter2hunter2"}.items():
        assert secret.encode() not in raw, name
    assert b"minji.kim" not in raw


def test_block_policy_refuses_the_whole_call_and_stores_nothing(mem: Memory) -> None:
    mem.retain("minji", messages=[{"id": "ok", "speaker": "민지", "text": "오늘 점심은 김치찌개"}])
    mem.set_redaction_policy("minji", {"kr_rrn": "block"})
    with pytest.raises(BlockedContentError, match="kr_rrn") as info:
        mem.retain("minji", messages=MESSAGES)
    assert info.value.items == ["s4"]  # type: ignore[attr-defined]
    assert [m.id for m in mem.source("minji", "conversation-ok").messages] == ["ok"]
    assert [s.id for s in mem.sources("minji")] == ["conversation-ok"]
    refused = [e for e in mem.audit_log("minji") if e.operation == "retain-refused"]
    assert [(e.item_id, e.type) for e in refused if e.action == "block"] == [("s4", "kr_rrn")]


def test_allow_policy_and_memory_default(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake", redaction={"email": "allow"}) as mem:
        mem.retain("a", messages=[{"id": "1", "speaker": "a", "text": f"mail me at {SECRETS['email']}"}])
        assert SECRETS["email"] in mem.source("a", "conversation-1").messages[0].text
        mem.set_redaction_policy("b", {"default": "redact"})
        mem.retain("b", messages=[{"id": "1", "speaker": "b", "text": f"mail me at {SECRETS['email']}"}])
        assert "[REDACTED:email]" in mem.source("b", "conversation-1").messages[0].text
        assert mem.redaction_policy("b").action_for("email") == "redact"
        with pytest.raises(ConfigError, match="email"):
            mem.set_redaction_policy("b", {"emial": "allow"})
