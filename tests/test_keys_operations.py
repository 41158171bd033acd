"""Engine pieces the server stands on, on SQLite and PostgreSQL: API keys (only a digest stored, bank
scoping, roles, revocation), retains submitted to run in the background (operations) and a bank's
entities. Korean and English throughout."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import (
    BankNotFoundError,
    BlockedContentError,
    InputError,
    KeyRequiredError,
    Memory,
    OperationNotFoundError,
    PermissionDeniedError,
)
from gieok.engine.admin import keys
from gieok.store import PostgresStore

CHAT = [
    {"id": "k1", "speaker": "민지", "text": "나 다음 달에 부산으로 이사 가.", "timestamp": "2026-03-02T10:00:00+09:00"},
    {"id": "k2", "speaker": "Minji", "text": "My sister Hana works at Naver in Seongnam.",
     "timestamp": "2026-03-02T10:01:00+09:00"},
]


@pytest.fixture(params=["sqlite", "postgres"])
def any_mem(request: pytest.FixtureRequest, db_path: str, fake_embedder: object) -> Iterator[Memory]:
    if request.param == "sqlite":
        memory = Memory(db_path, embedder="fake")
    else:
        factory: Callable[[], str] = request.getfixturevalue("pg_dsn_factory")
        memory = Memory(store=PostgresStore(factory()), embedder="fake")
    with memory:
        yield memory


def test_a_key_is_shown_once_and_only_its_digest_is_stored(any_mem: Memory) -> None:
    record, secret = keys.create_key(any_mem.engine, role="write", banks=["민지", "alice"], name="laptop")
    assert secret.startswith("gk_") and len(secret) > 40 and record.prefix == secret[:10]
    assert record.banks == ["민지", "alice"] and record.role == "write" and record.revoked_at is None
    assert secret not in repr(keys.list_keys(any_mem.engine))
    if any_mem.store.file_backed:
        any_mem.store.erasure.vacuum()
        assert any_mem.store.erasure.file_contains([secret]) == []
    assert any_mem.store.erasure.scan([secret]) == []
    who = keys.authenticate(any_mem.engine, secret)
    assert who.sees("민지") and who.sees("alice") and not who.sees("bob")
    assert keys.list_keys(any_mem.engine)[0].last_used_at is not None


def test_roles_and_banks_decide_what_a_key_may_do(any_mem: Memory) -> None:
    _, reader = keys.create_key(any_mem.engine, role="read", banks=["alice"])
    _, admin = keys.create_key(any_mem.engine, role="admin")
    read = keys.authenticate(any_mem.engine, reader)
    read.require("alice", "read")
    with pytest.raises(PermissionDeniedError, match="--role write"):
        read.require("alice", "write")
    with pytest.raises(BankNotFoundError):  # another bank is "not found", never "forbidden"
        read.require("bob", "read")
    boss = keys.authenticate(any_mem.engine, admin)
    boss.require("bob", "admin")
    assert keys.key_count(any_mem.engine) == 2


def test_unknown_and_revoked_keys_are_refused(any_mem: Memory) -> None:
    record, secret = keys.create_key(any_mem.engine, role="read", banks=["alice"])
    for bad in (None, "", "gk_nope", secret + "x"):
        with pytest.raises(KeyRequiredError):
            keys.authenticate(any_mem.engine, bad)
    assert keys.revoke_key(any_mem.engine, record.id).revoked_at is not None
    with pytest.raises(KeyRequiredError, match="revoked"):
        keys.authenticate(any_mem.engine, secret)
    assert keys.key_count(any_mem.engine) == 0


def test_bad_key_requests_are_refused_with_the_fix() -> None:
    with pytest.raises(InputError, match="one of read, write, admin"):
        keys.create_key(_NoStore(), role="owner", banks=["a"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="--bank NAME"):
        keys.create_key(_NoStore(), role="read")  # type: ignore[arg-type]


class _NoStore:
    """An engine whose store must not be reached: the checks come first."""

    @property
    def store(self) -> object:
        raise AssertionError("the store was reached before the input was checked")


def test_a_submitted_retain_runs_as_a_job_and_reports_its_result(any_mem: Memory) -> None:
    op = any_mem.submit_retain("민지", messages=CHAT, document_id="chat-1")
    assert op.status == "queued" and op.bank == "민지" and op.result is None and op.id.startswith("op-")
    assert any_mem.sources("민지") == []  # nothing is written before the job runs
    any_mem.run_jobs(bank="민지")
    done = any_mem.operation(op.id)
    assert done.status == "done" and done.result is not None and done.result.facts_added == 2
    assert done.result.source_id == "chat-1"
    assert "부산" in any_mem.recall("민지", "민지 어디로 이사 가?").memories[0].text
    assert "Naver" in any_mem.recall("민지", "Where does Hana work?").memories[0].text
    names = {e.name for e in any_mem.entities("민지")}
    assert {"Hana", "부산", "Naver"} <= names


def test_a_submit_is_screened_before_it_is_queued(any_mem: Memory) -> None:
    with pytest.raises(InputError):
        any_mem.submit_retain("alice", messages=[{"id": "x", "speaker": "a", "text": "   "}])
    any_mem.set_redaction_policy("alice", {"kr_rrn": "block", "openai_key": "redact"})
    with pytest.raises(BlockedContentError):
        any_mem.submit_retain("alice", text="주민등록번호 900101-1234568 입니다")
    secret = "sk-" + "A1b2C3d4" * 5
    op = any_mem.submit_retain("alice", text=f"The deploy key is {secret} for staging.", document_id="d1")
    assert any_mem.store.erasure.scan([secret, "900101-1234568"]) == []  # the queue never holds the secret
    any_mem.run_jobs(bank="alice")
    result = any_mem.operation(op.id).result
    assert result is not None and result.redactions == 1
    assert secret not in (any_mem.source("alice", "d1").text or "")


def test_unknown_operations_are_not_found(any_mem: Memory) -> None:
    any_mem.retain("alice", messages=CHAT)  # its consolidation job is an operation too
    job = any_mem.jobs("alice")[0]
    consolidation = any_mem.operation(job.operation_id)
    assert (consolidation.kind, consolidation.status, consolidation.result) == ("consolidate", "queued", None)
    for bad in ("op-999", "nope", "op-x"):
        with pytest.raises(OperationNotFoundError):
            any_mem.operation(bad)


@pytest.mark.parametrize("name", ["민지\x00의 키", "agent\x00key", "x" * 201])
def test_a_bad_key_name_is_a_clear_error_and_creates_nothing(any_mem: Memory, name: str) -> None:
    # PostgreSQL cannot store a NUL in text: the name is checked before anything is written
    with pytest.raises(InputError, match="NUL|at most 200"):
        any_mem.keys.create(role="admin", name=name)
    assert any_mem.keys.list() == []
