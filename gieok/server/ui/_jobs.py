"""A bank's jobs, its audit log and LLM usage; cancelling or retrying one of its jobs."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from gieok.errors import InputError, NotFoundError
from gieok.records import Principal
from gieok.server.ui._state import UI, UIState, ui_router

__all__ = ["router"]

router = ui_router()


def _jobs(request: Request, ui: UIState, caller: Principal, bank: str, changed: str | None) -> Response:
    return ui.page(request, "jobs.html", caller, bank, "jobs", jobs=ui.memory.jobs.list(bank, limit=200),
                   audit=ui.memory.audit_log(bank, 200), usage=ui.memory.llm_usage(bank), changed=changed)


@router.get("/b/{bank}/jobs")
def jobs_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    return _jobs(request, ui, caller, bank, None)


@router.post("/b/{bank}/jobs/{operation}/{action}")
async def change_job(request: Request, bank: str, operation: str, action: str, ui: UI) -> Response:
    await ui.posted(request)
    caller = ui.reader(request, bank, "write")
    if action not in ("cancel", "retry"):
        raise InputError(f"a job can be cancelled or retried, not {action!r}")
    if ui.memory.operation(operation).bank != bank:  # another bank's job is not this page's to change
        raise NotFoundError(f"operation {operation!r} not found in bank {bank!r}")
    change = ui.memory.jobs.cancel if action == "cancel" else ui.memory.jobs.retry
    await run_in_threadpool(change, operation)
    note = ui.t(request, "job_cancelled" if action == "cancel" else "job_retried").format(op=operation)
    return _jobs(request, ui, caller, bank, note)
