"""The UI's routes: pages (GET, read-only) and actions (POST, CSRF-checked, then a redirect or a
result page). Each handler asks the caller's key for the bank first, then calls one or a few
:class:`gieok.Memory` methods."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, APIRouter
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from gieok.errors import GieokError, InputError, KeyRequiredError, NotFoundError
from gieok.memory import Memory
from gieok.records import BankOverview, Principal
from gieok.server.errors import status_of
from gieok.server.ui import _svg
from gieok.server.ui._i18n import translator
from gieok.server.ui._render import HERE, Renderer, segment
from gieok.server.ui._session import KEY_COOKIE, Sessions, read_form

__all__ = ["mount_ui"]

log = logging.getLogger("gieok.server")
_CHANNELS = ("semantic", "keyword", "graph", "temporal", "observation", "rerank")


def _bank_url(bank: str, *parts: str) -> str:
    return "/ui/b/" + "/".join([segment(bank), *[segment(p) for p in parts]])


def _optional(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def _int(value: str | None, name: str) -> int | None:
    text = _optional(value)
    if text is None:
        return None
    if not text.isdigit() or int(text) <= 0:
        raise InputError(f"{name} must be a whole number above 0, e.g. 500")
    return int(text)


def _user_filter(query: QueryParams) -> tuple[dict[str, str], dict[str, Any]]:
    """The recall/reflect forms' user filter: the fields to fill back in, and the keyword arguments for
    :meth:`Memory.recall` / :meth:`Memory.reflect`. The form sends a hidden ``include_shared=0`` before
    the checkbox's ``1``, so an unticked box is told apart from a link that never named it (the
    library's default, shared memories included). Without a user the box means nothing: it is ignored."""
    sent = query.getlist("include_shared")
    include_shared = not sent or "1" in sent
    user = _optional(query.get("user_id"))
    fields = {"user_id": query.get("user_id", ""), "include_shared": "1" if include_shared else ""}
    return fields, {"user_id": user, "include_shared": include_shared or user is None}


