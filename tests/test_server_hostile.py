"""Hostile requests to the HTTP API (issue 32, items 5 and 7): every one is answered with the one
problem+json body, a 4xx naming the argument (never echoing the value), and the keep-alive
connection stays usable after any failure — a bug's 500 included. On SQLite and PostgreSQL."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from pg_server import pg_dsn_factory  # noqa: F401
from server_harness import serving

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app

BIG = 2**63  # one past the widest integer either store keeps
SECRET_BANK = "민지의-비밀-bank"
SECRET_SOURCE = "medical-record-kim"

# (method, path, raw JSON body or None, status): each was a 500 (or accepted) before
HOSTILE: list[tuple[str, str, bytes | None, int]] = [
    ("POST", "/v1/banks/b/forget", b'{"source_id": "chat\\ud800"}', 422),  # a lone surrogate, JSON-escaped
    ("POST", "/v1/banks/b/forget", b'{"entity": "\\udc00\xeb\xaf\xbc\xec\xa7\x80"}', 422),
    ("POST", "/v1/banks/b/forget", b'{"source_id": "chat\\u0000"}', 422),  # NUL: PostgreSQL text cannot hold it
    ("POST", "/v1/banks/b/retain", b'{"text": "\xeb\x95\x85\xec\xbd\xa9\\u0000 allergy"}', 422),
    ("POST", "/v1/banks/b/retain", b'{"messages": [{"text": "hi", "speaker": "a\\u0000"}]}', 422),
    ("POST", "/v1/banks/b/retain", b'{"text": 12345}', 422),
    ("POST", "/v1/banks/b/retain", b'{"messages": [{"id": {}, "text": "hi"}]}', 422),
    ("POST", "/v1/banks/b/retain", b'{"messages": [{"id": [1], "text": "hi"}]}', 422),
    ("POST", "/v1/banks/b/retain", b'{"messages": [{"id": true, "text": "hi"}]}', 422),
    ("POST", "/v1/banks/b/retain",
     b'{"messages": [{"text": "hi", "timestamp": "9999-12-31T23:59:59-14:00"}]}', 422),
    ("POST", "/v1/banks/b/recall", b'{"query": "hi", "now": "9999-12-31T23:59:59-14:00"}', 422),
    ("POST", "/v1/banks/b/recall", b'{"query": "hi", "as_of": "0001-01-01T00:00:00+14:00"}', 422),
    ("POST", "/v1/banks/b/reflect", b'{"question": "hi?", "now": "9999-12-31T23:59:59-14:00"}', 422),
    ("POST", "/v1/banks/b/forget", b'{"before": "9999-12-31T23:59:59-14:00"}', 422),
    ("GET", "/v1/banks/b/sources/chat%00", None, 422),
    ("GET", "/v1/banks/b/profile?person=a%00", None, 422),
    ("GET", f"/v1/banks/b/memories/f-{BIG}", None, 404),
    ("GET", f"/v1/operations/op-{2**64}", None, 404),
    ("DELETE", f"/v1/keys/{BIG}", None, 422),
    ("GET", f"/v1/banks/b/entities/merge-suggestions?limit={BIG}", None, 422),
    ("POST", f"/v1/banks/{'x' * 10_000}/retain", b'{"text": "hi"}', 422),
]


@pytest.fixture
def client(store_mem: Memory) -> Iterator[TestClient]:
    store_mem.retain("b", text="민지는 땅콩 알레르기가 있다. Minji is allergic to peanuts.", document_id="chat")
    with TestClient(create_app(store_mem, mcp=False, worker=False)) as http:
        yield http


def _problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json"), response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["detail"] and body["type"].startswith("https://gieok.dev/problems/")
    assert "Traceback" not in response.text and 'File "' not in response.text
    return body


def _send(http: TestClient, method: str, path: str, body: bytes | None) -> httpx.Response:
    headers = {"content-type": "application/json"} if body is not None else {}
    return http.request(method, path, content=body, headers=headers)


@pytest.mark.parametrize(("method", "path", "body", "status"), HOSTILE, ids=[f"{m} {p[:40]} {b!r:.40}"
                                                                             for m, p, b, _ in HOSTILE])
def test_hostile_input_is_a_typed_4xx_and_stores_nothing(client: TestClient, store_mem: Memory, method: str,
                                                          path: str, body: bytes | None, status: int) -> None:
    before = [(b.name, b.sources, b.facts) for b in store_mem.banks()]
    _problem(_send(client, method, path, body), status)
    assert [(b.name, b.sources, b.facts) for b in store_mem.banks()] == before
    assert client.post("/v1/banks/b/recall", json={"query": "땅콩"}).json()["memories"]  # the bank still reads


def test_a_message_id_is_a_string_or_an_integer(client: TestClient, store_mem: Memory) -> None:
    refused = _problem(_send(client, "POST", "/v1/banks/b/retain", b'{"messages": [{"id": {}, "text": "hi"}]}'), 422)
    assert "string or an integer" in refused["detail"]
    kept = client.post("/v1/banks/b/retain", json={"messages": [{"id": 42, "text": "I moved to Busan."}]})
    assert kept.status_code == 200 and kept.json()["source_id"] == "conversation-42"
    assert store_mem.source("b", "conversation-42").messages[0].id == "42"


def test_errors_name_the_argument_never_the_value(client: TestClient) -> None:
    for response in (client.post(f"/v1/banks/{SECRET_BANK}/recall", json={"query": "x"}),
                     client.get(f"/v1/banks/b/sources/{SECRET_SOURCE}"),
                     client.post("/v1/banks/b/forget", json={"source_id": SECRET_SOURCE}),
                     client.post("/v1/banks/b/forget", json={"entity": SECRET_SOURCE}),
                     client.get(f"/v1/banks/b/memories/{SECRET_SOURCE}"),
                     client.get(f"/v1/operations/{SECRET_SOURCE}"),
                     client.post("/v1/banks/b/recall", json={"query": "x", "now": SECRET_SOURCE}),
                     client.get(f"/v1/banks/b/profile/{SECRET_SOURCE}")):
        detail = _problem(response, response.status_code)["detail"]
        assert response.status_code in (404, 422)
        assert SECRET_BANK not in detail and SECRET_SOURCE not in detail and "medical" not in detail, detail
    named = _problem(client.get(f"/v1/banks/b/sources/{SECRET_SOURCE}"), 404)["detail"]
    assert "source_id" in named


def test_a_bug_is_a_generic_500_and_the_keep_alive_connection_survives(mem: Memory,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals /home/x/gieok.db")

    mem.retain("b", text="민지는 땅콩 알레르기가 있다.", document_id="chat")
    monkeypatch.setattr(mem, "banks", broken)
    with serving(create_app(mem, mcp=False, worker=False)) as url:
        where = urlsplit(url)
        conn = http.client.HTTPConnection(where.hostname or "", where.port, timeout=30)
        try:
            for method, path, body, status in [("GET", "/v1/banks", None, 500), *HOSTILE[:4]]:
                conn.request(method, path, body=body, headers={"content-type": "application/json"})
                sock = conn.sock  # the one socket: http.client would silently reconnect otherwise
                failed = conn.getresponse()
                payload = json.loads(failed.read())
                assert failed.status == status and payload["status"] == status
                assert failed.getheader("content-type", "").startswith("application/problem+json")
                assert "secret internals" not in json.dumps(payload)
                conn.request("GET", "/health")
                good = conn.getresponse()
                assert good.status == 200 and json.loads(good.read())["status"] == "ok"
                assert conn.sock is sock and sock is not None, "the server closed the connection"
                if status == 500:
                    assert payload["error"] == "InternalError" and "log" in payload["detail"]
        finally:
            conn.close()


def test_docs_and_metrics_want_a_key_once_keys_exist(mem: Memory) -> None:
    _, key = keys.create_key(mem.engine, role="read", banks=["b"])
    pages = ("/openapi.json", "/docs", "/redoc", "/metrics")
    with TestClient(create_app(mem, mcp=False, worker=False)) as http:
        for page in pages:
            _problem(http.get(page), 401)
            assert http.get(page, headers={"Authorization": f"Bearer {key}"}).status_code == 200, page
        assert http.get("/health").status_code == 200  # a load balancer's probe needs no key
    with TestClient(create_app(mem, mcp=False, worker=False, public_docs=True, public_metrics=True)) as http:
        for page in pages:
            assert http.get(page).status_code == 200, page
    with TestClient(create_app(mem, mcp=False, worker=False, public_metrics=True)) as http:
        assert http.get("/metrics").status_code == 200
        _problem(http.get("/openapi.json"), 401)


def test_serve_offers_the_public_flags() -> None:
    from click.testing import CliRunner

    from gieok.cli import cli

    out = CliRunner().invoke(cli, ["serve", "--help"]).output
    assert "--public-docs" in out and "--public-metrics" in out
