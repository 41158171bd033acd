"""The server's in-process worker: a :class:`gieok.workers.WorkerPool` of one thread that runs
queued jobs (submitted retains, consolidation, decay, purge, mental-model refresh) while the server
answers, unless ``gieok serve --no-worker`` (then ``gieok worker`` processes run them).

It claims exactly as a ``gieok worker`` process does, so servers and workers may share one
database. Jobs are durable rows: stopping the server releases the job it was running (queued again
at once), and a server killed mid-job leaves the job to be claimed again when its lease expires.
"""

from __future__ import annotations

from gieok.memory import Memory
from gieok.workers import WorkerPool

__all__ = ["Worker"]


class Worker:
    def __init__(self, memory: Memory, *, poll_seconds: float = 1.0, concurrency: int = 1) -> None:
        self.memory = memory
        self.pool = WorkerPool(memory, concurrency=concurrency, poll_seconds=poll_seconds, grace=30.0)

    @property
    def jobs_run(self) -> int:
        return self.pool.jobs_run

    def start(self) -> None:
        self.pool.start()

    def wake(self) -> None:
        self.pool.wake()

    def alive(self) -> bool:
        return self.pool.alive()

    def stop(self, timeout: float = 30.0) -> None:
        self.pool.stop(grace=timeout)
