"""The banks the caller's key sees (with the database's size), creating and deleting one, one bank's
overview, and one source as retain kept it, with the facts it produced."""

from __future__ import annotations

import os
from urllib.parse import quote

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from gieok import Disposition
from gieok.errors import GieokError, InputError
from gieok.records import BankOverview
from gieok.server.ui import _svg
from gieok.server.ui._state import UI, bank_url, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/")
def banks(request: Request, ui: UI) -> Response:
    memory = ui.memory
    caller = ui.who(request)
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
    return ui.page(request, "banks.html", caller, rows=rows, size=size, deleted=request.query_params.get("deleted"))


@router.post("/banks")
async def create_bank(request: Request, ui: UI) -> Response:
    form = await ui.posted(request)
    name = form.get("name", "").strip()
    caller = ui.who(request)
    caller.require(name or None, "write")
    created = await run_in_threadpool(ui.memory.banks.create, name)
    return RedirectResponse(bank_url(created.name), 303)


@router.post("/banks/delete")
async def delete_bank(request: Request, ui: UI) -> Response:
    form = await ui.posted(request)
    bank = form.get("bank", "")
    caller = ui.who(request)
    caller.require(bank, "admin")
    if form.get("confirm", "").strip() != bank:
        raise InputError(ui.t(request, "delete_mismatch"))
    await run_in_threadpool(ui.memory.banks.delete, bank)
    return RedirectResponse("/ui/?deleted=" + quote(bank, safe=""), 303)


@router.get("/b/{bank}")
def bank_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    view = ui.memory.browse.overview(bank)
    sources = list(reversed(ui.memory.sources(bank)))
    chart = _svg.timeline(view.weeks, lambda k: ui.t(request, k))
    return ui.page(request, "bank.html", caller, bank, "overview", view=view, sources=sources, chart=chart,
                   disposition=ui.memory.disposition(bank), directives=ui.memory.directives(bank),
                   admin=caller.role == "admin", shaped=request.query_params.get("shaped"))


@router.post("/b/{bank}/shaping")
async def set_shaping(request: Request, bank: str, ui: UI) -> Response:
    """Reflect's disposition and directives from the bank page's form (an admin key): one directive a
    line; the whole form is checked before anything is stored."""
    form = await ui.posted(request)
    ui.reader(request, bank, "admin")
    dials = {}
    for dial in ("skepticism", "literalism", "empathy"):
        value = form.get(dial, "3").strip()
        if not value.isdigit():
            raise InputError(f"{dial} must be a whole number from 1 to 5")
        dials[dial] = int(value)
    disposition = {**dials, "name": form.get("name", "").strip(), "background": form.get("background", "").strip()}
    lines = [line.strip() for line in form.get("directives", "").splitlines() if line.strip()]
    checked = Disposition.coerce(disposition)  # checked first: set_directives checks its whole list
    await run_in_threadpool(ui.memory.set_directives, bank, lines)  # before storing any of it
    await run_in_threadpool(ui.memory.set_disposition, bank, checked)
    return RedirectResponse(bank_url(bank) + "?shaped=1", 303)


@router.get("/b/{bank}/s/{source_id:path}")
def source_page(request: Request, bank: str, source_id: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    found = ui.memory.source(bank, source_id)
    produced = ui.memory.browse.source_facts(bank, source_id)
    speakers: list[str] = []
    for m in found.messages:
        if m.speaker not in speakers:
            speakers.append(m.speaker)
    return ui.page(request, "source.html", caller, bank, "overview", source=found, produced=produced,
                   speakers=speakers, redacted=any("[REDACTED:" in m.text for m in found.messages)
                   or "[REDACTED:" in (found.text or ""))
