"""One memory: a fact with its versions and links (or an observation), pinning it, forgetting it
(with the proof of what was erased)."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from gieok.server.ui._state import UI, bank_url, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/b/{bank}/f/{memory_id}")
def fact_page(request: Request, bank: str, memory_id: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    fact = ui.memory.get(bank, memory_id)
    if fact.type != "fact":
        return ui.page(request, "observation.html", caller, bank, "overview", fact=fact)
    return ui.page(request, "fact.html", caller, bank, "overview", fact=fact,
                   versions=ui.memory.history(bank, memory_id), linked=ui.memory.browse.connections(bank, memory_id))


@router.post("/b/{bank}/f/{memory_id}/pin")
async def pin(request: Request, bank: str, memory_id: str, ui: UI) -> Response:
    form = await ui.posted(request)
    ui.reader(request, bank, "write")
    await run_in_threadpool(lambda: ui.memory.pin(bank, memory_id, pinned=form.get("pinned") == "1"))
    return RedirectResponse(bank_url(bank, "f", memory_id), 303)


@router.post("/b/{bank}/f/{memory_id}/forget")
async def forget_fact(request: Request, bank: str, memory_id: str, ui: UI) -> Response:
    await ui.posted(request)
    caller = ui.reader(request, bank, "write")
    result = await run_in_threadpool(lambda: ui.memory.forget(bank, memory_id=memory_id, verify=True))
    return ui.page(request, "proof.html", caller, bank, "erase", result=result)
