"""MCP with a real client session from the official SDK: over stdio (``gieok mcp`` as a subprocess,
as Claude Desktop launches it) and over streamable HTTP at ``/mcp`` of a real uvicorn, on SQLite and
PostgreSQL. The tools, their annotations, keys and bank isolation, typed errors an agent can read,
and memory defense (a key and a 주민등록번호 sent over MCP never reach the file). Korean and English."""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from server_harness import serving

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app
from gieok.server.mcp import build_mcp
from gieok.store.postgres import PostgresStore

TOOLS = {"retain", "ingest_document", "recall", "reflect", "forget", "list_banks", "get_memory", "history", "sources",
         "session_add", "session_context", "profile_lookup", "quarantined", "release_quarantined", "shaping",
         "set_shaping", "export_bank", "import_bank"}
CHAT = [
    {"id": "m1", "speaker": "지우", "text": "나 다음 달에 제주도로 이사 가.", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "m2", "speaker": "Jiwoo", "text": "My brother Tae runs a bakery in Seoul.",
     "timestamp": "2026-05-04T09:01:00+09:00"},
]


def _result(called: Any) -> Any:
    assert not called.is_error, called.content
    return called.structured_content


def _error(called: Any) -> str:
    assert called.is_error
    text: str = called.content[0].text
    assert "Traceback" not in text
    return text


