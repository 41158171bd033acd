"""How the server is built: one router per resource (gieok/server/routes/, the UI's page groups),
assembled by create_app; routes reach their server only through the app's state, so two apps in one
process keep apart; and no function of gieok/server grows past a screen."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app
from gieok.server.routes import PATH_ORDER, ROUTERS

SERVER = Path(__file__).resolve().parent.parent / "gieok" / "server"


def test_no_function_of_the_server_is_over_80_lines() -> None:
    long = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 80:
                    long.append(f"{path.relative_to(SERVER)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_every_api_route_has_its_place_in_the_schema_order(mem: Memory) -> None:
    declared = [route for router in ROUTERS for route in router.routes]
    assert declared and all(isinstance(route, APIRoute) for route in declared)
    assert {route.path for route in declared if isinstance(route, APIRoute)} == set(PATH_ORDER)
    app = create_app(mem, worker=False, mcp=False, ui=False)
    served = [route.path for route in app.routes if isinstance(route, APIRoute)]
    first_seen = list(dict.fromkeys(served))
    assert first_seen == list(PATH_ORDER)
    assert list(app.openapi()["paths"]) == [p for p in PATH_ORDER if p not in ("/openapi.json", "/docs", "/redoc")]


@pytest.fixture
def two_apps(mem: Memory, tmp_path: Path) -> Iterator[tuple[TestClient, TestClient, str]]:
    with Memory(str(tmp_path / "other.db"), embedder="fake") as other:
        other.banks.create("다른-은행")
        _record, key = keys.create_key(other.engine, role="admin")
        mem.banks.create("minji")
        with TestClient(create_app(mem, mcp=False, worker=False)) as first, \
                TestClient(create_app(other, mcp=False, worker=False, ui=True)) as second:
            yield first, second, key


def test_two_apps_in_one_process_serve_their_own_memory_and_keys(
        two_apps: tuple[TestClient, TestClient, str]) -> None:
    first, second, key = two_apps
    assert first.get("/health").json()["keys_required"] is False
    assert second.get("/health").json()["keys_required"] is True
    assert [b["name"] for b in first.get("/v1/banks").json()] == ["minji"]
    assert second.get("/v1/banks").status_code == 401
    banks = second.get("/v1/banks", headers={"Authorization": f"Bearer {key}"}).json()
    assert [b["name"] for b in banks] == ["다른-은행"]
    # the UI too: each app's pages show its own banks, and want its own keys
    assert "minji" in first.get("/ui/").text
    assert second.get("/ui/", follow_redirects=False).status_code == 303
