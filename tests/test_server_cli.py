"""``gieok serve`` and ``gieok keys`` as a user runs them: secure by default on a public interface,
keys printed once and alone, ``python -m gieok serve`` answering /health in a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from server_harness import free_port

from gieok import Memory
from gieok.cli import cli
from gieok.engine.admin import keys
from gieok.server.cli import is_loopback


def _run(db_path: str, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["--db", db_path, "--embedder", "fake", *args])
    assert result.exit_code == code, result.output + str(result.exception)
    return result.output


def test_loopback_names() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.8.0.1"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.0.4", "::", "example.com"))


def test_serve_refuses_a_public_interface_without_keys(db_path: str, fake_embedder: object) -> None:
    out = _run(db_path, "serve", "--host", "0.0.0.0", code=1)
    assert "refusing to serve 0.0.0.0 without API keys" in out and "gieok keys create" in out
    assert "--insecure-no-auth" in out


def test_keys_create_prints_the_key_alone_on_the_last_line(db_path: str, fake_embedder: object) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", "keys", "create", "--bank", "민지",
                                 "--role", "read", "--name", "laptop"])
    assert result.exit_code == 0, result.output
    key = result.stdout.strip().splitlines()[-1]
    assert key.startswith("gk_") and " " not in key and key not in result.stderr
    listed = json.loads(_run(db_path, "keys", "list", "--json"))
    assert [(k["role"], k["banks"], k["name"]) for k in listed] == [("read", ["민지"], "laptop")]
    assert key not in json.dumps(listed) and key.encode() not in Path(db_path).read_bytes()
    with Memory(db_path, embedder="fake") as mem:
        assert keys.authenticate(mem.engine, key).banks == frozenset({"민지"})
        revoked = json.loads(_run(db_path, "keys", "revoke", str(listed[0]["id"]), "--json"))
        assert revoked["revoked_at"]
        with pytest.raises(Exception, match="revoked"):
            keys.authenticate(mem.engine, key)


def test_python_m_gieok_serve_answers_health_and_mcp(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    log = tmp_path / "serve.log"
    with log.open("w") as err, subprocess.Popen(
            [sys.executable, "-m", "gieok", "serve", "--db", str(db), "--port", str(port), "--log-level", "warning"],
            env={**os.environ, "GIEOK_THREADS": "1"}, stdout=subprocess.DEVNULL, stderr=err) as proc:
        _check_served(proc, port, log)
    assert "gieok serving" in log.read_text()


def _check_served(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    try:
        deadline = time.monotonic() + 90
        health = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).json()
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert health is not None, log.read_text() or "no answer in 90 s"
        assert health["status"] == "ok" and health["store"] == "SQLiteStore" and not health["keys_required"]
        tools = httpx.post(f"http://127.0.0.1:{port}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                           headers={"Accept": "application/json, text/event-stream",
                                    "MCP-Protocol-Version": "2025-11-25"}, timeout=10)
        assert tools.status_code == 200, tools.text
        assert "recall" in {t["name"] for t in tools.json()["result"]["tools"]}
        # a page elsewhere pointing a browser at the loopback server (DNS rebinding) is refused
        rebound = httpx.post(f"http://127.0.0.1:{port}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             headers={"Accept": "application/json, text/event-stream", "Host": "evil.example:80"})
        assert rebound.status_code in (400, 403, 421)
    finally:
        proc.terminate()
        proc.wait(20)
