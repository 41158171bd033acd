"""The HTTP API: FastAPI routes over the same Memory the library's users call.

:func:`create_app` only assembles the app: middleware, error handlers, the lifespan (the worker and
MCP's session manager), the server's state, and the routes — one router per resource in
:mod:`gieok.server.routes`, the web UI (:mod:`gieok.server.ui`) and the MCP tools
(:mod:`gieok.server.mcp`). Sync routes run in FastAPI's thread pool, so a retain writing (SQLite:
one writer, WAL readers beside it) never blocks a recall. Submitted retains and the background jobs
run on the in-process worker (:mod:`gieok.server.worker`) unless the server was started without it.
"""


import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI

from gieok import __version__
from gieok.memory import Memory
from gieok.server.errors import CatchUnexpected, install_error_handlers
from gieok.server.limits import BodyLimit
from gieok.server.metrics import Metrics
from gieok.server.readiness import Readiness
from gieok.server.routes import Gate, ServerState, add_api_routes
from gieok.server.worker import Worker

__all__ = ["create_app"]

log = logging.getLogger("gieok.server")

_WARM_UP_SHUTDOWN_SECONDS = 60.0


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Warm up in the background (``/ready``), run the worker and hold MCP's session manager open
    while serving."""
    server: ServerState = app.state.server
    server.readiness.start()
    if server.worker is not None:
        server.worker.start()
    try:
        async with AsyncExitStack() as stack:
            for running in server.serving:
                await stack.enter_async_context(running())
            yield
    finally:
        if server.worker is not None:
            server.worker.stop()
        # a native library loading in a thread while the interpreter shuts down can abort it
        await asyncio.to_thread(server.readiness.wait, _WARM_UP_SHUTDOWN_SECONDS)


def create_app(memory: Memory, *, require_keys: bool = False, worker: bool = True, mcp: bool = True,
               max_body_bytes: int | None = None, poll_seconds: float = 1.0, host: str = "127.0.0.1",
               ui: bool = True, public_docs: bool = False, public_metrics: bool = False,
               warm_up: bool | Callable[[], object] = True) -> FastAPI:
    """The ASGI app serving ``memory``. ``require_keys`` refuses requests without a valid key even
    while no key exists; ``worker`` runs queued jobs (submitted retains, consolidation, decay) in a
    background thread; ``mcp`` serves the MCP tools at ``/mcp`` (``host``, the interface served, decides
    whether MCP refuses requests naming another Host, against DNS rebinding on loopback); ``ui`` serves
    the web UI at ``/ui`` (:mod:`gieok.server.ui`: the same keys, the key kept in an HttpOnly cookie).
    Once keys are in force, ``/openapi.json``, ``/docs``, ``/redoc`` and ``/metrics`` want one too (any
    role: the schema and the counters tell an attacker what to try), unless ``public_docs`` /
    ``public_metrics``. ``warm_up`` loads the models in the background once the server starts
    (:meth:`Memory.warm_up`, or the callable given), ``/ready`` answering 503 until it has; False:
    ready at once."""
    gate = Gate(memory, require_keys)
    metrics = Metrics()
    runner = Worker(memory, poll_seconds=poll_seconds) if worker else None
    warming = memory.warm_up if warm_up is True else (warm_up or None)
    server = ServerState(memory, gate, metrics, runner, public_docs=public_docs, public_metrics=public_metrics,
                         readiness=Readiness(warming))

    app = FastAPI(title="gieok", version=__version__, lifespan=_lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None, description="Long-term memory for AI agents: retain, recall, reflect, forget.")
    install_error_handlers(app)
    app.add_middleware(CatchUnexpected)  # first added, innermost: inside the metrics and the body limit
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes or int(memory.settings.server_max_body_bytes))
    app.middleware("http")(metrics.middleware)
    app.state.server = server
    app.state.memory, app.state.gate, app.state.worker = memory, gate, runner

    add_api_routes(app)
    if ui:
        from gieok.server.ui import mount_ui  # Jinja2 is needed only here

        mount_ui(app, memory, gate.principal, gate.keys_in_force)
    if mcp:
        from gieok.server.mcp import mount_mcp  # the MCP SDK is needed only here

        server.serving.append(mount_mcp(app, memory, authenticate=gate.principal, host=host))
    return app
