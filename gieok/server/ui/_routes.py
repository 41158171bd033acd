"""The UI's routes, assembled: one router per group of pages (pages are GET and read-only; actions
are POST, CSRF-checked, then a redirect or a result page), each handler asking the caller's key for
the bank first and then calling one or a few :class:`gieok.Memory` methods. What they share is the
app's :class:`UIState`, handed to them as a dependency (:mod:`gieok.server.ui._state`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.routing import APIRouter
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

from gieok.memory import Memory
from gieok.records import Principal
from gieok.server.ui import _banks, _entities, _erase, _facts, _jobs, _login, _quarantine, _search
from gieok.server.ui._render import HERE
from gieok.server.ui._session import Sessions
from gieok.server.ui._state import UI, UIState, ui_router

__all__ = ["mount_ui", "PAGES"]

_fallback = ui_router()


@_fallback.get("/{rest:path}")
def not_found(request: Request, rest: str, ui: UI) -> Response:
    return ui.error_page(request, 404, f"no page at /ui/{rest}: start from /ui/")


# in this order: the catch-all last
PAGES: tuple[APIRouter, ...] = (_login.router, _banks.router, _facts.router, _entities.router, _search.router,
                                _jobs.router, _quarantine.router, _erase.router, _fallback)


def mount_ui(app: FastAPI, memory: Memory, principal_of: Callable[[str | None], Principal],
             keys_in_force: Callable[[], bool]) -> None:
    """Serve the UI at ``/ui`` on ``app``: ``principal_of(authorization)`` is the API's own key check."""
    sessions = Sessions(memory.keys.shared_secret("ui_csrf"))
    app.state.ui = UIState(memory, sessions, principal_of, keys_in_force)
    router = APIRouter()
    for pages in PAGES:
        router.include_router(pages)
    app.mount("/ui/static", StaticFiles(directory=str(Path(HERE) / "static")), name="ui-static")
    app.include_router(router)
