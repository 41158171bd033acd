"""The login form: the caller's API key, checked as the API checks it and then kept in an HttpOnly
cookie; logging out forgets it."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from gieok.errors import KeyRequiredError
from gieok.server.ui._state import UI, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/login")
def login_form(request: Request, ui: UI) -> Response:
    nxt = request.query_params.get("next", "/ui/")
    return ui.render(request, "login.html", next=nxt if nxt.startswith("/ui/") else "/ui/", failed=False,
                     keys_on=ui.keys_in_force())


@router.post("/login")
async def login(request: Request, ui: UI) -> Response:
    form = await ui.posted(request)
    key = form.get("key", "").strip()
    nxt = form.get("next", "/ui/")
    nxt = nxt if nxt.startswith("/ui/") and not nxt.startswith("/ui//") else "/ui/"
    try:
        await run_in_threadpool(ui.principal_of, f"Bearer {key}")
    except KeyRequiredError:
        return ui.render(request, "login.html", 401, next=nxt, failed=True, keys_on=ui.keys_in_force())
    response = RedirectResponse(nxt, 303)
    ui.sessions.set_key(response, request, key)
    return response


@router.post("/logout")
async def logout(request: Request, ui: UI) -> Response:
    await ui.posted(request)
    response = RedirectResponse("/ui/login", 303)
    ui.sessions.clear_key(response)
    return response
