"""FakeLLMServer: a real HTTP server on 127.0.0.1 answering the OpenAI and Anthropic chat protocols.

::

    with FakeLLMServer() as server:
        server.queue(content="안녕", usage=(12, 3))
        llm = OpenAICompatibleLLM(server.base_url, "fake-model")
        llm.complete("hi")
        server.requests[0].body["messages"]

Replies are queued once and popped in order, whichever endpoint is called, and written in that
endpoint's shape: ``POST /v1/chat/completions`` (OpenAI) or ``POST /v1/messages`` (Anthropic; a
:meth:`queue_json` reply becomes the forced tool call when the request has tools). ``requests`` records
every request (path, lower-cased headers, raw bytes, parsed body), including refused ones. With
``reject_response_format=True`` a request carrying ``response_format`` gets a 400 without using the
queue. An empty queue answers 418, which is never retried, so a missing reply fails fast.

Import it from a test module as ``from fake_llm import FakeLLMServer``: ``tests`` is not a package, and
pytest puts this folder on ``sys.path``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeLLMServer", "Recorded"]

_ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens"}


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]  # names lower-cased
    raw: bytes

    @property
    def body(self) -> Any:
        try:
            return json.loads(self.raw.decode("utf-8"))
        except ValueError:
            return None


@dataclass
class _Reply:
    status: int = 200
    content: str | None = None
    data: dict[str, Any] | None = None
    finish_reason: str = "stop"
    usage: tuple[int, int] = (10, 5)
    model: str | None = None
    error_body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FakeLLMServer:
    """Loopback chat server with queued replies; a context manager that joins its threads on exit."""

    def __init__(self, *, reject_response_format: bool = False) -> None:
        self.reject_response_format = reject_response_format
        self.requests: list[Recorded] = []
        self._replies: deque[_Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._closed = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                recorded = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                server._answer(self, recorded)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = False
        self.httpd.block_on_close = True  # server_close() joins every handler thread
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01})

    # --- scripting ----------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def queue(
        self,
        content: str = "",
        finish_reason: str = "stop",
        usage: tuple[int, int] = (10, 5),
        *,
        model: str | None = None,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        """Queue a text reply. ``finish_reason`` is OpenAI's word; Anthropic gets its own for it."""
        self._push(_Reply(200, content, None, finish_reason, usage, model, None, dict(headers or {}), delay))

    def queue_json(self, obj: dict[str, Any], finish_reason: str = "stop", usage: tuple[int, int] = (10, 5)) -> None:
        """Queue structured output: JSON text for OpenAI, the forced tool call's input for Anthropic."""
        self._push(_Reply(200, None, obj, finish_reason, usage))

    def queue_error(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        """Queue an error reply; ``body`` is a dict (sent as JSON), a string, or None for a default."""
        if body is None:
            body = {"error": {"message": f"fake error {status}", "type": "fake"}}
        self._push(_Reply(status, error_body=body, headers=dict(headers or {})))

    def _push(self, reply: _Reply) -> None:
        with self._lock:
            self._replies.append(reply)

    @property
    def pending(self) -> int:
        return len(self._replies)

    # --- serving ------------------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, recorded: Recorded) -> None:
        body = recorded.body if isinstance(recorded.body, dict) else {}
        with self._lock:
            self.requests.append(recorded)
            if recorded.path not in ("/v1/chat/completions", "/v1/messages"):
                reply = _Reply(404, error_body={"error": {"message": f"no route {recorded.path}"}})
            elif self.reject_response_format and "response_format" in body:
                reply = _Reply(400, error_body={"error": {
                    "message": "response_format of type json_schema is not supported by this server",
                    "type": "invalid_request_error", "param": "response_format"}})
            elif self._replies:
                reply = self._replies.popleft()
            else:
                reply = _Reply(418, error_body={"error": {"message": "the fake server has no reply queued"}})
        if reply.delay:
            self._stop.wait(reply.delay)
        if reply.error_body is not None:
            payload = reply.error_body
        elif recorded.path == "/v1/messages":
            payload = self._anthropic(reply, body)
        else:
            payload = self._openai(reply, body)
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        data = text.encode("utf-8")
        try:
            handler.send_response(reply.status)
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Type", "application/json; charset=utf-8")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:  # the client gave up (timeout test)
            pass

    @staticmethod
    def _openai(reply: _Reply, body: dict[str, Any]) -> dict[str, Any]:
        content = json.dumps(reply.data, ensure_ascii=False) if reply.data is not None else reply.content
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": reply.model or body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                      "total_tokens": sum(reply.usage)},
        }

    @staticmethod
    def _anthropic(reply: _Reply, body: dict[str, Any]) -> dict[str, Any]:
        stop = _ANTHROPIC_STOP.get(reply.finish_reason, reply.finish_reason)
        tool = (body.get("tool_choice") or {}).get("name")
        if reply.data is not None and tool:
            blocks: list[dict[str, Any]] = [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": reply.data}]
            stop = "tool_use" if reply.finish_reason == "stop" else stop
        else:
            text = json.dumps(reply.data, ensure_ascii=False) if reply.data is not None else reply.content
            blocks = [{"type": "text", "text": text}]
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": reply.model or body.get("model", "fake"),
            "content": blocks,
            "stop_reason": stop,
            "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
        }

    # --- lifetime -----------------------------------------------------------------------------------

    def __enter__(self) -> FakeLLMServer:  # noqa: PYI034 (Python 3.10 has no typing.Self)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()  # wakes delayed replies so their threads can be joined
        if self._thread.is_alive():
            self.httpd.shutdown()
            self._thread.join()
        self.httpd.server_close()
