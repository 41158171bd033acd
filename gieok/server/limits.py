"""The request-body limit, enforced before a route reads the body: a declared ``Content-Length``
over the limit is refused at once, and a chunked body is counted as it streams in."""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit"]


def _detail(max_bytes: int) -> str:
    return (f"the request body is over {max_bytes} bytes: split the document, or raise the "
            "server_max_body_bytes setting (GIEOK_SERVER_MAX_BODY_BYTES)")


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, int(max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # FastAPI lets an HTTPException raised while it reads the body through, so the
                    # app's handler answers 413 as problem+json
                    raise HTTPException(413, _detail(self.max_bytes))
            return message

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracking)
        except HTTPException as exc:  # from a reader that is not FastAPI's (the MCP mount)
            if exc.status_code != 413 or started:
                raise
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body: dict[str, Any] = {
            "type": "https://gieok.dev/problems/body-too-large", "title": "body too large", "status": 413,
            "detail": _detail(self.max_bytes)}
        raw = json.dumps(body).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/problem+json"),
                                (b"content-length", str(len(raw)).encode())]})
        await send({"type": "http.response.body", "body": raw})
