"""The HTTP API: FastAPI routes over the same Memory the library's users call.

Every route is a thin call: check the caller's key against the bank (:class:`Principal`), call one
:class:`gieok.Memory` method, return its record. Sync routes run in FastAPI's thread pool, so a
retain writing (SQLite: one writer, WAL readers beside it) never blocks a recall. Submitted retains
and the background jobs run on the in-process worker (:mod:`gieok.server.worker`) unless the server
was started without it.
"""


import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from starlette.concurrency import run_in_threadpool

from gieok import __version__
from gieok.errors import OperationNotFoundError
from gieok.memory import Memory
from gieok.records import (
    OPEN_ACCESS,
    ApiKey,
    BankInfo,
    EntityInfo,
    ForgetResult,
    HeldStatement,
    ImportResult,
    IngestResult,
    Operation,
    Principal,
    Recall,
    RecalledMemory,
    Reflection,
    RetainResult,
    SourceInfo,
)
from gieok.server.configuration import add_configuration_routes
from gieok.server.errors import CatchUnexpected, install_error_handlers
from gieok.server.limits import BodyLimit
from gieok.server.metrics import Metrics
from gieok.server.schemas import (
    TRUST_HELP,
    FactOverrides,
    ForgetRequest,
    KeyRequest,
    OperationAccepted,
    PinRequest,
    RecallRequest,
    ReembedRequest,
    ReflectRequest,
    RetainRequest,
    SessionTurnRequest,
    Trust,
    json_object,
)
from gieok.server.worker import Worker

__all__ = ["create_app"]

log = logging.getLogger("gieok.server")
_KEYS_CHECK_SECONDS = 2.0
_NO_OVERRIDES = FactOverrides()


class _Gate:
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


