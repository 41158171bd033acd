"""Hostile values at the edge of the library (issue 32, items 5 and 7), on SQLite and PostgreSQL: each
was an untyped exception (OverflowError, UnicodeEncodeError, psycopg DataError, ValueError) or was
stored as something no caller meant; now each is an InputError naming the argument, and a refused
call stores nothing. The MCP tools answer a bug without its internals."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from pg_server import pg_dsn_factory  # noqa: F401

from gieok import GieokError, InputError, Memory, NotFoundError
from gieok.engine.admin import keys

BIG = 2**63  # one past the widest integer either store keeps
LATE = "9999-12-31T23:59:59-14:00"  # year 10000 once read in UTC
EARLY = "0001-01-01T00:00:00+14:00"  # year 0 once read in UTC

REFUSED: dict[str, Callable[[Memory], Any]] = {
    "forget source_id surrogate": lambda m: m.forget("b", source_id="chat\ud800"),
    "forget entity surrogate": lambda m: m.forget("b", entity="\udc00민지"),
    "forget memory_id surrogate": lambda m: m.forget("b", memory_id="f-\ud800"),
    "profile person surrogate": lambda m: m.profile("b", "민지\ud800"),
    "lookup entity surrogate": lambda m: m.lookup("b", "allergy", "Minji\ud800"),
    "entity name surrogate": lambda m: m.browse.entity("b", "\ud800"),
    "source id surrogate": lambda m: m.source("b", "\ud800"),
    "retain text NUL": lambda m: m.retain("b", text="땅콩\x00 allergy"),
    "retain speaker NUL": lambda m: m.retain("b", [{"text": "hello", "speaker": "민\x00지"}]),
    "retain message id NUL": lambda m: m.retain("b", [{"text": "hello", "id": "m\x00"}]),
    "retain document_id NUL": lambda m: m.retain("b", text="hello", document_id="doc\x00"),
    "retain metadata NUL": lambda m: m.retain("b", text="hello", metadata={"채널": "slack\x00"}),
    "retain bank NUL": lambda m: m.retain("b\x00", text="hello"),
    "forget source_id NUL": lambda m: m.forget("b", source_id="chat\x00"),
    "forget entity NUL": lambda m: m.forget("b", entity="민지\x00"),
    "source NUL": lambda m: m.source("b", "chat\x00"),
    "profile NUL": lambda m: m.profile("b", "민지\x00"),
    "recall query NUL": lambda m: m.recall("b", "땅콩\x00"),
    "session turn NUL": lambda m: m.session("b", "s1").add("user", "hello\x00"),
    "mental model NUL": lambda m: m.models.add("b", "food\x00", "What does 민지 eat?"),
    "revoke key beyond 64 bits": lambda m: keys.revoke_key(m.engine, BIG),
    "merge suggestions limit beyond 64 bits": lambda m: m.browse.merge_suggestions("b", limit=BIG),
    "audit log limit beyond 64 bits": lambda m: m.audit_log("b", BIG),
    "jobs limit beyond 64 bits": lambda m: m.jobs("b", limit=BIG),
    "retain text an int": lambda m: m.retain("b", text=12345),
    "recall query an int": lambda m: m.recall("b", 12345),
    "reflect question an int": lambda m: m.reflect("b", 12345),
    "forget source_id an int": lambda m: m.forget("b", source_id=12345),
    "profile person an int": lambda m: m.profile("b", 12345),
    "message id an object": lambda m: m.retain("b", [{"text": "hello", "id": {}}]),
    "message id a list": lambda m: m.retain("b", [{"text": "hello", "id": ["m", 1]}]),
    "message id a bool": lambda m: m.retain("b", [{"text": "hello", "id": True}]),
    "message timestamp past 9999": lambda m: m.retain("b", [{"text": "hello", "timestamp": LATE}]),
    "message timestamp before year 1": lambda m: m.retain("b", [{"text": "hello", "timestamp": EARLY}]),
    "recall now past 9999": lambda m: m.recall("b", "땅콩", now=LATE),
    "recall as_of before year 1": lambda m: m.recall("b", "peanut", as_of=EARLY),
    "reflect now past 9999": lambda m: m.reflect("b", "What is 민지 allergic to?", now=LATE),
    "forget before past 9999": lambda m: m.forget("b", before=LATE),
    "a 10,000-character bank name": lambda m: m.retain("x" * 10_000, text="hello"),
    "jsonl import with a lone surrogate": lambda m: m.import_chat(
        "b", b'{"role": "user", "content": "\\ud800 \xeb\x95\x85\xec\xbd\xa9"}\n', "jsonl", name="s"),
    "jsonl import with NUL": lambda m: m.import_chat("b", b'{"role": "user", "content": "a\\u0000b"}\n', "jsonl",
                                                    name="n"),
    "jsonl import with a time past 9999": lambda m: m.import_chat(
        "b", b'{"role": "user", "content": "hello", "timestamp": 1e300}\n', "jsonl", name="t"),
    "jsonl import with an object id": lambda m: m.import_chat(
        "b", b'{"role": "user", "content": "hello", "id": {}}\n', "jsonl", name="i"),
    "chatgpt import with a number for a role": lambda m: m.import_chat("b", json.dumps([{"title": "t", "mapping": {
        "a": {"message": {"author": {"role": 5}, "content": {"parts": ["안녕"]}}}}}]).encode(), "chatgpt"),
    "chatgpt import with a list for a node": lambda m: m.import_chat(
        "b", json.dumps([{"title": "t", "mapping": {"a": [1]}}]).encode(), "chatgpt"),
}

NOT_FOUND: dict[str, Callable[[Memory], Any]] = {
    "memory id beyond 64 bits": lambda m: m.get("b", f"f-{BIG}"),
    "history id beyond 64 bits": lambda m: m.history("b", f"o-{2**64}"),
    "operation id beyond 64 bits": lambda m: m.operation(f"op-{BIG}"),
    "cancel id beyond 64 bits": lambda m: m.jobs.cancel(f"op-{2**70}"),
}


def _state(mem: Memory) -> list[tuple[str, int, int]]:
    return [(b.name, b.sources, b.facts) for b in mem.banks()]


@pytest.fixture
def bank(store_mem: Memory) -> Memory:
    store_mem.retain("b", [{"id": "m1", "speaker": "민지", "text": "나 땅콩 알레르기 있어."},
                           {"id": "m2", "speaker": "Minji", "text": "I am allergic to peanuts."}], document_id="chat")
    return store_mem


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_hostile_values_are_input_errors_and_store_nothing(bank: Memory, case: str) -> None:
    before = _state(bank)
    with pytest.raises(InputError) as refused:
        REFUSED[case](bank)
    assert "\x00" not in str(refused.value) and "12345" not in str(refused.value)
    assert _state(bank) == before
    assert bank.recall("b", "땅콩 peanut").memories  # nothing stored can make the bank unreadable


@pytest.mark.parametrize("case", sorted(NOT_FOUND))
def test_ids_beyond_64_bits_name_nothing(bank: Memory, case: str) -> None:
    with pytest.raises(NotFoundError):
        NOT_FOUND[case](bank)


def test_an_integer_message_id_is_kept_as_its_digits(bank: Memory) -> None:
    done = bank.retain("b", [{"id": 42, "speaker": "민지", "text": "I moved to Busan in March."}])
    assert done.source_id == "conversation-42"
    assert [m.id for m in bank.source("b", "conversation-42").messages] == ["42"]


def test_nul_messages_name_the_argument(bank: Memory) -> None:
    with pytest.raises(InputError, match="document_id holds a NUL character"):
        bank.retain("b", text="hello", document_id="doc\x00")
    with pytest.raises(InputError, match="bank is 10,000 characters long"):
        bank.recall("x" * 10_000, "땅콩")


def test_an_mcp_tool_answers_a_bug_without_its_internals(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from gieok.server.mcp import build_mcp

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals /home/x/gieok.db")

    mem.retain("b", text="민지는 땅콩 알레르기가 있다.")
    monkeypatch.setattr(mem, "recall", broken)

    async def main() -> str:
        async with Client(build_mcp(mem)) as client:
            called = await client.call_tool("recall", {"bank": "b", "query": "땅콩"})
            assert called.is_error
            text: str = called.content[0].text
            return text

    text = anyio.run(main)
    assert "InternalError" in text and "secret internals" not in text and "Traceback" not in text


def test_every_error_the_edge_raises_is_typed(bank: Memory) -> None:
    for call in (*REFUSED.values(), *NOT_FOUND.values()):
        with pytest.raises(GieokError):
            call(bank)
