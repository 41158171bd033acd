"""The server's in-process worker: one thread that runs queued jobs (submitted retains first in
queue order, then consolidation, decay, purge, mental-model refresh) while the server answers.

It calls the same ``Memory.run_jobs`` the library and ``gieok jobs`` use, one job at a time, and
sleeps until woken (a submit) or ``poll_seconds`` pass. Jobs are durable rows: stopping the server
mid-job leaves the job to be claimed again when its lease expires.
"""

from __future__ import annotations

import logging
import threading

from gieok.memory import Memory

__all__ = ["Worker"]

log = logging.getLogger("gieok.server")


class Worker:
    def __init__(self, memory: Memory, *, poll_seconds: float = 1.0) -> None:
        self.memory, self.poll_seconds = memory, poll_seconds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.jobs_run = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="gieok-worker", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                done = self.memory.run_jobs(limit=1)
            except Exception:  # a broken store must not kill the thread silently; the next poll retries
                log.exception("the worker could not run jobs")
                done = []
            self.jobs_run += len(done)
            if not done:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()
