"""What the API's routes share, handed to them as FastAPI dependencies: the server's state (one
:class:`ServerState` on ``app.state.server``, set by :func:`gieok.server.app.create_app`), the Memory
it serves, the caller's key (:class:`Principal`) and the bank that key may read or write.

Nothing here is a module global holding a server: two apps in one process (the tests) each read
their own state from the request's app.
"""


import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from gieok.memory import Memory
from gieok.records import OPEN_ACCESS, Operation, Principal
from gieok.server.metrics import Metrics
from gieok.server.readiness import Readiness
from gieok.server.schemas import OperationAccepted
from gieok.server.worker import Worker

__all__ = ["Gate", "ServerState", "Server", "Mem", "Caller", "Readable", "Writable", "server_state", "served_memory",
           "caller", "allowed", "docs_page", "metrics_page", "accepted"]

_KEYS_CHECK_SECONDS = 2.0


class Gate:
    """Whether requests need a key: always with ``require_keys``, else as soon as one key exists
    (looked up at most every few seconds, so a key created while serving takes effect at once)."""

    def __init__(self, memory: Memory, require_keys: bool) -> None:
        self.memory, self.require_keys = memory, require_keys
        self._checked, self._keys = 0.0, False

    def keys_in_force(self) -> bool:
        if self.require_keys:
            return True
        now = time.monotonic()
        if now - self._checked > _KEYS_CHECK_SECONDS:
            self._keys, self._checked = self.memory.keys.count() > 0, now
        return self._keys

    def principal(self, authorization: str | None) -> Principal:
        if not self.keys_in_force():
            return OPEN_ACCESS
        token = authorization.split(" ", 1)[1] if authorization and " " in authorization else None
        if authorization and not authorization.lower().startswith("bearer "):
            token = None
        return self.memory.keys.authenticate(token)


@dataclass
class ServerState:
    """One server: its Memory, key gate, metrics and worker (``None`` when started without one);
    whether the schema pages and ``/metrics`` are open without a key; the context managers its
    lifespan holds open while serving (the MCP session manager); and whether it has warmed up
    (``/ready``, :mod:`gieok.server.readiness`)."""

    memory: Memory
    gate: Gate
    metrics: Metrics
    worker: Worker | None
    public_docs: bool = False
    public_metrics: bool = False
    serving: list[Callable[[], AbstractAsyncContextManager[None]]] = field(default_factory=list)
    readiness: Readiness = field(default_factory=lambda: Readiness(None))

    def wake(self) -> None:
        """Tell the worker a job was queued, so it runs now rather than at its next poll."""
        if self.worker is not None:
            self.worker.wake()


async def server_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.server
    return state


async def served_memory(request: Request) -> Memory:
    return (await server_state(request)).memory


def caller(request: Request) -> Principal:
    """The caller's key (a sync dependency: the key lookup reads the database, in the thread pool)."""
    state: ServerState = request.app.state.server
    return state.gate.principal(request.headers.get("authorization"))


Server = Annotated[ServerState, Depends(server_state)]
Mem = Annotated[Memory, Depends(served_memory)]
Caller = Annotated[Principal, Depends(caller)]


def allowed(need: str) -> Callable[[str, Principal], str]:
    def check(bank: str, who: Caller) -> str:
        who.require(bank, need)
        return bank
    return check


Readable = Annotated[str, Depends(allowed("read"))]
Writable = Annotated[str, Depends(allowed("write"))]


def docs_page(request: Request) -> None:
    """``/openapi.json``, ``/docs`` and ``/redoc`` want a key while keys are in force, unless public."""
    state: ServerState = request.app.state.server
    if not state.public_docs:
        caller(request)  # KeyRequiredError (401) while keys are in force and none is sent


def metrics_page(request: Request) -> None:
    """``/metrics`` wants a key while keys are in force, unless public."""
    state: ServerState = request.app.state.server
    if not state.public_metrics:
        caller(request)


def accepted(op: Operation) -> JSONResponse:
    """202 for a queued job: its id, status and bank, and where to poll it."""
    body = OperationAccepted(operation_id=op.id, status=op.status, bank=op.bank)
    return JSONResponse(body.model_dump(), status_code=202, headers={"Location": f"/v1/operations/{op.id}"})
