"""Live and ready (gieok/server/readiness.py): ``/health`` answers at once, ``/ready`` answers 503 — the
one problem+json body, with ``ready``, ``state``, ``seconds`` — while the server warms up in the
background, and 200 once it has; a failed warm-up keeps it at 503 with the error."""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi.testclient import TestClient

from gieok import Memory
from gieok.server.app import create_app
from gieok.server.readiness import Readiness


def _wait_ready(http: TestClient, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = http.get("/ready")
        if answer.status_code == 200:
            return answer
        time.sleep(0.02)
    raise AssertionError(f"/ready never answered 200: {answer.json()}")


def test_ready_is_503_while_warming_and_200_after(mem: Memory) -> None:
    release, began = threading.Event(), threading.Event()

    def slow_warm_up() -> None:  # stands for loading the embedder and Kiwi
        began.set()
        assert release.wait(30)

    with TestClient(create_app(mem, worker=False, mcp=False, ui=False, warm_up=slow_warm_up)) as http:
        assert began.wait(10)
        warming = http.get("/ready")
        assert warming.status_code == 503
        assert warming.headers["content-type"].startswith("application/problem+json")
        assert warming.headers["retry-after"] == "1"
        body = warming.json()
        assert body["ready"] is False and body["state"] == "warming" and body["status"] == 503
        assert body["seconds"] >= 0 and body["warm_up_error"] is None and "warming up" in body["detail"]
        health = http.get("/health")  # live: answers while the warm-up runs
        assert health.status_code == 200 and health.json()["status"] == "ok"
        release.set()
        ready = _wait_ready(http).json()
        assert ready["ready"] is True and ready["state"] == "ready" and ready["seconds"] >= 0


def test_a_failed_warm_up_keeps_ready_at_503_with_the_error(mem: Memory) -> None:
    def broken() -> None:
        raise OSError("형태소 분석기 모델 파일을 읽을 수 없음 (model file unreadable)")

    with TestClient(create_app(mem, worker=False, mcp=False, ui=False, warm_up=broken)) as http:
        app_state = http.app.state.server
        assert app_state.readiness.wait(10) is False
        failed = http.get("/ready")
        body = failed.json()
        assert failed.status_code == 503 and body["state"] == "failed" and body["ready"] is False
        assert body["warm_up_error"] == "OSError: 형태소 분석기 모델 파일을 읽을 수 없음 (model file unreadable)"
        assert "restart" in body["detail"]
        assert http.get("/health").status_code == 200


def test_ready_needs_no_key_and_says_starting_before_the_lifespan(mem: Memory) -> None:
    from gieok.engine.admin import keys

    keys.create_key(mem.engine, role="admin")
    app = create_app(mem, worker=False, mcp=False, ui=False, warm_up=lambda: None)
    starting = TestClient(app).get("/ready")  # no `with`: the lifespan (and so the warm-up) never started
    assert starting.status_code == 503 and starting.json()["state"] == "starting"
    with TestClient(app) as http:
        assert _wait_ready(http).json()["state"] == "ready"  # no Authorization header: a probe carries none
        assert http.get("/v1/banks").status_code == 401


def test_without_a_warm_up_the_server_is_ready_at_once(mem: Memory) -> None:
    http = TestClient(create_app(mem, worker=False, mcp=False, ui=False, warm_up=False))
    answer = http.get("/ready")
    assert answer.status_code == 200 and answer.json() == {"ready": True, "state": "ready", "seconds": 0.0,
                                                           "warm_up_error": None}


def test_the_warm_up_runs_once_and_shutdown_waits_for_it(mem: Memory) -> None:
    calls: list[int] = []
    readiness = Readiness(lambda: (time.sleep(0.2), calls.append(1)))
    readiness.start()
    readiness.start()
    assert readiness.report()["state"] == "warming"
    assert readiness.wait(10) is True and calls == [1]
    with TestClient(create_app(mem, worker=False, mcp=False, ui=False,
                               warm_up=lambda: (time.sleep(0.3), calls.append(2)))):
        pass  # leaving the lifespan at once: it waits for the warm-up thread before the process may exit
    assert calls == [1, 2]