@asynccontextmanager
async def _http_session(url: str, key: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            yield client


async def _round_trip(client: Client, bank_args: dict[str, str]) -> None:
    """The tools an agent uses, in the order it uses them."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    assert tools["recall"].annotations.read_only_hint and tools["forget"].annotations.destructive_hint
    assert not tools["retain"].annotations.read_only_hint
    assert all(t.description and len(t.description) > 40 for t in tools.values())
    retained = _result(await client.call_tool("retain", {**bank_args, "messages": CHAT}))
    assert retained["facts_added"] == 2
    found = _result(await client.call_tool("recall", {**bank_args, "query": "지우 어디로 이사 가?", "limit": 3}))
    assert "제주도" in found["memories"][0]["text"]
    tae = _result(await client.call_tool("recall", {**bank_args, "query": "Who runs a bakery?"}))["memories"][0]
    assert "Tae" in tae["text"]
    assert _result(await client.call_tool("get_memory", {**bank_args, "memory_id": tae["id"]}))["text"] == tae["text"]
    versions = _result(await client.call_tool("history", {**bank_args, "memory_id": tae["id"]}))["versions"]
    assert [v["id"] for v in versions] == [tae["id"]]
    answer = _result(await client.call_tool("reflect", {**bank_args, "question": "Who runs a bakery in Seoul?"}))
    assert answer["supported"] and "Tae" in answer["answer"]
    source = _result(await client.call_tool("sources", bank_args))["sources"][0]["id"]
    erased = _result(await client.call_tool("forget", {**bank_args, "source_id": source}))
    assert len(erased["memory_ids"]) == 2 and erased["proof"]["clean"]
    gone = _result(await client.call_tool("recall", {**bank_args, "query": "제주도 bakery"}))
    assert gone["memories"] == []


@pytest.fixture(params=["sqlite", "postgres"])
def store_memory(request: pytest.FixtureRequest, db_path: str, fake_embedder: object) -> Iterator[Memory]:
    if request.param == "sqlite":
        mem = Memory(db_path, embedder="fake")
    else:
        factory: Callable[[], str] = request.getfixturevalue("pg_dsn_factory")
        mem = Memory(store=PostgresStore(factory()), embedder="fake")
    with mem:
        yield mem


def test_the_tools_over_streamable_http(store_memory: Memory) -> None:
    with serving(create_app(store_memory, worker=False)) as url:
        async def main() -> None:
            async with _http_session(url) as client:
                await _round_trip(client, {"bank": "지우"})
                assert [b["name"] for b in _result(await client.call_tool("list_banks", {}))["banks"]] == ["지우"]
        anyio.run(main)


def test_keys_keep_banks_apart_over_mcp(mem: Memory) -> None:
    _record, alice = keys.create_key(mem.engine, role="write", banks=["alice"])
    _record, reader = keys.create_key(mem.engine, role="read", banks=["bob"])
    mem.retain("bob", text="Bob's locker code is in the blue notebook. 밥의 사물함은 3층에 있어.")
    with serving(create_app(mem, worker=False)) as url:
        # no key: refused before any tool runs, with the API's problem+json
        refused = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             headers={"Accept": "application/json, text/event-stream"})
        assert refused.status_code == 401 and refused.headers["content-type"].startswith("application/problem+json")

        async def main() -> None:
            async with _http_session(url, alice) as client:
                assert _result(await client.call_tool("retain", {"bank": "alice", "text": "Alice likes 녹차."}))
                assert [b["name"] for b in _result(await client.call_tool("list_banks", {}))["banks"]] == ["alice"]
                for tool, args in (("recall", {"query": "locker 사물함"}), ("sources", {}),
                                   ("forget", {"entity": "Bob"}), ("get_memory", {"memory_id": "f-1"})):
                    message = _error(await client.call_tool(tool, {"bank": "bob", **args}))
                    assert "BankNotFoundError" in message and "locker" not in message
            async with _http_session(url, reader) as client:
                found = _result(await client.call_tool("recall", {"bank": "bob", "query": "locker code"}))
                assert "blue notebook" in found["memories"][0]["text"]
                assert "PermissionDeniedError" in _error(await client.call_tool(
                    "retain", {"bank": "bob", "text": "overwrite"}))
        anyio.run(main)
    assert [s.id for s in mem.sources("bob")] == [mem.sources("bob")[0].id]  # the refused retain stored nothing


def test_typed_errors_and_bad_arguments_reach_the_agent_as_tool_errors(mem: Memory) -> None:
    async def main() -> None:
        async with Client(build_mcp(mem)) as client:
            assert "BankNotFoundError" in _error(await client.call_tool("recall", {"bank": "nobody", "query": "x"}))
            wrong = _error(await client.call_tool("recall", {"bank": "b", "query": "x", "limit": "many"}))
            assert "limit" in wrong
            empty = _error(await client.call_tool("retain", {"bank": "b"}))
            assert "text" in empty and "messages" in empty
            assert _error(await client.call_tool("forget", {"bank": "b"}))
    anyio.run(main)
    assert mem.banks() == []  # nothing above created a bank


GUIDE = ("# 환불 정책\n\n구매 후 14일 이내에는 전액 환불됩니다.\n\n"
         "# Shipping\n\nOrders ship from the Busan warehouse within two business days.\n")


def test_an_agent_ingests_a_document_and_recall_cites_its_section(mem: Memory) -> None:
    async def main() -> None:
        async with Client(build_mcp(mem)) as client:
            encoded = base64.b64encode(GUIDE.encode("utf-8")).decode("ascii")
            done = _result(await client.call_tool("ingest_document", {
                "bank": "docs", "document_id": "guide.md", "content_base64": encoded}))
            assert done["facts_added"] >= 2
            refund = _result(await client.call_tool("recall", {"bank": "docs", "query": "환불은 며칠까지 돼?"}))
            assert "14일" in refund["memories"][0]["text"]
            assert refund["memories"][0]["location"]["section"] == ["환불 정책"]
            ship = _result(await client.call_tool("recall", {"bank": "docs", "query": "Where do orders ship from?"}))
            assert "Busan" in ship["memories"][0]["text"]
            assert ship["memories"][0]["location"]["section"] == ["Shipping"]
            as_text = _result(await client.call_tool("ingest_document", {
                "bank": "docs", "document_id": "notes.txt", "text": "The office code word is heron."}))
            assert as_text["facts_added"] == 1
            bad = _error(await client.call_tool("ingest_document", {
                "bank": "docs", "document_id": "x.md", "content_base64": "%%% not base64 %%%"}))
            assert "InputError" in bad and "base64" in bad
            both = _error(await client.call_tool("ingest_document", {
                "bank": "docs", "document_id": "y.md", "content_base64": encoded, "text": "x"}))
            assert "exactly one" in both
    anyio.run(main)
    assert len(mem.sources("docs")) == 2  # the refused calls stored nothing


def test_an_agent_keeps_a_session_over_mcp(mem: Memory) -> None:
    async def main() -> None:
        async with Client(build_mcp(mem)) as client:
            for role, content in (("user", "다음 주 금요일에 부산 출장 가기로 했어."),
                                  ("assistant", "Noted: Busan, next Friday."), ("user", "I prefer the window seat.")):
                done = _result(await client.call_tool("session_add", {
                    "bank": "kim", "session_id": "trip", "role": role, "content": content}))
                assert isinstance(done["position"], int)
            shown = _result(await client.call_tool("session_context", {
                "bank": "kim", "session_id": "trip", "query": "부산 출장 언제 가기로 했지?"}))
            assert [m["content"] for m in shown["messages"]][-1] == "I prefer the window seat."
            bad = _error(await client.call_tool("session_add", {
                "bank": "kim", "session_id": "trip", "role": "narrator", "content": "x"}))
            assert "InputError" in bad and "role" in bad
    anyio.run(main)
    assert mem.source("kim", "session:trip").messages[0].text == "다음 주 금요일에 부산 출장 가기로 했어."


def test_an_agent_looks_up_a_profile_fact_over_mcp(mem: Memory) -> None:
    mem.retain("pro", messages=[
        {"id": "p1", "speaker": "서연", "text": "저 땅콩 알레르기 있어요.", "timestamp": "2026-05-04T09:00:00+09:00"},
        {"id": "p2", "speaker": "서연", "text": "I live in Austin now.", "timestamp": "2026-05-05T09:00:00+09:00"}])

    async def main() -> None:
        async with Client(build_mcp(mem)) as client:
            allergy = _result(await client.call_tool("profile_lookup", {"bank": "pro", "slot": "allergy"}))
            assert allergy["found"] and allergy["values"] == ["땅콩"] and allergy["person"] == "서연"
            city = _result(await client.call_tool("profile_lookup", {"bank": "pro", "slot": "city"}))
            assert city["value"] == "Austin" and city["memory_ids"]
            never = _result(await client.call_tool("profile_lookup", {"bank": "pro", "slot": "birthday"}))
            assert never == {"found": False}
            bad = _error(await client.call_tool("profile_lookup", {"bank": "pro", "slot": "shoe size"}))
            assert "InputError" in bad and "birthday" in bad
    anyio.run(main)


def test_a_fixed_bank_takes_no_bank_argument(mem: Memory) -> None:
    mem.retain("other", text="Other bank: the launch code is 4471.")

    async def main() -> None:
        async with Client(build_mcp(mem, bank="notes")) as client:
            tools = (await client.list_tools()).tools
            assert all("bank" not in (t.input_schema or {}).get("properties", {}) for t in tools)
            await _round_trip(client, {})
            assert [b["name"] for b in _result(await client.call_tool("list_banks", {}))["banks"]] == ["notes"]
    anyio.run(main)


def test_memory_defense_holds_over_mcp(db_path: str, fake_embedder: object) -> None:
    secret_key = "sk-proj-" + "Z3x5C7v9B1n2M4k6" * 3
    rrn = "880512-1234561"
    mem = Memory(db_path, embedder="fake")
    with mem, serving(create_app(mem, worker=False)) as url:
        async def main() -> None:
            async with _http_session(url) as client:
                said = [{"id": "s1", "speaker": "서연", "text": f"배포 키는 {secret_key} 이고 주민번호는 {rrn} 이야."},
                        {"id": "s2", "speaker": "Seoyeon", "text": f"Keep {secret_key} for staging."}]
                assert _result(await client.call_tool("retain", {"bank": "서연", "messages": said}))["redactions"] >= 3
                blob = _result(await client.call_tool("recall", {"bank": "서연", "query": "배포 키 staging"}))
                assert blob["memories"] and secret_key not in json.dumps(blob, ensure_ascii=False)
        anyio.run(main)
    raw = b"".join(Path(db_path + suffix).read_bytes() for suffix in ("", "-wal") if os.path.exists(db_path + suffix))
    assert secret_key.encode() not in raw and rrn.encode() not in raw


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_gieok_mcp_over_stdio(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """``gieok mcp`` launched the way an MCP client launches it (the default embedder, offline)."""
    if backend == "sqlite":
        store = ["--db", str(tmp_path / "stdio.db")]
    else:
        store = ["--database", request.getfixturevalue("pg_dsn_factory")()]
    params = StdioServerParameters(command=sys.executable, args=["-m", "gieok", "mcp", *store, "--bank", "지우"],
                                   env={**os.environ, "GIEOK_THREADS": "1"})

    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(params) as client:
                await _round_trip(client, {})
    anyio.run(main)


def test_an_admin_moves_a_bank_over_mcp(mem: Memory) -> None:
    _record, admin = keys.create_key(mem.engine, role="admin")
    _record, writer = keys.create_key(mem.engine, role="write", banks=["지우"])
    mem.retain("지우", CHAT, document_id="chat")
    with serving(create_app(mem, worker=False)) as url:
        async def main() -> None:
            async with _http_session(url, admin) as client:
                exported = _result(await client.call_tool("export_bank", {"bank": "지우"}))
                assert exported["lines"] == len(exported["file"].splitlines()) and "제주도" in exported["file"]
                imported = _result(await client.call_tool("import_bank", {"file": exported["file"], "bank": "jiwoo"}))
                assert imported["bank"] == "jiwoo" and imported["counts"]["message"] == 2
                again = _result(await client.call_tool("import_bank", {"file": exported["file"], "bank": "jiwoo"}))
                assert again["unchanged"]
                assert "BankExistsError" in _error(await client.call_tool("import_bank", {"file": exported["file"]}))
                broken = exported["file"].replace('"record":"fact"', '"record":"fakt"', 1)
                assert "line" in _error(await client.call_tool("import_bank", {"file": broken, "bank": "x"}))
            async with _http_session(url, writer) as client:
                assert "PermissionDeniedError" in _error(await client.call_tool("export_bank", {"bank": "지우"}))
        anyio.run(main)
    found = mem.recall("jiwoo", "Who runs a bakery?").memories
    assert "Tae" in found[0].text
