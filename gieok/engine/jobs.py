"""Background jobs: a durable queue in the same database, claimed on the single write path.

Kinds: ``retain`` (a retain submitted to run in the background; its RetainResult is kept on the
job row, which is the "operation" the server reports), ``decay`` (recompute strengths, archive
what faded), ``purge`` (erase facts whose TTL passed), ``consolidate`` (facts into observations)
and ``refresh_models`` (re-answer mental models). A job is claimed in a write transaction (so two
workers never take the same one) with a lease: if its worker dies, the job is claimed again once
the lease expires. A job that raises is retried with capped exponential backoff and marked
``failed`` after ``MAX_ATTEMPTS`` (at once for an error a retry cannot cure: bad input, a missing
bank); its error is kept on the job row. Handlers are idempotent: a job run twice does no harm
(consolidation marks each fact done in the same transaction that writes its observation).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

from gieok.engine._time import at_epoch, from_epoch
from gieok.engine.consolidate import run_consolidation
from gieok.engine.context import Engine, JobContext
from gieok.engine.maintenance import run_decay, run_purge
from gieok.engine.reflect import refresh_models
from gieok.engine.retain import run_retain_job
from gieok.errors import BlockedContentError, EmbedderMismatchError, InputError, NotFoundError, OperationNotFoundError
from gieok.records import Operation, RetainResult
from gieok.store.protocol import BankRow

__all__ = ["HANDLERS", "run_pending", "operation", "queue_maintenance", "list_jobs", "MAX_ATTEMPTS", "LEASE_SECONDS",
           "JOB_RETENTION_DAYS", "job_to_dict"]

MAX_ATTEMPTS = 3
LEASE_SECONDS = 600.0
_BACKOFF_CAP = 3600.0
JOB_RETENTION_DAYS = 30.0  # finished jobs are kept this long for `gieok jobs`, then pruned

Handler = Callable[[JobContext], dict[str, Any] | None]
# errors that running the job again cannot cure
_FINAL = (InputError, NotFoundError, BlockedContentError, EmbedderMismatchError)
# Every job kind and what runs it, in one table: a kind nobody lists here is never claimed.
HANDLERS: dict[str, Handler] = {
    "retain": run_retain_job,
    "consolidate": run_consolidation,
    "decay": run_decay,
    "purge": run_purge,
    "refresh_models": refresh_models,
}


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_pending(engine: Engine, *, limit: int | None = None, bank_id: int | None = None,
                now: float | None = None) -> list[dict[str, Any]]:
    """Run queued jobs (all, or ``limit``); returns one report per job run."""
    store = engine.store
    reports: list[dict[str, Any]] = []
    worker = _worker_name()
    engine.marks.flush(wait=True)  # decay must see what recall used
    while limit is None or len(reports) < limit:
        at = time.time() if now is None else now
        with store.write():
            job = store.claim_job(worker, at, LEASE_SECONDS, kinds=list(HANDLERS), bank_id=bank_id)
        if job is None:
            break
        bank = store.bank_by_id(job.bank_id)
        report: dict[str, Any] = {"id": job.id, "kind": job.kind, "bank": bank.name if bank else None}
        try:
            if bank is None:
                raise LookupError("the job's bank no longer exists")
            handler = HANDLERS[job.kind]
            ctx = JobContext(store, bank, engine.embedder(bank.embedder), engine.settings, engine,
                             now=at, payload=job.payload)
            result = handler(ctx)
            with store.write():
                store.finish_job(job.id, result=result)
            report.update(status="done", result=result or {})
        except Exception as exc:  # a job's failure is recorded on its row, never lost or raised into the caller
            error = f"{type(exc).__name__}: {exc}"
            final = job.attempts >= MAX_ATTEMPTS or isinstance(exc, _FINAL) or not getattr(exc, "retryable", True)
            retry = None if final else at + min(_BACKOFF_CAP, 30.0 * 2 ** (job.attempts - 1))
            with store.write():
                store.finish_job(job.id, error=error, retry_at=retry)
            report.update(status="retry" if retry else "failed", error=error)
            if retry is not None and now is not None:
                break  # a fixed clock would claim the same job again at once
        reports.append(report)
    return reports


def job_to_dict(job: Any, bank_name: str | None) -> dict[str, Any]:
    return {
        "id": job.id, "bank": bank_name, "kind": job.kind, "status": job.status, "attempts": job.attempts,
        # the facts a job names, or once done the facts it processed (consolidation and decay report them)
        "facts": len(job.payload.get("fact_ids", [])) or int((job.result or {}).get("facts", 0)),
        "result": job.result,
        "run_after": from_epoch(job.run_after).isoformat() if job.run_after else None,  # type: ignore[union-attr]
        "last_error": job.last_error,
        "created_at": from_epoch(job.created_at).isoformat(),  # type: ignore[union-attr]
        "updated_at": from_epoch(job.updated_at).isoformat(),  # type: ignore[union-attr]
    }


def queue_maintenance(engine: Engine, banks: Sequence[BankRow], now: float | None) -> None:
    """Queue decay and TTL purge for ``banks`` (at ``now``, or as soon as a worker runs), and prune
    finished jobs older than ``JOB_RETENTION_DAYS`` so the queue does not grow without end."""
    at = time.time() if now is None else now
    with engine.store.write():
        for row in banks:
            engine.store.enqueue_job(row.id, "purge", run_after=now)
            engine.store.enqueue_job(row.id, "decay", run_after=now)
        engine.store.prune_jobs(at - JOB_RETENTION_DAYS * 86400.0)


def operation(engine: Engine, operation_id: str) -> Operation:
    """A queued retain (``op-12``) as the caller sees it; its RetainResult once done."""
    text = str(operation_id)
    job = engine.store.get_job(int(text[3:])) if text.startswith("op-") and text[3:].isdigit() else None
    bank = engine.store.bank_by_id(job.bank_id) if job is not None else None
    if job is None or bank is None or job.kind != "retain":
        raise OperationNotFoundError(text)
    result = RetainResult(**job.result) if job.status == "done" and job.result else None
    return Operation(f"op-{job.id}", bank.name, job.kind, job.status, at_epoch(job.created_at),
                     at_epoch(job.updated_at), job.attempts, result, job.last_error)


def list_jobs(engine: Engine, bank_id: int | None, status: str | None, limit: int) -> list[dict[str, Any]]:
    names = {b.id: b.name for b in engine.store.bank_rows()}
    return [job_to_dict(j, names.get(j.bank_id)) for j in engine.store.list_jobs(bank_id, status, limit)]
