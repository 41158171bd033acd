"""Workers: processes (``gieok worker``) and threads (inside ``gieok serve``) that run the job queue.

Many of them may share one database — N ``gieok serve`` and M ``gieok worker`` processes on one
PostgreSQL — because everything they coordinate on is in the database: a claim is one statement
(``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the write lock on SQLite), held by a lease that a
heartbeat renews, and a job's end is written only under its claim (see :mod:`gieok.engine.jobs.queue`).
A :class:`WorkerPool` is an adapter: it calls ``mem.jobs``' claim / run / release and nothing below.
"""

from gieok.workers.pool import WorkerPool, bank_matcher

__all__ = ["WorkerPool", "bank_matcher"]