def mount_ui(app: FastAPI, memory: Memory, principal_of: Callable[[str | None], Principal],
             keys_in_force: Callable[[], bool]) -> None:
    """Serve the UI at ``/ui`` on ``app``: ``principal_of(authorization)`` is the API's own key check."""
    sessions = Sessions(memory.keys.shared_secret("ui_csrf"))
    renderer = Renderer(sessions)
    render = renderer.render

    def error_page(request: Request, status: int, detail: str) -> Response:
        title = f"error_{status}" if status in (401, 403, 404, 422, 500) else "error_title"
        return render(request, "error.html", status, status_code=status, title=title, detail=detail)

    class UIRoute(APIRoute):
        """Every UI route answers errors as an HTML page; a missing key redirects to the login form."""

        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def guarded(request: Request) -> Response:
                request.scope["gieok_ui_started"] = time.perf_counter()
                try:
                    return await handler(request)
                except KeyRequiredError:
                    return RedirectResponse("/ui/login?next=" + quote(request.url.path, safe="/"), 303)
                except HTTPException as exc:  # raised here only for a POST without a valid CSRF token
                    return error_page(request, exc.status_code, renderer_t(request, "csrf_refused"))
                except GieokError as exc:
                    status, _kind = status_of(exc)
                    if status >= 500:
                        log.error("%s: %s", type(exc).__name__, exc)
                    return error_page(request, status, str(exc))
                except RequestValidationError as exc:
                    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
                    where = ".".join(str(p) for p in first.get("loc", ()))
                    return error_page(request, 422, f"{where}: {first.get('msg', '')}")
                except Exception:
                    log.exception("unexpected error in the web UI")  # the traceback stays in the log
                    return error_page(request, 500, "the server failed unexpectedly; its log has the details")

            return guarded

    def renderer_t(request: Request, key: str) -> str:
        return str(translator(renderer.language(request))(key))

    router = APIRouter(prefix="/ui", route_class=UIRoute, include_in_schema=False)

    def who(request: Request) -> Principal:
        key = request.cookies.get(KEY_COOKIE)
        return principal_of(f"Bearer {key}" if key else None)

    def reader(request: Request, bank: str, need: str = "read") -> Principal:
        caller = who(request)
        caller.require(bank, need)
        return caller

    def page(request: Request, template: str, caller: Principal, bank: str | None = None, section: str | None = None,
             status: int = 200, **context: Any) -> Response:
        return render(request, template, status, who=caller, keys_on=keys_in_force(), bank=bank, section=section,
                      **context)

    async def posted(request: Request) -> dict[str, str]:
        try:
            form = await read_form(request)
        except ValueError as exc:
            raise InputError("the form has too many fields") from exc
        if not sessions.csrf_ok(request, form.get("csrf")):
            raise HTTPException(403, "csrf")
        return form

    # -- login -------------------------------------------------------------------------------
    @router.get("/login")
    def login_form(request: Request) -> Response:
        nxt = request.query_params.get("next", "/ui/")
        return render(request, "login.html", next=nxt if nxt.startswith("/ui/") else "/ui/", failed=False,
                      keys_on=keys_in_force())

    @router.post("/login")
    async def login(request: Request) -> Response:
        form = await posted(request)
        key = form.get("key", "").strip()
        nxt = form.get("next", "/ui/")
        nxt = nxt if nxt.startswith("/ui/") and not nxt.startswith("/ui//") else "/ui/"
        try:
            await run_in_threadpool(principal_of, f"Bearer {key}")
        except KeyRequiredError:
            return render(request, "login.html", 401, next=nxt, failed=True, keys_on=keys_in_force())
        response = RedirectResponse(nxt, 303)
        sessions.set_key(response, request, key)
        return response

    @router.post("/logout")
    async def logout(request: Request) -> Response:
        await posted(request)
        response = RedirectResponse("/ui/login", 303)
        sessions.clear_key(response)
        return response

    # -- banks -------------------------------------------------------------------------------
    @router.get("/")
    def banks(request: Request) -> Response:
        caller = who(request)
        rows = []
        for info in memory.banks():
            if not caller.sees(info.name):
                continue
            try:
                view: BankOverview | None = memory.browse.overview(info.name)
            except GieokError:  # a bank of another embedder: listed with what the bank row says
                view = None
            rows.append({"info": info, "view": view})
        size = None
        if memory.file_backed and os.path.exists(memory.path):
            size = sum(os.path.getsize(p) for p in (memory.path, memory.path + "-wal") if os.path.exists(p))
        return page(request, "banks.html", caller, rows=rows, size=size, deleted=request.query_params.get("deleted"))

    @router.post("/banks")
    async def create_bank(request: Request) -> Response:
        form = await posted(request)
        name = form.get("name", "").strip()
        caller = who(request)
        caller.require(name or None, "write")
        created = await run_in_threadpool(memory.banks.create, name)
        return RedirectResponse(_bank_url(created.name), 303)

    @router.post("/banks/delete")
    async def delete_bank(request: Request) -> Response:
        form = await posted(request)
        bank = form.get("bank", "")
        caller = who(request)
        caller.require(bank, "admin")
        if form.get("confirm", "").strip() != bank:
            raise InputError(renderer_t(request, "delete_mismatch"))
        await run_in_threadpool(memory.banks.delete, bank)
        return RedirectResponse("/ui/?deleted=" + quote(bank, safe=""), 303)

    # -- one bank ----------------------------------------------------------------------------
    @router.get("/b/{bank}")
    def bank_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        view = memory.browse.overview(bank)
        sources = list(reversed(memory.sources(bank)))
        chart = _svg.timeline(view.weeks, lambda k: renderer_t(request, k))
        return page(request, "bank.html", caller, bank, "overview", view=view, sources=sources, chart=chart)

    @router.get("/b/{bank}/s/{source_id:path}")
    def source_page(request: Request, bank: str, source_id: str) -> Response:
        caller = reader(request, bank)
        found = memory.source(bank, source_id)
        produced = memory.browse.source_facts(bank, source_id)
        speakers: list[str] = []
        for m in found.messages:
            if m.speaker not in speakers:
                speakers.append(m.speaker)
        return page(request, "source.html", caller, bank, "overview", source=found, produced=produced,
                    speakers=speakers, redacted=any("[REDACTED:" in m.text for m in found.messages)
                    or "[REDACTED:" in (found.text or ""))

    @router.get("/b/{bank}/f/{memory_id}")
    def fact_page(request: Request, bank: str, memory_id: str) -> Response:
        caller = reader(request, bank)
        fact = memory.get(bank, memory_id)
        if fact.type != "fact":
            return page(request, "observation.html", caller, bank, "overview", fact=fact)
        return page(request, "fact.html", caller, bank, "overview", fact=fact, versions=memory.history(bank, memory_id),
                    linked=memory.browse.connections(bank, memory_id))

    @router.post("/b/{bank}/f/{memory_id}/pin")
    async def pin(request: Request, bank: str, memory_id: str) -> Response:
        form = await posted(request)
        reader(request, bank, "write")
        await run_in_threadpool(lambda: memory.pin(bank, memory_id, pinned=form.get("pinned") == "1"))
        return RedirectResponse(_bank_url(bank, "f", memory_id), 303)

    @router.post("/b/{bank}/f/{memory_id}/forget")
    async def forget_fact(request: Request, bank: str, memory_id: str) -> Response:
        await posted(request)
        caller = reader(request, bank, "write")
        result = await run_in_threadpool(lambda: memory.forget(bank, memory_id=memory_id, verify=True))
        return page(request, "proof.html", caller, bank, "erase", result=result)

    # -- entities ----------------------------------------------------------------------------
    @router.get("/b/{bank}/entities")
    def entities_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        return page(request, "entities.html", caller, bank, "entities", entities=memory.entities(bank),
                    suggestions=memory.browse.merge_suggestions(bank))

    @router.get("/b/{bank}/e/{name:path}")
    def entity_page(request: Request, bank: str, name: str) -> Response:
        caller = reader(request, bank)
        found = memory.browse.entity(bank, name)
        graph = _svg.neighbourhood(found.entity.name, found.neighbours, found.edges,
                                   lambda other: _bank_url(bank, "e", other))
        return page(request, "entity.html", caller, bank, "entities", found=found, graph=graph)

    # -- recall and reflect ------------------------------------------------------------------
    @router.get("/b/{bank}/recall")
    def recall_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        q = request.query_params
        form = {k: q.get(k, "") for k in ("q", "now", "as_of", "max_tokens")}
        users, scope = _user_filter(q)
        form.update(users)
        result, bars = None, None
        peaks: dict[str, float] = {}
        if _optional(form["q"]):
            result = memory.recall(bank, form["q"], explain=True, now=_optional(form["now"]),
                                   as_of=_optional(form["as_of"]), max_tokens=_int(form["max_tokens"], "max_tokens"),
                                   **scope)
            for m in result.memories:
                for name, hit in (m.explanation or {}).get("channels", {}).items():
                    peaks[name] = max(peaks.get(name, 0.0), float(hit["score"]))
            bars = _svg.budget([(m.id, m.tokens) for m in result.memories], result.max_tokens)
        top = max((m.score for m in result.memories), default=0.0) if result else 0.0
        return page(request, "recall.html", caller, bank, "recall", form=form, result=result, peaks=peaks,
                    channels=_CHANNELS, budget_bar=bars, top=top)

    @router.get("/b/{bank}/reflect")
    def reflect_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        q = request.query_params
        form = {k: q.get(k, "") for k in ("q", "now")}
        users, scope = _user_filter(q)
        form.update(users)
        reflection, evidence = None, []
        if _optional(form["q"]):
            reflection = memory.reflect(bank, form["q"], now=_optional(form["now"]), **scope)
            sources: dict[str, Any] = {}
            for cited in reflection.based_on:
                source_id = cited.get("source_id")
                messages, document = [], None
                if source_id:
                    if source_id not in sources:
                        try:
                            sources[source_id] = memory.source(bank, source_id)
                        except NotFoundError:
                            sources[source_id] = None
                    src = sources[source_id]
                    if src is not None:
                        wanted = set(cited.get("source_ids") or [])
                        messages = [m for m in src.messages if m.id in wanted]
                        document = src.text if not src.messages else None
                evidence.append({"cited": cited, "messages": messages, "document": document})
        return page(request, "reflect.html", caller, bank, "reflect", form=form, reflection=reflection,
                    evidence=evidence)

    # -- jobs, audit, erase ------------------------------------------------------------------
    @router.get("/b/{bank}/jobs")
    def jobs_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        return page(request, "jobs.html", caller, bank, "jobs", jobs=memory.jobs.list(bank, limit=200),
                    audit=memory.audit_log(bank, 200), usage=memory.llm_usage(bank), changed=None)

    @router.post("/b/{bank}/jobs/{operation}/{action}")
    async def change_job(request: Request, bank: str, operation: str, action: str) -> Response:
        await posted(request)
        caller = reader(request, bank, "write")
        if action not in ("cancel", "retry"):
            raise InputError(f"a job can be cancelled or retried, not {action!r}")
        if memory.operation(operation).bank != bank:  # another bank's job is not this page's to change
            raise NotFoundError(f"operation {operation!r} not found in bank {bank!r}")
        change = memory.jobs.cancel if action == "cancel" else memory.jobs.retry
        await run_in_threadpool(change, operation)
        note = renderer_t(request, "job_cancelled" if action == "cancel" else "job_retried").format(op=operation)
        return page(request, "jobs.html", caller, bank, "jobs", jobs=memory.jobs.list(bank, limit=200),
                    audit=memory.audit_log(bank, 200), usage=memory.llm_usage(bank), changed=note)

    # -- the memory quarantine: listing reads, release and dismiss write (as erasing does) ------
    @router.get("/b/{bank}/quarantine")
    def quarantine_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        return page(request, "quarantine.html", caller, bank, "quarantine", held=memory.quarantined(bank, limit=500),
                    changed=None)

    @router.post("/b/{bank}/quarantine/{held_id}/{action}")
    async def change_held(request: Request, bank: str, held_id: str, action: str) -> Response:
        await posted(request)
        caller = reader(request, bank, "write")
        if action == "release":
            released = await run_in_threadpool(memory.release, bank, held_id)
            note = renderer_t(request, "held_released").format(held=held_id, memory=released.id)
        elif action == "dismiss":
            await run_in_threadpool(memory.dismiss, bank, held_id)
            note = renderer_t(request, "held_dismissed").format(held=held_id)
        else:
            raise InputError(f"a held statement can be released or dismissed, not {action!r}")
        return page(request, "quarantine.html", caller, bank, "quarantine", held=memory.quarantined(bank, limit=500),
                    changed=note)

    @router.get("/b/{bank}/erase")
    def erase_page(request: Request, bank: str) -> Response:
        caller = reader(request, bank)
        return page(request, "erase.html", caller, bank, "erase", sources=memory.sources(bank),
                    entities=memory.entities(bank))

    @router.post("/b/{bank}/erase")
    async def erase(request: Request, bank: str) -> Response:
        form = await posted(request)
        caller = reader(request, bank, "write")
        how = form.get("by", "")
        value = _optional(form.get(how))
        if how not in ("source_id", "entity", "before") or value is None:
            raise InputError("choose what to erase: a source, an entity or a date, and give its value")
        result = await run_in_threadpool(lambda: memory.forget(bank, verify=True, **{how: value}))
        return page(request, "proof.html", caller, bank, "erase", result=result)

    @router.get("/{rest:path}")
    def not_found(request: Request, rest: str) -> Response:
        return error_page(request, 404, f"no page at /ui/{rest}: start from /ui/")

    app.mount("/ui/static", StaticFiles(directory=str(Path(HERE) / "static")), name="ui-static")
    app.include_router(router)
