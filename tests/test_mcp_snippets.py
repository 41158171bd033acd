"""The MCP configurations of docs/guide/frameworks.md work as written: every JSON block parses as an
``mcpServers`` entry; each stdio command (Claude Desktop, Claude Code, Cursor) is launched (``gieok``
as this Python's ``-m gieok``, the database moved into a temp dir) and each URL (Claude Code and
Cursor over HTTP, Claude Desktop through mcp-remote) is reached on a real server with the issued key,
both with the official ``mcp`` SDK client, retaining and recalling Korean and English."""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from server_harness import serving

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "frameworks.md"
SAID = "지우는 다음 달에 제주도로 이사 가. Her brother Tae runs a bakery in Seoul."


def _snippets() -> list[dict[str, Any]]:
    section = PAGE.read_text(encoding="utf-8").split("## MCP clients", 1)[1]
    blocks = re.findall(r"^```json\n(.*?)^```", section, re.DOTALL | re.MULTILINE)
    return [json.loads(block)["mcpServers"]["gieok"] for block in blocks]


async def _round_trip(session: AbstractAsyncContextManager[Client], bank: dict[str, str]) -> None:
    with anyio.fail_after(120):
        async with session as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"retain", "recall", "forget"} <= names
            retained = await client.call_tool("retain", {**bank, "text": SAID})
            assert not retained.is_error, retained.content
            for query, expected in (("지우 어디로 이사 가?", "제주도"), ("Who runs a bakery?", "Tae")):
                found = await client.call_tool("recall", {**bank, "query": query, "limit": 3})
                assert not found.is_error and expected in found.structured_content["memories"][0]["text"]


def test_every_snippet_names_a_transport() -> None:
    snippets = _snippets()
    assert len(snippets) == 6
    stdio = [s for s in snippets if s.get("command") == "gieok"]
    urls = [s.get("url") or next(a for a in s["args"] if a.startswith("http")) for s in snippets if s not in stdio]
    assert len(stdio) == 3 and all(s["args"][:1] == ["mcp"] and "--bank" in s["args"] for s in stdio)
    assert urls == ["http://127.0.0.1:8765/mcp"] * 3
    assert all(s.get("type", "stdio") == "stdio" for s in stdio)


def test_the_stdio_snippets_start_and_answer(tmp_path: Path) -> None:
    """Launched the way the app launches them; the three are one command (launched once)."""
    commands = {json.dumps([s["command"], *s["args"]]) for s in _snippets() if s.get("command") == "gieok"}
    assert len(commands) == 1
    args = json.loads(commands.pop())[1:]
    args[args.index("--db") + 1] = str(tmp_path / "memories.db")
    params = StdioServerParameters(command=sys.executable, args=["-m", "gieok", *args],
                                   env={**os.environ, "GIEOK_THREADS": "1"})
    anyio.run(_round_trip, Client(params), {})


def test_the_http_snippets_reach_gieok_serve(mem: Memory) -> None:
    _record, key = keys.create_key(mem.engine, role="write", banks=["notes"])
    with serving(create_app(mem, worker=False)) as base:
        for snippet in _snippets():
            if snippet.get("command") == "gieok":
                continue
            if "url" in snippet:
                url, headers = snippet["url"], dict(snippet["headers"])
            else:  # mcp-remote: the URL and --header arguments it forwards
                arguments = snippet["args"]
                url = next(a for a in arguments if a.startswith("http"))
                name, value = arguments[arguments.index("--header") + 1].split(": ", 1)
                headers = {name: value}
            url = url.replace("http://127.0.0.1:8765", base)
            headers = {k: v.replace("gk_...", key) for k, v in headers.items()}

            anyio.run(_over_http, url, headers)


async def _over_http(url: str, headers: dict[str, str]) -> None:
    async with create_mcp_http_client(headers=headers) as http:
        await _round_trip(Client(streamable_http_client(url, http_client=http)), {"bank": "notes"})
