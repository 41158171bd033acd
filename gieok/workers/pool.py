"""A pool of job-running threads in one process, with one heartbeat and a graceful stop.

Each thread claims the next job (banks take turns: the pool keeps one cursor, the last bank it
served, and the claim asks for the first bank after it that has a due job — Deficit Round Robin
with a quantum of one job), runs it and claims again at once; when nothing is due it sleeps until
woken (:meth:`WorkerPool.wake`, a submit) or ``poll_seconds`` pass. :meth:`WorkerPool.stop` stops
claiming, lets the running jobs finish for ``grace`` seconds, then releases the claims still held
(they are queued again at once, the attempt not counted; a released job's late commit is refused
by its claim and rolled back), so SIGTERM never leaves a job to wait for its lease.

An adapter: it drives the queue through :class:`gieok.Memory`'s ``mem.jobs`` (claim, run a claimed
job, release, heartbeat) and nothing below it.
"""

from __future__ import annotations

import fnmatch
import logging
import threading
import time
from collections.abc import Callable

from gieok.memory import Memory
from gieok.records import ClaimedJob, JobReport

__all__ = ["WorkerPool", "bank_matcher"]

log = logging.getLogger("gieok.worker")
_BANKS_REFRESH_SECONDS = 2.0


def bank_matcher(patterns: str | None) -> Callable[[str], bool] | None:
    """``--banks 'team-*,alice'``: comma-separated shell patterns (case-sensitive); None for all banks."""
    if not patterns:
        return None
    parts = [p.strip() for p in patterns.split(",") if p.strip()]
    return lambda name: any(fnmatch.fnmatchcase(name, p) for p in parts)


class WorkerPool:
    """``concurrency`` threads running ``memory``'s queue until :meth:`stop`."""

    def __init__(self, memory: Memory, *, concurrency: int = 1, banks: str | None = None,
                 poll_seconds: float = 1.0, grace: float = 30.0,
                 on_job: Callable[[JobReport], None] | None = None) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.memory, self.concurrency, self.poll_seconds, self.grace = memory, concurrency, poll_seconds, grace
        self.on_job = on_job
        self._match = bank_matcher(banks)
        self._bank_names: list[str] | None = None
        self._banks_read = 0.0
        self._cursor: ClaimedJob | None = None
        self._lock = threading.Lock()
        self._claim_lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._hurry = threading.Event()
        self._running: dict[int, ClaimedJob] = {}  # job id -> its claim, for release at stop
        self._threads: list[threading.Thread] = []
        self.heartbeat = memory.jobs.heartbeat()
        self.jobs_run = 0
        self.reports: list[JobReport] = []

    # -- control -----------------------------------------------------------------------------
    def start(self) -> None:
        for i in range(self.concurrency):
            thread = threading.Thread(target=self._loop, name=f"gieok-worker-{i + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        with self._wake:
            self._wake.notify_all()

    def alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def stopping(self) -> bool:
        return self._stop.is_set()

    def request_stop(self) -> None:
        """Stop claiming (a signal handler calls this; :meth:`stop` then drains)."""
        self._stop.set()
        self.wake()

    def hurry(self) -> None:
        """End a :meth:`stop` that is waiting for running jobs: release them now."""
        self._hurry.set()

    def stop(self, grace: float | None = None) -> list[int]:
        """Stop claiming, wait up to ``grace`` seconds (or until :meth:`hurry`) for running jobs,
        release the rest; returns the ids of the jobs released."""
        self.request_stop()
        deadline = time.monotonic() + (self.grace if grace is None else grace)
        while any(t.is_alive() for t in self._threads) and time.monotonic() < deadline and not self._hurry.is_set():
            time.sleep(0.05)
        with self._lock:
            held = list(self._running.values())
        released = self.memory.jobs.release(held)
        if released:
            log.info("released jobs %s at stop", released)
        self.heartbeat.__exit__()
        return released

    # -- the loop ----------------------------------------------------------------------------
    def _banks(self) -> list[str] | None:
        if self._match is None:
            return None
        now = time.monotonic()
        if self._bank_names is None or now - self._banks_read > _BANKS_REFRESH_SECONDS:
            self._bank_names = [name for name in self.memory.banks.names() if self._match(name)]
            self._banks_read = now
        return self._bank_names

    def _claim(self) -> ClaimedJob | None:
        # one claim at a time per process, so the threads move the shared cursor in turn (two
        # threads reading the same cursor would both serve the same bank)
        with self._claim_lock:
            claimed = self.memory.jobs.claim(banks=self._banks(), after=self._cursor)
            if claimed is not None:
                self._cursor = claimed
        if claimed is not None:
            with self._lock:
                self._running[claimed.id] = claimed
            self.heartbeat.add(claimed.id, claimed.token)
        return claimed

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                claimed = self._claim()
            except Exception:  # a broken store must not kill the thread silently; the next poll retries
                log.exception("the worker could not claim a job")
                claimed = None
            if claimed is None:
                with self._wake:
                    if not self._stop.is_set():
                        self._wake.wait(self.poll_seconds)
                continue
            try:
                report = self.memory.jobs.run_claimed(claimed)
            except Exception:  # recording the job's end failed (the store went away): its lease will expire
                log.exception("job %s: could not record its end", claimed.id)
                report = JobReport(claimed.id, claimed.kind, None, "lost")
            finally:
                self.heartbeat.remove(claimed.id)
                with self._lock:
                    self._running.pop(claimed.id, None)
            with self._lock:
                self.jobs_run += 1
                self.reports.append(report)
                del self.reports[:-100]
            if self.on_job is not None:
                self.on_job(report)
