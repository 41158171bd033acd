"""Background jobs: a durable queue in the same database, claimed on the single write path.

Kinds: ``retain`` (a retain submitted to run in the background; its RetainResult is kept on the
job row, which is the "operation" the server reports), ``decay`` (recompute strengths, archive
what faded), ``purge`` (erase facts whose TTL passed), ``consolidate`` (facts into observations),
``refresh_models`` (re-answer mental models) and ``reembed`` (move a bank to another embedder, see
:mod:`gieok.engine.jobs.reembed`; its context gets the embedder it moves to, the old one need not load).

A claim is one statement in a write transaction (two workers never take the same job; on
PostgreSQL the row is taken ``FOR UPDATE SKIP LOCKED``) and names the claim by a token unique to
it. The claim holds a lease (``job_lease_seconds``) that a :class:`Heartbeat` renews while the job
runs; a job whose lease ran out (its worker was killed) is claimed again. Banks take turns (see
``Jobs.claim``): a caller passes the last bank it served as ``after_bank``.

Exactly once: a job's end is recorded only while its claim still holds it (``store.jobs.finish(...,
claimed_by=token)``). A retain marks its job done inside the very transaction that writes its
facts (:meth:`JobContext.commit`), so a crash after that commit leaves nothing to redo, and a
worker whose claim was lost meanwhile has its writes rolled back (ClaimLostError) instead of
writing them a second time. The other kinds are idempotent: run twice, they do no harm
(consolidation marks each fact done in the same transaction that writes its observation).

A job that raises is retried with capped exponential backoff (``job_backoff_seconds`` doubling,
at most an hour; an LLM's Retry-After when it rate-limited) and marked ``failed`` after
``job_max_attempts`` runs, at once for an error a retry cannot cure (bad input, a missing bank,
an LLM refusing its key, a spend ceiling); its error is kept on the job row.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from gieok.engine._time import at_epoch, from_epoch
from gieok.engine._validate import INT64_MAX
from gieok.engine.context import Engine, JobContext
from gieok.engine.jobs.consolidate import run_consolidation
from gieok.engine.jobs.maintenance import run_decay, run_purge
from gieok.engine.jobs.reembed import active_reembed, run_reembed
from gieok.engine.reflect.run import refresh_models
from gieok.engine.retain.run import index_when_due, run_retain_job
from gieok.errors import (
    BlockedContentError,
    ClaimLostError,
    ConfigError,
    EmbedderMismatchError,
    InputError,
    LLMRateLimitError,
    LLMRequestError,
    NotFoundError,
    OperationNotFoundError,
    OperationStateError,
    ReembedRunningError,
)
from gieok.records import Job, Operation, RetainResult
from gieok.store.protocol import BankRow

__all__ = ["HANDLERS", "Heartbeat", "run_pending", "claim_next", "run_claimed", "operation", "cancel", "retry",
           "queue_maintenance", "list_jobs", "MAX_ATTEMPTS", "LEASE_SECONDS", "JOB_RETENTION_DAYS", "job_record",
           "claim_token", "operation_id", "warm_up", "wait_for", "release"]

MAX_ATTEMPTS = 3  # the default of the job_max_attempts setting
LEASE_SECONDS = 60.0  # the default of the job_lease_seconds setting
_BACKOFF_CAP = 3600.0
JOB_RETENTION_DAYS = 30.0  # finished jobs are kept this long for `gieok jobs`, then pruned

log = logging.getLogger("gieok.jobs")

Handler = Callable[[JobContext], dict[str, Any] | None]
# errors that running the job again cannot cure: bad input, a missing bank, another embedder, and
# configuration (an LLM that refused its key, a missing model): retrying would only spend the attempts
_FINAL = (InputError, NotFoundError, BlockedContentError, EmbedderMismatchError, ConfigError, LLMRequestError)
# Every job kind and what runs it, in one table: a kind nobody lists here is never claimed.
HANDLERS: dict[str, Handler] = {
    "retain": run_retain_job,
    "consolidate": run_consolidation,
    "decay": run_decay,
    "purge": run_purge,
    "refresh_models": refresh_models,
    "reembed": run_reembed,
}


def claim_token() -> str:
    """A claim's token: this host and process, and a part unique to the claim."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:10]}"


