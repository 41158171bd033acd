"""What every UI route shares: the UI's state (one :class:`UIState` on ``app.state.ui``, set by
:func:`gieok.server.ui.mount_ui`) handed to the routes as a FastAPI dependency (:data:`UI`); the
route class that answers every error as an HTML page (:class:`UIRoute`); and the small readers of
form and query fields the pages have in common."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, APIRouter
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from gieok.errors import GieokError, InputError, KeyRequiredError
from gieok.memory import Memory
from gieok.records import Principal
from gieok.server.errors import status_of
from gieok.server.ui._i18n import translator
from gieok.server.ui._render import Renderer, segment
from gieok.server.ui._session import KEY_COOKIE, Sessions, read_form

__all__ = ["UIState", "UI", "UIRoute", "ui_router", "bank_url", "optional", "whole_number", "user_filter"]

log = logging.getLogger("gieok.server")


class UIState:
    """One UI: the Memory it shows, its sessions (the key cookie, CSRF) and renderer, and the API's
    own key check (``principal_of(authorization)``) and whether keys are in force."""

    def __init__(self, memory: Memory, sessions: Sessions, principal_of: Callable[[str | None], Principal],
                 keys_in_force: Callable[[], bool]) -> None:
        self.memory, self.sessions, self.renderer = memory, sessions, Renderer(sessions)
        self.principal_of, self.keys_in_force = principal_of, keys_in_force
        self.render = self.renderer.render

    def t(self, request: Request, key: str) -> str:
        """The UI string ``key`` in the request's language."""
        return str(translator(self.renderer.language(request))(key))

    def error_page(self, request: Request, status: int, detail: str) -> Response:
        title = f"error_{status}" if status in (401, 403, 404, 422, 500) else "error_title"
        return self.render(request, "error.html", status, status_code=status, title=title, detail=detail)

    def who(self, request: Request) -> Principal:
        key = request.cookies.get(KEY_COOKIE)
        return self.principal_of(f"Bearer {key}" if key else None)

    def reader(self, request: Request, bank: str, need: str = "read") -> Principal:
        caller = self.who(request)
        caller.require(bank, need)
        return caller

    def page(self, request: Request, template: str, caller: Principal, bank: str | None = None,
             section: str | None = None, status: int = 200, **context: Any) -> Response:
        return self.render(request, template, status, who=caller, keys_on=self.keys_in_force(), bank=bank,
                           section=section, **context)

    async def posted(self, request: Request) -> dict[str, str]:
        """The form of a POST, once its CSRF token is checked (403 without a valid one)."""
        try:
            form = await read_form(request)
        except ValueError as exc:
            raise InputError("the form has too many fields") from exc
        if not self.sessions.csrf_ok(request, form.get("csrf")):
            raise HTTPException(403, "csrf")
        return form


def ui_state(request: Request) -> UIState:
    state: UIState = request.app.state.ui
    return state


async def _ui_dependency(request: Request) -> UIState:
    return ui_state(request)  # async: no trip through the thread pool for an attribute read


UI = Annotated[UIState, Depends(_ui_dependency)]


class UIRoute(APIRoute):
    """Every UI route answers errors as an HTML page; a missing key redirects to the login form."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            request.scope["gieok_ui_started"] = time.perf_counter()
            ui = ui_state(request)
            try:
                return await handler(request)
            except KeyRequiredError:
                return RedirectResponse("/ui/login?next=" + quote(request.url.path, safe="/"), 303)
            except HTTPException as exc:  # raised here only for a POST without a valid CSRF token
                return ui.error_page(request, exc.status_code, ui.t(request, "csrf_refused"))
            except GieokError as exc:
                status, _kind = status_of(exc)
                if status >= 500:
                    log.error("%s: %s", type(exc).__name__, exc)
                return ui.error_page(request, status, str(exc))
            except RequestValidationError as exc:
                first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
                where = ".".join(str(p) for p in first.get("loc", ()))
                return ui.error_page(request, 422, f"{where}: {first.get('msg', '')}")
            except Exception:
                log.exception("unexpected error in the web UI")  # the traceback stays in the log
                return ui.error_page(request, 500, "the server failed unexpectedly; its log has the details")

        return guarded


def ui_router() -> APIRouter:
    """A router for one group of UI pages: under ``/ui``, errors as pages, out of the API's schema."""
    return APIRouter(prefix="/ui", route_class=UIRoute, include_in_schema=False)


def bank_url(bank: str, *parts: str) -> str:
    return "/ui/b/" + "/".join([segment(bank), *[segment(p) for p in parts]])


def optional(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def whole_number(value: str | None, name: str) -> int | None:
    text = optional(value)
    if text is None:
        return None
    if not text.isdigit() or int(text) <= 0:
        raise InputError(f"{name} must be a whole number above 0, e.g. 500")
    return int(text)


def user_filter(query: QueryParams) -> tuple[dict[str, str], dict[str, Any]]:
    """The recall/reflect forms' user filter: the fields to fill back in, and the keyword arguments for
    :meth:`Memory.recall` / :meth:`Memory.reflect`. The form sends a hidden ``include_shared=0`` before
    the checkbox's ``1``, so an unticked box is told apart from a link that never named it (the
    library's default, shared memories included). Without a user the box means nothing: it is ignored."""
    sent = query.getlist("include_shared")
    include_shared = not sent or "1" in sent
    user = optional(query.get("user_id"))
    fields = {"user_id": query.get("user_id", ""), "include_shared": "1" if include_shared else ""}
    return fields, {"user_id": user, "include_shared": include_shared or user is None}
