"""The TypeScript client (``clients/typescript``): its types come from the server's OpenAPI schema,
and its Node tests pass against a real server.

``openapi.json`` is committed; the first test fails when the server's schema has changed since
(regenerate it with ``python clients/typescript/schema.py``), and ``npm run build`` generates the
types from it and type-checks the client against them, so the client cannot drift from the routes.
Without Node the end-to-end test is skipped, unless ``GIEOK_REQUIRE_NODE=1`` (CI) makes it fail.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from server_harness import serving

from gieok import Memory
from gieok.engine import keys
from gieok.providers import registry
from gieok.providers.embedders import Embedder
from gieok.server.app import create_app

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "typescript"
# read at import: the autouse fixture clears every GIEOK_* variable before a test runs
REQUIRE_NODE = os.environ.get("GIEOK_REQUIRE_NODE") == "1"
BANK = "ts-민지"  # the one bank the tests' write key may use


def _schema_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typescript_schema", CLIENT / "schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_openapi_schema_is_the_servers() -> None:
    script = _schema_script()
    committed = (CLIENT / "openapi.json").read_text(encoding="utf-8")
    assert committed == script.render(script.openapi_schema()), (
        "clients/typescript/openapi.json is stale: run `python clients/typescript/schema.py` and commit it")


def test_the_package_is_ready_to_publish() -> None:
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    assert package["name"] == "@gieok/client" and package["license"] == "Apache-2.0"
    assert package["types"] == package["exports"]["."]["types"] == "./dist/index.d.ts"
    assert "tsc" in package["scripts"]["build"] and "openapi-typescript" in package["scripts"]["generate"]
    assert set(package.get("dependencies", {})) == set()  # Node's own fetch: nothing to install for users
    assert (CLIENT / "package-lock.json").is_file()


def _node_tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node and npm:
        return node, npm
    message = "node and npm are needed to test the TypeScript client (install Node.js 18 or newer)"
    if REQUIRE_NODE:
        pytest.fail(f"{message}; GIEOK_REQUIRE_NODE=1 says they must be here")
    pytest.skip(message)


def _npm(npm: str, *args: str, env: dict[str, str], timeout: float = 180) -> None:
    done = subprocess.run([npm, *args], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"


def _installed(npm: str, env: dict[str, str]) -> None:
    """``npm ci`` from the lockfile, only when node_modules is missing or older than the lockfile
    (it stays in clients/typescript/node_modules, ignored by git); its cache stays in the folder too."""
    marker = CLIENT / "node_modules" / ".package-lock.json"
    if marker.is_file() and marker.stat().st_mtime >= (CLIENT / "package-lock.json").stat().st_mtime:
        return
    _npm(npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--cache", str(CLIENT / ".npm-cache"), env=env)


class _OtherEmbedder(Embedder):
    """A second embedder for the node test's re-embed to move a bank to."""

    model_id, dim = "other-hash", 24

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        return np.stack([np.frombuffer(hashlib.sha256(t.encode()).digest()[:24], dtype=np.uint8).astype(np.float32) + 1
                         for t in texts])


@pytest.fixture
def other_embedder() -> Iterator[None]:
    registry.register("embedder", "other-hash", _OtherEmbedder, replace=True)
    yield
    registry.unregister("embedder", "other-hash")


def test_the_typescript_client_passes_its_node_tests_against_a_real_server(db_path: str, fake_embedder: object,
                                                                           other_embedder: None) -> None:
    node, npm = _node_tools()
    env = {**os.environ, "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false"}
    _installed(npm, env)
    _npm(npm, "run", "build:test", env=env)
    with Memory(db_path, embedder="fake") as mem:
        _, secret = keys.create_key(mem.engine, role="write", banks=[BANK], name="typescript tests")
        _, admin = keys.create_key(mem.engine, role="admin", name="typescript tests (admin)")
        with serving(create_app(mem, mcp=False, ui=False, poll_seconds=0.05)) as url:
            server = {"GIEOK_URL": url, "GIEOK_API_KEY": secret, "GIEOK_ADMIN_KEY": admin, "GIEOK_BANK": BANK}
            done = subprocess.run([node, "--test", ".test-build/test/client.test.js"], cwd=CLIENT, capture_output=True,
                                  text=True, timeout=180, env={**env, **server})
    report = f"{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"node --test failed:\n{report}"
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout and "# pass 16" in done.stdout, report
