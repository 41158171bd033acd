"""Typed errors as HTTP answers: a status and an ``application/problem+json`` body (RFC 9457).

The body keeps the library's message, which says how to fix the problem; nothing else of the error
leaves the process (no traceback, no input echoed back: a request may hold a secret).

An exception that is no :class:`GieokError` (a bug) is answered by :class:`CatchUnexpected`, a plain
ASGI middleware, rather than by a handler for ``Exception``: Starlette runs that handler in its
outermost middleware, which re-raises after answering, and uvicorn then closes the keep-alive
connection — the client's next request on it failed with a reset.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gieok.errors import (
    AuthError,
    BankExistsError,
    BlockedContentError,
    ConfigError,
    DocumentTooLargeError,
    EmbedderMismatchError,
    GieokError,
    InputError,
    InternalError,
    KeyRequiredError,
    LLMError,
    LLMRateLimitError,
    LLMUnavailableError,
    NotFoundError,
    OperationStateError,
    PermissionDeniedError,
    ReembedRunningError,
    RerankerUnavailableError,
    SpendLimitError,
    StoreBusyError,
)

__all__ = ["STATUS", "CatchUnexpected", "install_error_handlers", "problem", "status_of", "typed_problem"]

log = logging.getLogger("gieok.server")

# most specific first: the first class an error is an instance of decides its status
STATUS: tuple[tuple[type[GieokError], int, str], ...] = (
    (KeyRequiredError, 401, "key-required"),
    (PermissionDeniedError, 403, "permission-denied"),
    (AuthError, 401, "key-required"),
    (NotFoundError, 404, "not-found"),
    (BlockedContentError, 422, "blocked-by-policy"),
    (DocumentTooLargeError, 413, "document-too-large"),
    (BankExistsError, 409, "bank-exists"),
    (InputError, 422, "invalid-input"),
    (ConfigError, 422, "invalid-configuration"),
    (EmbedderMismatchError, 409, "embedder-mismatch"),
    (OperationStateError, 409, "operation-state"),
    (ReembedRunningError, 409, "reembed-running"),
    (SpendLimitError, 429, "spend-limit"),
    (StoreBusyError, 503, "store-busy"),
    (LLMRateLimitError, 503, "llm-unavailable"),
    (LLMUnavailableError, 503, "llm-unavailable"),
    (RerankerUnavailableError, 503, "reranker-unavailable"),
    (LLMError, 502, "llm-error"),
    (InternalError, 500, "internal"),
)


def status_of(exc: GieokError) -> tuple[int, str]:
    for cls, status, kind in STATUS:
        if isinstance(exc, cls):
            return status, kind
    return 500, "internal"


def typed_problem(exc: GieokError) -> JSONResponse:
    status, kind = status_of(exc)
    if status >= 500 and not isinstance(exc, InternalError):  # CatchUnexpected logged its traceback
        log.error("%s: %s", type(exc).__name__, exc)
    return problem(status, kind, str(exc), error=type(exc).__name__)


def problem(status: int, kind: str, detail: str, **extra: Any) -> JSONResponse:
    body = {"type": f"https://gieok.dev/problems/{kind}", "title": kind.replace("-", " "), "status": status,
            "detail": detail, **extra}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, media_type="application/problem+json", headers=headers)


def _validation_detail(exc: RequestValidationError) -> tuple[int, str, list[dict[str, Any]]]:
    errors = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
              for e in exc.errors()]
    if any(e["type"] == "json_invalid" for e in errors):
        return 400, "the body is not valid JSON: send a JSON object with Content-Type: application/json", errors
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(p for p in first["loc"] if p != "body") or "body"
    return 422, f"{where}: {first['msg']} (see /docs for this route's schema)", errors


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(GieokError)
    async def gieok_error(_request: Request, exc: GieokError) -> JSONResponse:
        return typed_problem(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        status, detail, errors = _validation_detail(exc)
        return problem(status, "invalid-json" if status == 400 else "invalid-input", detail, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not-found", 405: "method-not-allowed", 413: "body-too-large"}.get(exc.status_code, "http-error")
        return problem(exc.status_code, kind, str(exc.detail))


class CatchUnexpected:
    """The last resort: any exception escaping the routes becomes :class:`InternalError`'s 500, its
    traceback logged here and never sent. Added innermost of the app's middleware, so the metrics
    count the 500 and the connection stays open for the client's next request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except StarletteHTTPException:
            raise  # BodyLimit's 413 from a reader that is not FastAPI's: BodyLimit answers it
        except Exception:
            log.exception("unexpected error")  # the traceback goes to the server's log, never to the client
            if started:  # half an answer was sent: only closing the connection can end it
                raise
            await typed_problem(InternalError())(scope, receive, send)
