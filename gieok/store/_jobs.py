"""``store.jobs``: the job queue, written once for both stores.

A job is claimed with a lease (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, through the dialect; the
file lock serialises SQLite's writers); its owner renews the lease, records progress and finishes it
(done, failed or retried later). ``unique`` jobs are not queued twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gieok.store._area import Area

__all__ = ["SQLJobs", "JobRow"]


@dataclass(frozen=True)
class JobRow:
    id: int
    bank_id: int
    kind: str
    payload: dict[str, Any]
    status: str
    attempts: int
    run_after: float
    last_error: str | None
    created_at: float
    updated_at: float
    result: dict[str, Any] | None = None  # what the handler returned, once done
    claimed_by: str | None = None  # the current (or last) claim's token
    lease_until: float | None = None  # a running job whose lease passed is claimed again
    started_at: float | None = None  # the first claim
    finished_at: float | None = None  # done, failed or cancelled


_JOB_COLUMNS = ("id, bank_id, kind, payload, status, attempts, run_after, last_error, created_at, updated_at, result, "
                "claimed_by, lease_until, started_at, finished_at")


class SQLJobs(Area):
    """The job queue."""

    def _job(self, r: Any) -> JobRow:
        return JobRow(int(r[0]), int(r[1]), str(r[2]), self._dialect.from_json(r[3]), str(r[4]), int(r[5]),
                      float(r[6]), r[7], float(r[8]), float(r[9]),
                      self._dialect.from_json(r[10]) if r[10] is not None else None, r[11], r[12], r[13], r[14])

    def enqueue(self, bank_id: int, kind: str, payload: dict[str, Any] | None = None,
                run_after: float | None = None, unique: bool = True) -> int | None:
        """Queue a job; with ``unique`` a queued job of the same kind for the bank is reused."""
        conn = self._require_write()
        now = time.time()
        if unique:
            self._dialect.lock(conn, f"gieok.job:{bank_id}:{kind}")
            row = conn.execute("SELECT id FROM jobs WHERE bank_id = ? AND kind = ? AND status = 'queued' "
                               "ORDER BY run_after, id LIMIT 1", (bank_id, kind)).fetchone()
            if row:
                return int(row[0])
        return self._dialect.insert_id(
            conn, "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (bank_id, kind, json.dumps(payload or {}), run_after if run_after is not None else now, now, now))

    def claim(self, worker: str, now: float, lease: float, kinds: Sequence[str] | None = None,
              bank_id: int | None = None, *, banks: Sequence[int] | None = None,
              after_bank: int | None = None, job_id: int | None = None) -> JobRow | None:
        """Claim one job in one statement: a due queued job, or a running one whose lease ran out
        (its worker died). ``worker`` is the claim's token (unique per claim: ``store.jobs.finish``,
        ``store.jobs.renew_lease`` and ``store.jobs.release`` name it). Banks take turns: the first bank after
        ``after_bank`` (wrapping around) that has such a job gives its oldest one, so a bank with a
        thousand queued jobs delays another bank's job by one job, not a thousand. A consolidation (a
        reembed) is never claimed while another of its bank runs (the unique indexes
        ``jobs_one_consolidation`` and ``jobs_one_reembed`` back this up when two processes race).
        ``job_id`` claims only that job (a caller waiting for it runs it itself)."""
        conn = self._require_write()
        filters = ""
        params: list[Any] = []
        if kinds:
            kinds_in, params = self._dialect.in_all(kinds, text=True)
            filters += f" AND due.kind {kinds_in}"
        if bank_id is not None:
            filters += " AND due.bank_id = ?"
            params.append(bank_id)
        if job_id is not None:
            filters += " AND due.id = ?"
            params.append(int(job_id))
        if banks is not None:
            if not banks:
                return None
            banks_in, bank_params = self._dialect.in_all(banks)
            filters += f" AND due.bank_id {banks_in}"
            params += bank_params
        # one statement: the subquery picks (and on PostgreSQL row-locks, skipping rows another
        # worker is claiming), the UPDATE takes; the claim's token then names the row
        conn.execute("SAVEPOINT gieok_claim")
        try:
            rows = self._claim(conn, worker, now, lease, filters, params, after_bank)
        except Exception as exc:
            if not self._dialect.is_conflict(exc):
                raise
            # another process started this bank's consolidation in the same instant: nothing to claim
            conn.execute("ROLLBACK TO SAVEPOINT gieok_claim")
            return None
        conn.execute("RELEASE SAVEPOINT gieok_claim")
        return self._job(rows[0]) if rows else None

    def _claim(self, conn: Any, worker: str, now: float, lease: float, filters: str, params: list[Any],
               after_bank: int | None) -> list[Any]:
        """The claim itself: one ``UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING`` (the SELECT
        locks its row ``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite holds the file's write lock)."""
        return list(conn.execute(
            "UPDATE jobs SET status = 'running', claimed_at = ?, claimed_by = ?, lease_until = ?, "
            "started_at = COALESCE(started_at, ?), attempts = attempts + 1, updated_at = ? "
            "WHERE id = (SELECT due.id FROM jobs AS due WHERE ((due.status = 'queued' AND due.run_after <= ?) "
            "OR (due.status = 'running' AND due.lease_until < ?))"
            f"{filters} AND NOT (due.kind IN ('consolidate', 'reembed') AND EXISTS (SELECT 1 FROM jobs AS other "
            "WHERE other.bank_id = due.bank_id AND other.kind = due.kind AND other.status = 'running' "
            "AND other.id <> due.id)) "
            "ORDER BY CASE WHEN due.bank_id > ? THEN 0 ELSE 1 END, due.bank_id, due.run_after, due.id "
            f"LIMIT 1{self._dialect.skip_locked}) RETURNING {_JOB_COLUMNS}",
            (now, worker, now + lease, now, now, now, now, *params,
             -1 if after_bank is None else int(after_bank))).fetchall())

    def set_progress(self, job_id: int, claimed_by: str, progress: dict[str, Any]) -> bool:
        """In a write: keep a running job's progress as its result (a long job reports as it goes,
        and the caller's next commit is its checkpoint); False when the claim no longer holds the job."""
        return bool(self._require_write().execute(
            "UPDATE jobs SET result = ?, updated_at = ? WHERE id = ? AND status = 'running' AND claimed_by = ?",
            (json.dumps(progress, ensure_ascii=False), time.time(), job_id, claimed_by)).rowcount)

    def finish(self, job_id: int, *, error: str | None = None, retry_at: float | None = None,
               result: dict[str, Any] | None = None, claimed_by: str | None = None) -> bool:
        """Record a job's end: done (with ``result``), queued again at ``retry_at``, or failed with
        ``error``. With ``claimed_by`` only while that claim still holds the job (running, not
        cancelled, not claimed again after its lease ran out); False when it does not."""
        conn = self._require_write()
        now = time.time()
        held = ""
        params: tuple[Any, ...] = (job_id,)
        if claimed_by is not None:
            held, params = " AND status = 'running' AND claimed_by = ?", (job_id, claimed_by)
        if error is None:
            changed = conn.execute(
                "UPDATE jobs SET status = 'done', last_error = NULL, result = ?, lease_until = NULL, finished_at = ?, "
                f"updated_at = ? WHERE id = ?{held}",
                (json.dumps(result, ensure_ascii=False) if result is not None else None, now, now, *params)).rowcount
        elif retry_at is not None:
            changed = conn.execute(
                "UPDATE jobs SET status = 'queued', last_error = ?, run_after = ?, lease_until = NULL, "
                f"updated_at = ? WHERE id = ?{held}", (error[:500], retry_at, now, *params)).rowcount
        else:
            changed = conn.execute("UPDATE jobs SET status = 'failed', last_error = ?, lease_until = NULL, "
                                   f"finished_at = ?, updated_at = ? WHERE id = ?{held}",
                                   (error[:500], now, now, *params)).rowcount
        return bool(changed)

    def renew_lease(self, job_id: int, claimed_by: str, until: float) -> bool:
        """The heartbeat: extend the claim's lease; False when the claim no longer holds the job."""
        return bool(self._require_write().execute(
            "UPDATE jobs SET lease_until = ? WHERE id = ? AND status = 'running' AND claimed_by = ?",
            (until, job_id, claimed_by)).rowcount)

    def release(self, job_id: int, claimed_by: str) -> bool:
        """Give a claimed job back (a worker stopping): queued again at once, the attempt not counted."""
        return bool(self._require_write().execute(
            "UPDATE jobs SET status = 'queued', lease_until = NULL, claimed_by = NULL, "
            "attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, updated_at = ? "
            "WHERE id = ? AND status = 'running' AND claimed_by = ?", (time.time(), job_id, claimed_by)).rowcount)

    def cancel(self, job_id: int) -> bool:
        """Cancel a queued or running job (a running one's worker finds its claim gone when it
        commits, and its work is rolled back); False when the job had already ended."""
        now = time.time()
        return bool(self._require_write().execute(
            "UPDATE jobs SET status = 'cancelled', lease_until = NULL, finished_at = ?, updated_at = ? "
            "WHERE id = ? AND status IN ('queued', 'running')", (now, now, job_id)).rowcount)

    def cancel_retains_of(self, bank_id: int, *, source_id: str | None = None,
                          user_id: str | None = None) -> list[dict[str, Any]]:
        """Cancel the queued or running retains of a source (by its id or one of its message ids) or
        of a user, and blank their payloads; returns the payloads as they were. In the caller's
        write transaction, so a worker running one finds its claim gone when it commits (its
        ``store.jobs.finish(claimed_by=...)`` matches no row; on PostgreSQL it waits for this row lock) and
        its writes roll back; a retain that committed first is already in the tables."""
        conn = self._require_write()
        now = time.time()
        cancelled = []
        for job_id, raw in conn.execute(
                "SELECT id, payload FROM jobs WHERE bank_id = ? AND kind = 'retain' "
                "AND status IN ('queued', 'running') ORDER BY id", (bank_id,)).fetchall():
            payload = self._dialect.from_json(raw)
            names_source = source_id is not None and (payload.get("source_id") == source_id or any(
                isinstance(m, dict) and m.get("id") == source_id for m in payload.get("messages") or []))
            names_user = user_id is not None and (payload.get("scope") or {}).get("user_id") == user_id
            if not (names_source or names_user):
                continue
            conn.execute("UPDATE jobs SET status = 'cancelled', payload = ?, last_error = ?, lease_until = NULL, "
                         "finished_at = ?, updated_at = ? WHERE id = ?",
                         (json.dumps({"source_id": payload.get("source_id"), "erased": True}),
                          "cancelled by forget", now, now, job_id))
            cancelled.append(payload)
        return cancelled

    def retry(self, job_id: int, now: float) -> bool:
        """Queue a failed or cancelled job again, due at ``now``, with its attempts reset (its last
        error is kept until it runs); False for a job in any other state."""
        return bool(self._require_write().execute(
            "UPDATE jobs SET status = 'queued', attempts = 0, run_after = ?, claimed_by = NULL, lease_until = NULL, "
            "finished_at = NULL, updated_at = ? WHERE id = ? AND status IN ('failed', 'cancelled')",
            (now, time.time(), job_id)).rowcount)

    def get(self, job_id: int) -> JobRow | None:
        row = self._conn().execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return self._job(row) if row else None

    def all(self, bank_id: int | None = None, status: str | None = None, limit: int = 100,
            kind: str | None = None) -> list[JobRow]:
        filters = "1 = 1"
        params: list[Any] = []
        if kind is not None:
            filters += " AND kind = ?"
            params.append(kind)
        if bank_id is not None:
            filters += " AND bank_id = ?"
            params.append(bank_id)
        if status is not None:
            filters += " AND status = ?"
            params.append(status)
        rows = self._conn().execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {filters} ORDER BY id DESC LIMIT ?",
                                    (*params, limit)).fetchall()
        return [self._job(r) for r in rows]

    def counts(self) -> dict[str, int]:
        """How many jobs are in each state."""
        return {str(status): int(n) for status, n in self._conn().execute(
            "SELECT status, COUNT(*) FROM jobs GROUP BY status ORDER BY status")}

    def prune(self, older_than: float) -> int:
        return int(self._require_write().execute(
            "DELETE FROM jobs WHERE status = 'done' AND updated_at < ?", (older_than,)).rowcount)