def operation_id(job_id: int) -> str:
    return f"op-{job_id}"


class Heartbeat:
    """Renews the leases of the claims a process is running, every third of the lease, on one
    thread. A claim it finds gone (cancelled, or taken after its lease ran out) is dropped: that
    job's worker will find out when it tries to commit."""

    def __init__(self, engine: Engine, lease: float | None = None) -> None:
        self.engine = engine
        self.lease = float(lease if lease is not None else engine.settings.job_lease_seconds)
        self._claims: dict[int, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost: set[int] = set()

    def __enter__(self) -> Heartbeat:
        return self  # the thread starts with the first claim it keeps

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)

    def add(self, job_id: int, token: str) -> None:
        with self._lock:
            self._claims[job_id] = token
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="gieok-heartbeat", daemon=True)
                self._thread.start()

    def remove(self, job_id: int) -> None:
        with self._lock:
            self._claims.pop(job_id, None)

    def beat(self) -> None:
        """Renew every held lease now."""
        with self._lock:
            claims = dict(self._claims)
        if not claims:
            return
        until = time.time() + self.lease
        with self.engine.store.write():
            gone = [job_id for job_id, token in claims.items()
                    if not self.engine.store.jobs.renew_lease(job_id, token, until)]
        for job_id in gone:
            self.lost.add(job_id)
            self.remove(job_id)

    def _loop(self) -> None:
        while not self._stop.wait(self.lease / 3.0):
            try:
                self.beat()
            except Exception:  # a store hiccup must not end the heartbeat; the next beat retries
                log.exception("could not renew job leases")


def warm_up(engine: Engine) -> None:
    """Load what the first job would load (the engine's modules, the default embedder, the Korean
    morpheme analyser: :func:`gieok.engine.warm.warm_up`), so a worker's first claim is not spent
    loading models."""
    from gieok.engine.warm import warm_up as warm  # it imports the engine's verbs, this module among them

    warm(engine)


def claim_next(engine: Engine, *, bank_id: int | None = None, banks: Sequence[int] | None = None,
               after_bank: int | None = None, now: float | None = None,
               job_id: int | None = None) -> tuple[Any, str] | None:
    """Claim the next job (banks taking turns after ``after_bank``; only ``job_id`` when given):
    ``(job, token)`` or None."""
    store = engine.store
    token = claim_token()
    at = time.time() if now is None else now
    with store.write():
        job = store.jobs.claim(token, at, float(engine.settings.job_lease_seconds), kinds=list(HANDLERS),
                               bank_id=bank_id, banks=banks, after_bank=after_bank, job_id=job_id)
    return (job, token) if job is not None else None


def release(engine: Engine, claims: Sequence[tuple[int, str]]) -> list[int]:
    """Give claimed jobs back (``(job_id, token)`` each): queued again at once, the attempt not
    counted; a released job's late commit is refused by its claim. The ids still held, now released."""
    if not claims:
        return []
    with engine.store.write():
        return [job_id for job_id, token in claims if engine.store.jobs.release(job_id, token)]


def _retry_at(engine: Engine, job: Any, exc: Exception, at: float) -> float | None:
    """When to run a failed job again; None to mark it failed."""
    if job.attempts >= int(engine.settings.job_max_attempts) or isinstance(exc, _FINAL) \
            or not getattr(exc, "retryable", True):
        return None
    hint: float | None = getattr(exc, "retry_after", None) if isinstance(exc, LLMRateLimitError) else None
    if hint:  # the provider said when: retrying sooner would only be refused again
        return at + min(_BACKOFF_CAP, float(hint))
    attempts = int(job.attempts)
    return at + min(_BACKOFF_CAP, float(engine.settings.job_backoff_seconds) * 2.0 ** (attempts - 1))


