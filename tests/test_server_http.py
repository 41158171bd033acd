"""The HTTP API on a real uvicorn: routes, typed errors as problem+json, keys and bank isolation,
async retains, the body limit, metrics and the generated OpenAPI. Korean and English."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import serving, wait_for_operation

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app

CHAT = [
    {"id": "h1", "speaker": "민지", "text": "나 땅콩 알레르기 있어.", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "h2", "speaker": "Minji", "text": "My sister Hana lives in Toronto.",
     "timestamp": "2026-05-04T09:01:00+09:00"},
]


@pytest.fixture
def server(mem: Memory) -> Iterator[tuple[str, Memory]]:
    with serving(create_app(mem, mcp=False, poll_seconds=0.05, max_body_bytes=200_000)) as url:
        yield url, mem


def _problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["detail"]
    assert "Traceback" not in response.text and 'File "' not in response.text
    return body  # type: ignore[no-any-return]


def test_retain_recall_reflect_forget_over_http(server: tuple[str, Memory]) -> None:
    url, mem = server
    with httpx.Client(base_url=url, timeout=60) as http:
        retained = http.post("/v1/banks/민지/retain", json={"messages": CHAT, "document_id": "chat-1"})
        assert retained.status_code == 200 and retained.json()["facts_added"] == 2
        found = http.post("/v1/banks/민지/recall", json={"query": "땅콩 과자 먹어도 돼?", "limit": 3}).json()
        assert "땅콩" in found["memories"][0]["text"] and found["bank"] == "민지"
        hana = http.post("/v1/banks/민지/recall", json={"query": "Where does Hana live?", "explain": True}).json()
        first = hana["memories"][0]
        assert "Toronto" in first["text"] and first["explanation"] is not None
        memory_id = first["id"]
        assert http.get(f"/v1/banks/민지/memories/{memory_id}").json()["text"] == first["text"]
        assert [v["id"] for v in http.get(f"/v1/banks/민지/memories/{memory_id}/history").json()] == [memory_id]
        assert [s["id"] for s in http.get("/v1/banks/민지/sources").json()] == ["chat-1"]
        assert http.get("/v1/banks/민지/sources/chat-1").json()["messages"][0]["text"] == CHAT[0]["text"]
        assert "Hana" in {e["name"] for e in http.get("/v1/banks/민지/entities").json()}
        answer = http.post("/v1/banks/민지/reflect", json={"question": "Where does Hana live?"}).json()
        assert answer["supported"] and "Toronto" in answer["answer"]
        assert [b["name"] for b in http.get("/v1/banks").json()] == ["민지"]
        gone = http.post("/v1/banks/민지/forget", json={"source_id": "chat-1", "verify": True}).json()
        assert gone["erased"]["facts"] == 2 and gone["proof"]["clean"] is True
        assert "_probes" not in gone and "땅콩" not in json.dumps(gone, ensure_ascii=False)
        assert http.post("/v1/banks/민지/recall", json={"query": "땅콩"}).json()["memories"] == []
        assert http.delete("/v1/banks/민지").status_code == 200
        assert http.get("/v1/banks").json() == []


def test_async_retain_is_accepted_and_finished_by_the_worker(server: tuple[str, Memory]) -> None:
    url, _ = server
    with httpx.Client(base_url=url, timeout=60) as http:
        accepted = http.post("/v1/banks/alice/retain", json={"messages": CHAT, "async": True})
        assert accepted.status_code == 202
        op_id = accepted.json()["operation_id"]
        assert accepted.headers["location"] == f"/v1/operations/{op_id}"
        op = wait_for_operation(http, op_id)
        assert op["status"] == "done" and op["result"]["facts_added"] == 2, op
        assert http.post("/v1/banks/alice/recall", json={"query": "Hana Toronto"}).json()["memories"]
        _problem(http.get("/v1/operations/op-99999"), 404)


def test_typed_errors_become_problem_json_and_store_nothing(server: tuple[str, Memory]) -> None:
    url, mem = server
    mem.retain("k", messages=CHAT[:1])
    before = [(b.name, b.sources, b.facts) for b in mem.banks()]
    with httpx.Client(base_url=url, timeout=60) as http:
        assert "retain" in _problem(http.post("/v1/banks/nobody/recall", json={"query": "x"}), 404)["detail"]
        _problem(http.get("/v1/banks/k/memories/f-999"), 404)
        bad = _problem(http.post("/v1/banks/k/retain", json={"messages": [{"id": "x", "text": "  "}]}), 422)
        assert "non-empty 'text'" in bad["detail"]
        _problem(http.post("/v1/banks/k/retain", json={}), 422)  # neither messages nor text
        unknown = _problem(http.post("/v1/banks/k/recall", json={"query": "x", "max_token": 5}), 422)
        assert "max_token" in unknown["detail"]
        _problem(http.post("/v1/banks/k/recall", json={"query": 12}), 422)
        _problem(http.post("/v1/banks/k/retain", json={"messages": "not a list"}), 422)
        _problem(http.post("/v1/banks/k/recall", content=b"{not json", headers={"content-type": "application/json"}),
                 400)
        _problem(http.post("/v1/banks/k/recall", json={"query": "x", "now": "언젠가"}), 422)
        _problem(http.post("/v1/banks/k/forget", json={}), 422)
        big = "가" * 100_000  # 300 kB of UTF-8, over this server's 200 kB limit
        too_big = _problem(http.post("/v1/banks/k/retain", json={"text": big}), 413)
        assert "server_max_body_bytes" in too_big["detail"]
        chunked = http.post("/v1/banks/k/retain", content=iter([b'{"text": "', big.encode(), b'"}']),
                            headers={"content-type": "application/json"})  # no Content-Length: counted as it comes
        _problem(chunked, 413)
        mem.set_redaction_policy("k", {"kr_rrn": "block"})
        blocked = _problem(http.post("/v1/banks/k/retain", json={"text": "주민번호 900101-1234568 이에요"}), 422)
        assert "900101-1234568" not in blocked["detail"] and blocked["error"] == "BlockedContentError"
        _problem(http.get("/v1/nothing-here"), 404)
    assert [(b.name, b.sources, b.facts) for b in mem.banks()] == before


def test_an_unexpected_error_is_a_500_without_a_traceback(server: tuple[str, Memory], monkeypatch) -> None:
    url, mem = server

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals /home/x/gieok.db")

    monkeypatch.setattr(mem, "banks", broken)
    with httpx.Client(base_url=url, timeout=60) as http:
        body = _problem(http.get("/v1/banks"), 500)
        assert "secret internals" not in json.dumps(body)


def test_keys_keep_banks_apart(server: tuple[str, Memory]) -> None:
    url, mem = server
    mem.retain("alice", messages=CHAT)
    mem.retain("bob", text="Bob의 비밀번호 힌트는 고양이 이름이다.", document_id="b1")
    _, alice_key = keys.create_key(mem.engine, role="write", banks=["alice"])
    _, reader_key = keys.create_key(mem.engine, role="read", banks=["bob"])
    _, admin_key = keys.create_key(mem.engine, role="admin")
    import time

    time.sleep(2.1)  # the server looks for keys every 2 s: now they are in force
    with httpx.Client(base_url=url, timeout=60) as anon, \
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {alice_key}"}) as alice, \
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {reader_key}"}) as reader, \
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {admin_key}"}) as admin:
        assert _problem(anon.get("/v1/banks"), 401)["detail"].startswith("API key missing")
        assert anon.get("/v1/banks").headers["www-authenticate"] == "Bearer"
        _problem(anon.get("/v1/banks", headers={"Authorization": "Bearer gk_wrong"}), 401)
        assert [b["name"] for b in alice.get("/v1/banks").json()] == ["alice"]
        assert alice.post("/v1/banks/alice/recall", json={"query": "Hana"}).status_code == 200
        hidden = _problem(alice.post("/v1/banks/bob/recall", json={"query": "비밀번호"}), 404)
        missing = _problem(alice.post("/v1/banks/carol/recall", json={"query": "x"}), 404)
        assert hidden["detail"].replace("bob", "?") == missing["detail"].replace("carol", "?")
        assert reader.post("/v1/banks/bob/recall", json={"query": "비밀번호 힌트"}).json()["memories"]
        _problem(reader.post("/v1/banks/bob/forget", json={"source_id": "b1"}), 403)
        _problem(alice.delete("/v1/banks/alice"), 403)
        _problem(alice.post("/v1/keys", json={"role": "admin"}), 403)
        assert {b["name"] for b in admin.get("/v1/banks").json()} == {"alice", "bob"}
        made = admin.post("/v1/keys", json={"role": "read", "banks": ["alice"]})
        assert made.status_code == 201 and made.json()["key"].startswith("gk_")
        assert all("key" not in k for k in admin.get("/v1/keys").json())
        revoked = admin.delete(f"/v1/keys/{made.json()['id']}").json()
        assert revoked["revoked_at"] is not None
        _problem(anon.get("/v1/banks", headers={"Authorization": f"Bearer {made.json()['key']}"}), 401)
    assert mem.source("bob", "b1").text  # nothing the refused calls asked for happened


def test_health_metrics_and_openapi(server: tuple[str, Memory]) -> None:
    url, mem = server
    with httpx.Client(base_url=url, timeout=60) as http:
        health = http.get("/health").json()
        assert health["status"] == "ok" and health["worker"] is True and health["keys_required"] is False
        http.post("/v1/banks/nobody/recall", json={"query": "x"})
        metrics = http.get("/metrics")
        assert metrics.status_code == 200 and "text/plain" in metrics.headers["content-type"]
        assert 'route="/v1/banks/{bank}/recall"' in metrics.text and 'status="404"' in metrics.text
        assert "nobody" not in metrics.text  # bank names never become labels
        spec = http.get("/openapi.json").json()
        for path in ("/v1/banks", "/v1/banks/{bank}", "/v1/banks/{bank}/retain", "/v1/banks/{bank}/recall",
                     "/v1/banks/{bank}/reflect", "/v1/banks/{bank}/forget", "/v1/banks/{bank}/memories/{memory_id}",
                     "/v1/banks/{bank}/memories/{memory_id}/history", "/v1/banks/{bank}/sources",
                     "/v1/banks/{bank}/entities", "/v1/operations/{operation_id}", "/health", "/metrics"):
            assert path in spec["paths"], path
        schemas = spec["components"]["schemas"]
        assert {"Recall", "RecalledMemory", "RetainResult", "Reflection", "ForgetResult"} <= set(schemas)
        assert "_probes" not in json.dumps(schemas)
        assert http.get("/docs").status_code == 200


def test_memory_defense_holds_over_http(db_path: str, fake_embedder: object) -> None:
    secret_key = "sk-proj-" + "Q7w9E2r4T6y8U1i3" * 3
    rrn = "900101-1234568"
    mem = Memory(db_path, embedder="fake")
    app = create_app(mem, mcp=False, poll_seconds=0.05)
    with mem, serving(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        said = [{"id": "d1", "speaker": "민수", "text": f"배포 키는 {secret_key} 이고 내 주민번호는 {rrn} 이야."},
                {"id": "d2", "speaker": "Minsu", "text": f"Also keep {secret_key} for the staging deploy."}]
        assert http.post("/v1/banks/민수/retain", json={"messages": said}).json()["redactions"] >= 3
        queued = http.post("/v1/banks/민수/retain", json={"text": f"문서: {rrn} / {secret_key}", "async": True})
        assert queued.status_code == 202
        assert wait_for_operation(http, queued.json()["operation_id"])["status"] == "done"
        found = http.post("/v1/banks/민수/recall", json={"query": "배포 키 staging deploy"}).json()
        assert found["memories"] and secret_key not in json.dumps(found, ensure_ascii=False)
    raw = b"".join(Path(db_path + suffix).read_bytes() for suffix in ("", "-wal") if os.path.exists(db_path + suffix))
    assert secret_key.encode() not in raw and rrn.encode() not in raw


def test_sessions_over_http_add_turns_render_and_context(server: tuple[str, Memory]) -> None:
    url, mem = server
    with httpx.Client(base_url=url, timeout=60) as http:
        first = http.post("/v1/banks/수진/sessions/chat-1/turns",
                          json={"role": "user", "content": "나 새우 알레르기 있어.", "max_tokens": 60,
                                "keep_recent": 1})
        assert first.status_code == 201 and first.json()["position"] == 0
        for text in ["I decided to book the Busan trip for May 3rd.", "ok and then we talked about the weather a lot",
                     "그리고 날씨 얘기를 한참 더 했어 하늘이 맑고 바람이 좋았어",
                     "and more chatting about the clouds over the river and the sunset colours tonight",
                     "구름 이야기랑 노을 이야기를 또 한참 했어 정말 한참 동안 계속 이야기했어"]:
            http.post("/v1/banks/수진/sessions/chat-1/turns",
                      json={"content": text, "max_tokens": 60, "keep_recent": 1}).raise_for_status()
        shown = http.get("/v1/banks/수진/sessions/chat-1", params={"session_tokens": 60, "keep_recent": 1}).json()
        assert "새우 알레르기" in shown["summary"] and "May 3rd" in shown["summary"]
        assert shown["messages"][0]["role"] == "system" and shown["source_id"] == "session:chat-1"
        ctx = http.get("/v1/banks/수진/sessions/chat-1",
                       params={"query": "Can I eat shrimp?", "max_tokens": 500, "session_tokens": 60}).json()
        assert ctx["recalled"] is True and ctx["tokens"] <= 500
        skipped = http.get("/v1/banks/수진/sessions/chat-1", params={"query": "ㅋㅋ 고마워"}).json()
        assert skipped["recalled"] is False and skipped["memories"] == []
        bad = http.post("/v1/banks/수진/sessions/chat-1/turns", json={"role": "narrator", "content": "hi 안녕"})
        assert "role" in _problem(bad, 422)["detail"]


def test_profile_and_lookup_over_http(server: tuple[str, Memory]) -> None:
    url, mem = server
    mem.retain("pf", messages=[
        {"id": "a", "speaker": "지호", "text": "저 새우 알레르기 있어요.", "timestamp": "2026-01-05T10:00:00+09:00"},
        {"id": "b", "speaker": "지호", "text": "I work as a data engineer.", "timestamp": "2026-01-06T10:00:00+09:00"}])
    with httpx.Client(base_url=url, timeout=60) as http:
        people = http.get("/v1/banks/pf/profile").json()
        assert people[0]["person"] == "지호" and {s["slot"] for s in people[0]["slots"]} >= {"allergy", "job"}
        job = http.get("/v1/banks/pf/profile/job").json()
        assert job["value"] == "data engineer" and job["memory_ids"]
        assert http.get("/v1/banks/pf/profile/birthday").json() is None
        assert "birthday" in _problem(http.get("/v1/banks/pf/profile/shoes"), 422)["detail"]


def test_openai_messages_over_http_and_a_schema_that_says_so(server: tuple[str, Memory]) -> None:
    url, mem = server
    chat = [{"role": "user", "content": "나 땅콩 알레르기 있어.", "created_at": "2026-05-04T09:00:00+09:00"},
            {"role": "assistant", "content": "Got it, no peanuts.", "id": 7}]
    with httpx.Client(base_url=url, timeout=60) as http:
        retained = http.post("/v1/banks/oa/retain", json={"messages": chat, "document_id": "oa"})
        assert retained.status_code == 200, retained.text
        assert [(m.speaker, m.text) for m in mem.source("oa", "oa").messages] == \
            [("user", chat[0]["content"]), ("assistant", chat[1]["content"])]
        queued = http.post("/v1/banks/oa/retain", json={"messages": chat[:1], "document_id": "q", "async": True})
        assert wait_for_operation(http, queued.json()["operation_id"])["status"] == "done"
        typo = _problem(http.post("/v1/banks/oa/retain", json={"messages": [{"role": "user", "contnet": "hi"}]}), 422)
        assert "contnet" in typo["detail"] or "text" in typo["detail"]
        silent = http.post("/v1/banks/oa/retain", json={"messages": [{"role": "user"}]})
        assert "text" in _problem(silent, 422)["detail"]
        message = http.get("/openapi.json").json()["components"]["schemas"]["MessageIn"]
        assert {"speaker", "text", "role", "content", "name", "created_at"} <= set(message["properties"])
        assert message["anyOf"] == [{"required": ["text"]}, {"required": ["content"]}]
        assert message["additionalProperties"] is False
