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
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from server_harness import serving

from gieok import Memory
from gieok.engine.admin import keys
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


def readme_module(readme: str) -> str:
    """Every ```ts block of the README as one module, in order (each goes on from the ones before):
    their imports first, from the client's source; ``admin`` declared, as the README says it is."""
    blocks = re.findall(r"^```ts\n(.*?)^```", readme, flags=re.MULTILINE | re.DOTALL)
    lines = [line for block in blocks for line in block.splitlines()]
    imports = [line.replace('"@gieok/client"', '"../src/index.js"') for line in lines if line.startswith("import ")]
    body = [line for line in lines if not line.startswith("import ")]
    return "\n".join([*imports, "declare const admin: Gieok;", "", *body, "export {};", ""])


def test_the_readme_examples_type_check_against_the_schema() -> None:
    node, npm = _node_tools()
    env = {**os.environ, "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false"}
    _installed(npm, env)
    _npm(npm, "run", "generate", env=env)
    module = readme_module((CLIENT / "README.md").read_text(encoding="utf-8"))
    methods = {name for file in ("index.ts", "session.ts")
               for name in re.findall(r"^  (?:async )?(\w+)\(", (CLIENT / "src" / file).read_text(encoding="utf-8"),
                                      flags=re.MULTILINE)} - {"constructor"}
    undocumented = sorted(name for name in methods if f".{name}(" not in module)
    assert not undocumented, f"methods with no example in clients/typescript/README.md: {undocumented}"
    assert "민지" in module and "Hana" in module  # Korean and English payloads
    check = CLIENT / ".readme-check"  # ignored by git; rewritten each run
    check.mkdir(exist_ok=True)
    (check / "readme.ts").write_text(module, encoding="utf-8")
    (check / "tsconfig.json").write_text(json.dumps({
        "extends": "../tsconfig.test.json", "compilerOptions": {"noEmit": True, "rootDir": ".."},
        "include": ["readme.ts", "../src"]}), encoding="utf-8")
    done = subprocess.run([node, "node_modules/typescript/bin/tsc", "-p", ".readme-check/tsconfig.json"], cwd=CLIENT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"README examples do not type-check:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


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