def run_claimed(engine: Engine, job: Any, token: str, *, now: float | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run one claimed job and record its end under its claim; returns its report (status done,
    retry, failed, or lost when the claim ended while it ran). ``progress(done, total)`` follows a
    long job."""
    store = engine.store
    if job.kind == "decay":
        engine.marks.flush(wait=True)  # decay must see what recall used
    at = time.time() if now is None else now
    bank = store.banks.by_id(job.bank_id)
    report: dict[str, Any] = {"id": job.id, "kind": job.kind, "bank": bank.name if bank else None}
    try:
        if bank is None:
            raise LookupError("the job's bank no longer exists")
        # a reembed needs the embedder it moves to, not the bank's (which may be gone from this process)
        model = str(job.payload.get("embedder")) if job.kind == "reembed" else bank.embedder
        ctx = JobContext(store, bank, engine.embedder(model), engine.settings, engine, now=at,
                         payload=job.payload, job_id=job.id, claim=token, progress=progress)
        result = HANDLERS[job.kind](ctx)
        if ctx.committed:
            held = True
        else:
            with store.write():
                held = store.jobs.finish(job.id, result=result, claimed_by=token)
        report.update(status="done" if held else "lost", result=result or {})
    except ClaimLostError as exc:
        report.update(status="lost", error=str(exc))
    except Exception as exc:  # a job's failure is recorded on its row, never lost or raised into the caller
        error = f"{type(exc).__name__}: {exc}"
        retry = _retry_at(engine, job, exc, at)
        with store.write():
            held = store.jobs.finish(job.id, error=error, retry_at=retry, claimed_by=token)
        report.update(status=("retry" if retry else "failed") if held else "lost", error=error)
    return report


def run_pending(engine: Engine, *, limit: int | None = None, bank_id: int | None = None,
                now: float | None = None) -> list[dict[str, Any]]:
    """Run queued jobs (all, or ``limit``) in this thread; returns one report per job run."""
    reports: list[dict[str, Any]] = []
    engine.marks.flush(wait=True)  # decay must see what recall used
    last_bank: int | None = None
    with Heartbeat(engine) as heartbeat:
        while limit is None or len(reports) < limit:
            claimed = claim_next(engine, bank_id=bank_id, after_bank=last_bank, now=now)
            if claimed is None:
                break
            job, token = claimed
            last_bank = job.bank_id
            if now is None:  # with a fixed clock there is no lease to keep alive
                heartbeat.add(job.id, token)
            try:
                report = run_claimed(engine, job, token, now=now)
            finally:
                heartbeat.remove(job.id)
            reports.append(report)
            if report["status"] == "retry" and now is not None:
                break  # a fixed clock would claim the same job again at once
    return reports


_ENDED = ("done", "failed", "cancelled")


def wait_for(engine: Engine, job_id: int, *, progress: Callable[[int, int], None] | None = None,
             poll: float = 0.5) -> None:
    """Run job ``job_id`` in this thread, or wait while another worker runs it; return once it has
    run (done, failed, or queued again after an error: its operation says which). ``progress(done,
    total)`` follows a long job, from its own run or from the progress another worker records."""
    ran = False
    with Heartbeat(engine) as heartbeat:
        while True:
            job = engine.store.jobs.get(job_id)
            if job is None or job.status in _ENDED or (ran and job.status == "queued"):
                return
            claimed = claim_next(engine, job_id=job_id)
            if claimed is None:  # another worker holds it (or its retry is not due yet)
                if job.status == "queued" and job.last_error:
                    return  # failed once and waits for its backoff: the operation says why
                report = job.result or {}
                if progress is not None and "staged" in report:
                    progress(int(report["staged"]), int(report.get("total", 0)))
                time.sleep(poll)
                continue
            claimed_job, token = claimed
            heartbeat.add(claimed_job.id, token)
            try:
                run_claimed(engine, claimed_job, token, progress=progress)
            finally:
                heartbeat.remove(claimed_job.id)
            ran = True


def _when(value: float | None) -> str | None:
    return from_epoch(value).isoformat() if value else None  # type: ignore[union-attr]


def job_record(job: Any, bank_name: str | None) -> Job:
    return Job(
        id=job.id, operation_id=operation_id(job.id), bank=bank_name, kind=job.kind,
        status=job.status, attempts=job.attempts,
        # the facts a job names, or once done the facts it processed (consolidation and decay report them)
        facts=len(job.payload.get("fact_ids", [])) or int((job.result or {}).get("facts", 0)),
        result=job.result,
        run_after=_when(job.run_after),
        last_error=job.last_error,
        created_at=_when(job.created_at),
        started_at=_when(job.started_at),
        finished_at=_when(job.finished_at),
        updated_at=_when(job.updated_at),
    )


def queue_maintenance(engine: Engine, banks: Sequence[BankRow], now: float | None) -> None:
    """Queue decay and TTL purge for ``banks`` (at ``now``, or as soon as a worker runs), and prune
    finished jobs older than ``JOB_RETENTION_DAYS`` so the queue does not grow without end."""
    at = time.time() if now is None else now
    with engine.store.write():
        for row in banks:
            engine.store.jobs.enqueue(row.id, "purge", run_after=now)
            engine.store.jobs.enqueue(row.id, "decay", run_after=now)
        engine.store.jobs.prune(at - JOB_RETENTION_DAYS * 86400.0)


def build_due_indexes(engine: Engine, banks: Sequence[BankRow]) -> None:
    """Train the approximate vector index of every bank whose index is due (one a crashed or
    older process left half-built resumes), each in short write steps."""
    for bank in banks:
        index_when_due(engine.store, bank.id, bank.dim)


def _job_of(engine: Engine, text: str) -> tuple[Any, BankRow]:
    digits = text[3:] if text.startswith("op-") else text
    fits = digits.isascii() and digits.isdigit() and int(digits) <= INT64_MAX  # else it names no job row
    job = engine.store.jobs.get(int(digits)) if fits else None
    bank = engine.store.banks.by_id(job.bank_id) if job is not None else None
    if job is None or bank is None:
        raise OperationNotFoundError(text)
    return job, bank


def operation(engine: Engine, operation_id_: str) -> Operation:
    """A background job (``op-12``) as the caller sees it; a retain's RetainResult once done."""
    job, bank = _job_of(engine, str(operation_id_))
    result = RetainResult(**job.result) if job.kind == "retain" and job.status == "done" and job.result else None
    report = dict(job.result) if job.kind != "retain" and job.result else None
    return Operation(operation_id(job.id), bank.name, job.kind, job.status, at_epoch(job.created_at),
                     at_epoch(job.updated_at), job.attempts, result, job.last_error,
                     at_epoch(job.run_after) if job.run_after else None,
                     at_epoch(job.started_at) if job.started_at else None,
                     at_epoch(job.finished_at) if job.finished_at else None, report)


def cancel(engine: Engine, operation_id_: str) -> Operation:
    """Cancel a queued or running job. A running retain's writes are rolled back when its worker
    commits (its claim is gone); OperationStateError for a job that already ended."""
    job, _bank = _job_of(engine, str(operation_id_))
    with engine.store.write():
        changed = engine.store.jobs.cancel(job.id)
    if not changed:
        raise OperationStateError(operation_id(job.id), engine.store.jobs.get(job.id).status, "cancel")
    return operation(engine, operation_id(job.id))


def retry(engine: Engine, operation_id_: str) -> Operation:
    """Queue a failed or cancelled job again, due now, with fresh attempts."""
    job, bank = _job_of(engine, str(operation_id_))
    with engine.store.write():
        if job.kind == "reembed":  # one move of a bank at a time
            engine.store.lock_bank(bank.id)
            other = active_reembed(engine.store, bank.id)
            if other is not None and other.id != job.id:
                raise ReembedRunningError(bank.name, operation_id(other.id), str(other.payload.get("embedder")))
        changed = engine.store.jobs.retry(job.id, time.time())
    if not changed:
        raise OperationStateError(operation_id(job.id), engine.store.jobs.get(job.id).status, "retry")
    return operation(engine, operation_id(job.id))


def list_jobs(engine: Engine, bank_id: int | None, status: str | None, limit: int) -> list[Job]:
    names = {b.id: b.name for b in engine.store.banks.rows()}
    return [job_record(j, names.get(j.bank_id)) for j in engine.store.jobs.all(bank_id, status, limit)]
