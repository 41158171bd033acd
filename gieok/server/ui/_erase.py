"""Erasing from a bank: by source, entity or date, answered with the proof of what was erased."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from gieok.errors import InputError
from gieok.server.ui._state import UI, optional, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/b/{bank}/erase")
def erase_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    return ui.page(request, "erase.html", caller, bank, "erase", sources=ui.memory.sources(bank),
                   entities=ui.memory.entities(bank))


@router.post("/b/{bank}/erase")
async def erase(request: Request, bank: str, ui: UI) -> Response:
    form = await ui.posted(request)
    caller = ui.reader(request, bank, "write")
    how = form.get("by", "")
    value = optional(form.get(how))
    if how not in ("source_id", "entity", "before") or value is None:
        raise InputError("choose what to erase: a source, an entity or a date, and give its value")
    result = await run_in_threadpool(lambda: ui.memory.forget(bank, verify=True, **{how: value}))
    return ui.page(request, "proof.html", caller, bank, "erase", result=result)
