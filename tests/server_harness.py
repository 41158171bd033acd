"""A real uvicorn serving an app on a free loopback port, in a thread of the test process (so the
fake embedder registered by the test's fixture is the server's too)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: Any, *, timeout: float = 20.0) -> Iterator[str]:
    """Serve ``app``; yields its base URL and stops the server (and its lifespan) on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def wait_for_operation(http: Any, operation_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """Poll GET /v1/operations/{id} until the operation is done or failed."""
    deadline = time.monotonic() + timeout
    while True:
        op: dict[str, Any] = http.get(f"/v1/operations/{operation_id}").json()
        if op.get("status") in ("done", "failed") or time.monotonic() > deadline:
            return op
        time.sleep(0.05)
