"""The memory quarantine of a bank: listing reads; release and dismiss write (as erasing does)."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from gieok.errors import InputError
from gieok.server.ui._state import UI, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/b/{bank}/quarantine")
def quarantine_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    return ui.page(request, "quarantine.html", caller, bank, "quarantine", held=ui.memory.quarantined(bank, limit=500),
                   changed=None)


@router.post("/b/{bank}/quarantine/{held_id}/{action}")
async def change_held(request: Request, bank: str, held_id: str, action: str, ui: UI) -> Response:
    await ui.posted(request)
    caller = ui.reader(request, bank, "write")
    if action == "release":
        released = await run_in_threadpool(ui.memory.release, bank, held_id)
        note = ui.t(request, "held_released").format(held=held_id, memory=released.id)
    elif action == "dismiss":
        await run_in_threadpool(ui.memory.dismiss, bank, held_id)
        note = ui.t(request, "held_dismissed").format(held=held_id)
    else:
        raise InputError(f"a held statement can be released or dismissed, not {action!r}")
    return ui.page(request, "quarantine.html", caller, bank, "quarantine", held=ui.memory.quarantined(bank, limit=500),
                   changed=note)
