"""Workers: processes (``gieok worker``) and threads (inside ``gieok serve``) that run the job queue.

Many of them may share one database — N ``gieok serve`` and M ``gieok worker`` processes on one
PostgreSQL — because everything they coordinate on is in the database: a claim is one statement
(``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the write lock on SQLite), held by a lease that a
heartbeat renews, and a job's end is written only under its claim (see :mod:`gieok.engine.jobs.queue`).
A :class:`WorkerPool` is an adapter: it calls ``mem.jobs``' claim / run / release and nothing below.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gieok.workers.pool import WorkerPool, bank_matcher

__all__ = ["WorkerPool", "bank_matcher"]


def __getattr__(name: str) -> object:
    # the pool (and the library behind it) is imported on first use: ``gieok --help`` registers the
    # ``worker`` command from gieok.workers.cli without it
    if name in __all__:
        from gieok.workers import pool

        return getattr(pool, name)
    raise AttributeError(f"module 'gieok.workers' has no attribute {name!r}")