def create_app(memory: Memory, *, require_keys: bool = False, worker: bool = True, mcp: bool = True,
               max_body_bytes: int | None = None, poll_seconds: float = 1.0, host: str = "127.0.0.1",
               ui: bool = True, public_docs: bool = False, public_metrics: bool = False) -> FastAPI:
    """The ASGI app serving ``memory``. ``require_keys`` refuses requests without a valid key even
    while no key exists; ``worker`` runs queued jobs (submitted retains, consolidation, decay) in a
    background thread; ``mcp`` serves the MCP tools at ``/mcp`` (``host``, the interface served, decides
    whether MCP refuses requests naming another Host, against DNS rebinding on loopback); ``ui`` serves
    the web UI at ``/ui`` (:mod:`gieok.server.ui`: the same keys, the key kept in an HttpOnly cookie).
    Once keys are in force, ``/openapi.json``, ``/docs``, ``/redoc`` and ``/metrics`` want one too (any
    role: the schema and the counters tell an attacker what to try), unless ``public_docs`` /
    ``public_metrics``."""
    gate = _Gate(memory, require_keys)
    metrics = Metrics()
    runner = Worker(memory, poll_seconds=poll_seconds) if worker else None

    mcp_running: list[Callable[[], AbstractAsyncContextManager[None]]] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if runner is not None:
            runner.start()
        try:
            async with AsyncExitStack() as stack:
                for running in mcp_running:
                    await stack.enter_async_context(running())
                yield
        finally:
            if runner is not None:
                runner.stop()

    app = FastAPI(title="gieok", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None, description="Long-term memory for AI agents: retain, recall, reflect, forget.")
    install_error_handlers(app)
    app.add_middleware(CatchUnexpected)  # first added, innermost: inside the metrics and the body limit
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes or int(memory.settings.server_max_body_bytes))
    app.middleware("http")(metrics.middleware)
    app.state.memory, app.state.gate, app.state.worker = memory, gate, runner

    def caller(request: Request) -> Principal:
        return gate.principal(request.headers.get("authorization"))

    Caller = Annotated[Principal, Depends(caller)]

    def allowed(need: str) -> Callable[[str, Principal], str]:
        def check(bank: str, who: Caller) -> str:
            who.require(bank, need)
            return bank
        return check

    def service_page(public: bool) -> Callable[[Request], None]:
        def check(request: Request) -> None:
            if not public:
                caller(request)  # KeyRequiredError (401) while keys are in force and none is sent
        return check

    _mount_docs(app, Depends(service_page(public_docs)))
    Readable = Annotated[str, Depends(allowed("read"))]
    Writable = Annotated[str, Depends(allowed("write"))]

    # -- service -----------------------------------------------------------------------------
    @app.get("/health", tags=["service"])
    def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "store": memory.store_kind,
                "keys_required": gate.keys_in_force(), "worker": runner is not None and runner.alive()}

    @app.get("/metrics", tags=["service"], response_class=PlainTextResponse,
             dependencies=[Depends(service_page(public_metrics))])
    def prometheus() -> Response:
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    # -- banks -------------------------------------------------------------------------------
    @app.get("/v1/banks", tags=["banks"])
    def list_banks(who: Caller) -> list[BankInfo]:
        return [b for b in memory.banks() if who.sees(b.name)]

    @app.delete("/v1/banks/{bank}", tags=["banks"])
    def delete_bank(bank: str, who: Caller) -> dict[str, int]:
        who.require(bank, "admin")
        return memory.banks.delete(bank).to_dict()

    # -- retain, recall, reflect, forget -----------------------------------------------------
    @app.post("/v1/banks/{bank}/retain", tags=["memory"], response_model=None,
              responses={202: {"model": OperationAccepted, "description": "queued (\"async\": true)"}})
    def retain(bank: Writable, body: RetainRequest) -> RetainResult | JSONResponse:
        if body.async_:
            op = memory.submit_retain(bank, **body.call())
            if runner is not None:
                runner.wake()
            accepted = OperationAccepted(operation_id=op.id, status=op.status, bank=op.bank)
            return JSONResponse(accepted.model_dump(), status_code=202, headers={"Location": f"/v1/operations/{op.id}"})
        return memory.retain(bank, **body.call())

    @app.post("/v1/banks/{bank}/reembed", tags=["banks"], status_code=202,
              responses={202: {"model": OperationAccepted, "description": "queued"}})
    def reembed(bank: str, body: ReembedRequest, who: Caller) -> JSONResponse:
        """Move the bank to another embedder in the background (admin: once it is done, this server
        opens the bank only if it runs with that embedder). Poll ``/v1/operations/{id}``."""
        who.require(bank, "admin")
        op = memory.reembed(bank, body.embedder)
        if runner is not None:
            runner.wake()
        accepted = OperationAccepted(operation_id=op.id, status=op.status, bank=op.bank)
        return JSONResponse(accepted.model_dump(), status_code=202, headers={"Location": f"/v1/operations/{op.id}"})

    @app.post("/v1/banks/{bank}/documents", tags=["memory"],
              openapi_extra={"requestBody": {"content": {"application/octet-stream": {}}, "required": True}})
    async def ingest_document(bank: Writable, request: Request, document_id: str | None = None,
                              user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
                              tags: Annotated[list[str] | None, Query()] = None,
                              trust: Annotated[Trust | None, Query(description=TRUST_HELP)] = None,
                              timestamp: str | None = None,
                              metadata: Annotated[str | None, Query(description="a JSON object")] = None,
                              lifecycle: Annotated[FactOverrides, Depends()] = _NO_OVERRIDES) -> IngestResult:
        """The request body is the file (PDF, DOCX, HTML, Markdown, text); its Content-Type, or else the
        extension of ``document_id`` and the bytes themselves, say which format it is. ``user_id``,
        ``agent_id``, ``session_id`` and ``tags`` (repeated: ``?tags=a&tags=b``) are its scope; ``trust``
        (default ``document``) how much it is believed; ``timestamp``, ``metadata`` (a JSON object),
        ``decay_class``, ``importance`` and ``pinned`` as in retain."""
        data = await request.body()
        content_type = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        media_type = None if content_type in ("", "application/octet-stream") else content_type
        return await run_in_threadpool(lambda: memory.ingest(bank, data, document_id=document_id, media_type=media_type,
                                                             user_id=user_id, agent_id=agent_id, session_id=session_id,
                                                             tags=tags, trust=trust, timestamp=timestamp,
                                                             metadata=json_object(metadata, "metadata"),
                                                             **lifecycle.call()))

    @app.post("/v1/banks/{bank}/imports/{format}", tags=["memory"],
              openapi_extra={"requestBody": {"content": {"application/octet-stream": {}}, "required": True}})
    async def import_chat(bank: Writable, format: str, request: Request, name: str = "upload",
                          skip_bad: bool = False, timezone: str = "Asia/Seoul", user_id: str | None = None,
                          agent_id: str | None = None, tags: Annotated[list[str] | None, Query()] = None,
                          lifecycle: Annotated[FactOverrides, Depends()] = _NO_OVERRIDES) -> ImportResult:
        """The request body is a chat export: ``format`` kakaotalk (the app's .txt), chatgpt
        (conversations.json) or jsonl (OpenAI messages). ``name`` (the file's) names a KakaoTalk or JSONL
        conversation, so importing the same export again adds only what is new. Bad lines: 422, with
        their numbers, and nothing stored — unless ``skip_bad``. ``user_id``, ``agent_id`` and ``tags``
        scope every conversation."""
        data = await request.body()
        return await run_in_threadpool(lambda: memory.import_chat(bank, data, format, skip_bad=skip_bad,
                                                                  timezone=timezone, name=name, user_id=user_id,
                                                                  agent_id=agent_id, tags=tags, **lifecycle.call()))

    @app.post("/v1/banks/{bank}/recall", tags=["memory"])
    def recall(bank: Readable, body: RecallRequest) -> Recall:
        return memory.recall(bank, body.query, max_tokens=body.max_tokens, limit=body.limit, now=body.now,
                             as_of=body.as_of, explain=body.explain, **body.scope())

    @app.post("/v1/banks/{bank}/sessions/{session_id}/turns", tags=["sessions"], status_code=201)
    def add_session_turn(bank: Writable, session_id: str, body: SessionTurnRequest) -> dict[str, Any]:
        """Add a turn as ``user_id`` (the user the session was opened with; another is refused with
        ``SessionUserError`` and nothing is written); the session rendered after it."""
        session = memory.session(bank, session_id, max_tokens=body.max_tokens, keep_recent=body.keep_recent,
                                 user_id=body.user_id)
        position = session.add(body.role, body.content)
        return {"position": position, **session.show()}

    @app.get("/v1/banks/{bank}/sessions/{session_id}", tags=["sessions"])
    def get_session(bank: Readable, session_id: str, query: str | None = None, max_tokens: int = 4000,
                    session_tokens: int = 3000, keep_recent: int = 6, user_id: str | None = None) -> dict[str, Any]:
        """The session rendered; with ``?query=`` the context for it, recalled memories included (with
        ``?user_id=``: that user's and the shared ones only). Only the session's own user may read it
        (the ``user_id`` it was opened with, or none): another is refused with ``SessionUserError``."""
        return memory.session(bank, session_id, max_tokens=session_tokens, keep_recent=keep_recent,
                              user_id=user_id).show(query, max_tokens)

    @app.post("/v1/banks/{bank}/reflect", tags=["memory"])
    def reflect(bank: Readable, body: ReflectRequest) -> Reflection:
        return memory.reflect(bank, body.question, now=body.now, **body.scope())

    @app.post("/v1/banks/{bank}/forget", tags=["memory"])
    def forget(bank: Writable, body: ForgetRequest) -> ForgetResult:
        return memory.forget(bank, source_id=body.source_id, memory_id=body.memory_id, entity=body.entity,
                             before=body.before, verify=body.verify, user_id=body.user_id)

    # -- the memory quarantine: listing reads, release and dismiss write (as forget does) ------
    @app.get("/v1/banks/{bank}/quarantine", tags=["quarantine"])
    def quarantined(bank: Readable, limit: Annotated[int, Query(gt=0)] = 1000) -> list[HeldStatement]:
        """Statements retain held back, newest first: instruction-like text from a source below the
        user's own words, kept verbatim in its source but not a fact, each with the reason."""
        return memory.quarantined(bank, limit=limit)

    @app.post("/v1/banks/{bank}/quarantine/{held_id}/release", tags=["quarantine"])
    def release(bank: Writable, held_id: str) -> RecalledMemory:
        """Write the held statement as a fact, at its own trust level; the memory it became."""
        return memory.release(bank, held_id)

    @app.delete("/v1/banks/{bank}/quarantine/{held_id}", tags=["quarantine"])
    def dismiss(bank: Writable, held_id: str) -> dict[str, str]:
        """Stop listing the held statement: it stays only in its verbatim source, never a fact (to erase
        it, forget its source)."""
        memory.dismiss(bank, held_id)
        return {"dismissed": held_id}

    # -- inspection --------------------------------------------------------------------------
    @app.get("/v1/banks/{bank}/memories/{memory_id}", tags=["inspection"])
    def get_memory(bank: Readable, memory_id: str) -> RecalledMemory:
        return memory.get(bank, memory_id)

    @app.get("/v1/banks/{bank}/memories/{memory_id}/history", tags=["inspection"])
    def history(bank: Readable, memory_id: str) -> list[RecalledMemory]:
        return memory.history(bank, memory_id)

    @app.get("/v1/banks/{bank}/sources", tags=["inspection"])
    def sources(bank: Readable) -> list[SourceInfo]:
        return memory.sources(bank)

    @app.get("/v1/banks/{bank}/sources/{source_id}", tags=["inspection"])
    def source(bank: Readable, source_id: str) -> SourceInfo:
        return memory.source(bank, source_id)

    @app.get("/v1/banks/{bank}/entities", tags=["inspection"])
    def entities(bank: Readable) -> list[EntityInfo]:
        return memory.entities(bank)

    @app.get("/v1/banks/{bank}/entities/merge-suggestions", tags=["inspection"])
    def merge_suggestions(bank: Readable, limit: int = 20) -> list[dict[str, Any]]:
        """Pairs of entities that may be one person or thing, which retain kept apart (not sure)."""
        return [s.to_dict() for s in memory.browse.merge_suggestions(bank, limit=limit)]

    @app.get("/v1/banks/{bank}/profile", tags=["inspection"])
    def profile(bank: Readable, person: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        """What people stated about themselves and their family, as typed slots with their history."""
        return [p.to_dict() for p in memory.profile(bank, person, user_id=user_id)]

    @app.get("/v1/banks/{bank}/profile/{slot}", tags=["inspection"])
    def lookup(bank: Readable, slot: str, entity: str | None = None,
               user_id: str | None = None) -> dict[str, Any] | None:
        """One profile slot of the bank's main person (of ``user_id``'s memories), or of ``entity`` (a
        name, a relative); null when it was never stated."""
        found = memory.lookup(bank, slot, entity, user_id=user_id)
        return found.to_dict() if found is not None else None

    @app.get("/v1/banks/{bank}/observations", tags=["inspection"])
    def observations(bank: Readable) -> list[RecalledMemory]:
        return memory.observations(bank)

    @app.get("/v1/banks/{bank}/overview", tags=["inspection"])
    def overview(bank: Readable, now: str | None = None) -> dict[str, Any]:
        """The bank at a glance: counts, facts per week and decay class, the jobs queued."""
        return memory.browse.overview(bank, now=now).to_dict()

    @app.get("/v1/banks/{bank}/sources/{source_id}/facts", tags=["inspection"])
    def source_facts(bank: Readable, source_id: str) -> dict[str, list[RecalledMemory]]:
        """The facts a source produced, keyed by the id of the message each came from."""
        return memory.browse.source_facts(bank, source_id)

    @app.get("/v1/banks/{bank}/memories/{memory_id}/connections", tags=["inspection"])
    def connections(bank: Readable, memory_id: str) -> dict[str, Any]:
        """A fact's entities and its links to other facts."""
        return memory.browse.connections(bank, memory_id).to_dict()

    @app.get("/v1/banks/{bank}/entities/{name}", tags=["inspection"])
    def entity(bank: Readable, name: str, limit: Annotated[int, Query(gt=0)] = 200) -> dict[str, Any]:
        """One entity by name or alias, its latest facts and its neighbourhood."""
        return memory.browse.entity(bank, name, limit=limit).to_dict()

    @app.post("/v1/banks/{bank}/memories/{memory_id}/pin", tags=["memory"])
    def pin(bank: Writable, memory_id: str, body: PinRequest) -> RecalledMemory:
        """Pin a fact (it never fades), or unpin it with ``{"pinned": false}``."""
        return memory.pin(bank, memory_id, pinned=body.pinned)

    @app.put("/v1/banks/{bank}", tags=["banks"])
    def create_bank(bank: Writable) -> BankInfo:
        """Create an empty bank (retain creates one too); an existing bank is returned as it is."""
        return memory.banks.create(bank)

    @app.get("/v1/operations/{operation_id}", tags=["memory"])
    def operation(operation_id: str, who: Caller) -> Operation:
        op = memory.operation(operation_id)
        if not who.sees(op.bank):
            raise OperationNotFoundError(operation_id)
        return op

    def _writable_operation(operation_id: str, who: Principal) -> None:
        op = memory.operation(operation_id)
        if not who.sees(op.bank):
            raise OperationNotFoundError(operation_id)
        who.require(op.bank, "write")

    @app.post("/v1/operations/{operation_id}/cancel", tags=["memory"])
    def cancel_operation(operation_id: str, who: Caller) -> Operation:
        _writable_operation(operation_id, who)
        return memory.jobs.cancel(operation_id)

    @app.post("/v1/operations/{operation_id}/retry", tags=["memory"])
    def retry_operation(operation_id: str, who: Caller) -> Operation:
        _writable_operation(operation_id, who)
        op = memory.jobs.retry(operation_id)
        if runner is not None:
            runner.wake()
        return op

    # -- keys (admin) ------------------------------------------------------------------------
    @app.post("/v1/keys", tags=["keys"], status_code=201)
    def create_key(body: KeyRequest, who: Caller) -> dict[str, Any]:
        who.require(None, "admin")
        record, key = memory.keys.create(role=body.role, banks=body.banks, name=body.name)
        return {"key": key, "id": record.id, "prefix": record.prefix, "role": record.role, "banks": record.banks}

    @app.get("/v1/keys", tags=["keys"])
    def list_keys(who: Caller) -> list[ApiKey]:
        who.require(None, "admin")
        return memory.keys.list()

    @app.delete("/v1/keys/{key_id}", tags=["keys"])
    def revoke_key(key_id: int, who: Caller) -> ApiKey:
        who.require(None, "admin")
        return memory.keys.revoke(key_id)

    add_configuration_routes(app, memory, caller)
    if ui:
        from gieok.server.ui import mount_ui  # Jinja2 is needed only here

        mount_ui(app, memory, gate.principal, gate.keys_in_force)
    if mcp:
        from gieok.server.mcp import mount_mcp  # the MCP SDK is needed only here

        mcp_running.append(mount_mcp(app, memory, authenticate=gate.principal, host=host))
    return app


def _mount_docs(app: FastAPI, gate: Any) -> None:
    """``/openapi.json``, ``/docs`` (Swagger UI) and ``/redoc`` behind ``gate`` (FastAPI's own are off)."""
    @app.get("/openapi.json", include_in_schema=False, dependencies=[gate])
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=[gate])
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="gieok API")

    @app.get("/redoc", include_in_schema=False, dependencies=[gate])
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url="/openapi.json", title="gieok API")
