"""Workers over the job queue, on SQLite and PostgreSQL: retries with capped backoff, LLM errors that
are not retried blindly, operations (status, cancel, retry), exactly-once effects when a worker dies
mid-retain, a pool of threads draining two banks, the CLI listing and the HTTP routes. Korean and
English throughout."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from server_harness import serving

from gieok import Memory, OperationNotFoundError, OperationStateError
from gieok.cli import cli
from gieok.engine.context import JobContext
from gieok.engine.jobs import queue as jobs
from gieok.errors import LLMAuthError, LLMRateLimitError, LLMUnavailableError
from gieok.records import JobReport
from gieok.server.app import create_app
from gieok.settings import resolve_settings
from gieok.store import PostgresStore
from gieok.workers import WorkerPool, bank_matcher

CHAT = [
    {"id": "w1", "speaker": "민지", "text": "나 다음 달에 부산으로 이사 가.", "timestamp": "2026-03-02T10:00:00+09:00"},
    {"id": "w2", "speaker": "Minji", "text": "My sister Hana works at Naver in Seongnam.",
     "timestamp": "2026-03-02T10:01:00+09:00"},
]
SECRET = "sk-" + "Q9w8E7r6" * 5


@pytest.fixture(params=["sqlite", "postgres"])
def any_mem(request: pytest.FixtureRequest, db_path: str, fake_embedder: object) -> Iterator[Memory]:
    settings = {"job_backoff_seconds": 10.0, "job_max_attempts": 3, "job_lease_seconds": 60.0}
    if request.param == "sqlite":
        memory = Memory(db_path, embedder="fake", **settings)
    else:
        factory: Callable[[], str] = request.getfixturevalue("pg_dsn_factory")
        memory = Memory(store=PostgresStore(factory()), embedder="fake", **settings)
    with memory:
        yield memory


def _queue(mem: Memory, bank: str, kind: str, payload: dict[str, Any] | None = None) -> int:
    with mem.store.write():
        bank_id = mem.engine.bank_for_write(bank).bank.id
        job_id = mem.store.jobs.enqueue(bank_id, kind, payload, run_after=0.0, unique=False)
    assert job_id is not None
    return job_id


def _failing(exc: Exception, calls: list[int]) -> Callable[[JobContext], dict[str, Any]]:
    def handler(ctx: JobContext) -> dict[str, Any]:
        calls.append(ctx.job_id or 0)
        raise exc
    return handler


# -- retries -------------------------------------------------------------------------------------
def test_a_failing_job_backs_off_exponentially_then_fails_with_its_error(
        any_mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setitem(jobs.HANDLERS, "decay", _failing(LLMUnavailableError("서버 응답 없음 / no answer"), calls))
    job_id = _queue(any_mem, "작업-bank", "decay")
    op = f"op-{job_id}"
    assert jobs.run_pending(any_mem.engine, now=1000.0)[0]["status"] == "retry"
    first = any_mem.operation(op)
    assert (first.status, first.attempts, first.run_after.timestamp()) == ("queued", 1, 1010.0)  # type: ignore[union-attr]
    assert "no answer" in (first.error or "")
    assert jobs.run_pending(any_mem.engine, now=1009.0) == []  # not due yet
    assert jobs.run_pending(any_mem.engine, now=1010.0)[0]["status"] == "retry"
    assert any_mem.operation(op).run_after.timestamp() == 1030.0  # type: ignore[union-attr]  # doubled
    assert jobs.run_pending(any_mem.engine, now=1030.0)[0]["status"] == "failed"  # job_max_attempts = 3
    failed = any_mem.operation(op)
    assert (failed.status, failed.attempts, len(calls)) == ("failed", 3, 3)
    assert "LLMUnavailableError" in (failed.error or "") and failed.finished_at is not None
    assert jobs.run_pending(any_mem.engine, now=99_999.0) == []  # failed stays failed


def test_the_backoff_is_capped(any_mem: Memory) -> None:
    engine = SimpleNamespace(settings=resolve_settings({"job_max_attempts": 99, "job_backoff_seconds": 10.0}))
    at = [jobs._retry_at(engine, SimpleNamespace(attempts=n), RuntimeError("x"), 0.0)  # type: ignore[arg-type]
          for n in (1, 2, 3, 30)]
    assert at == [10.0, 20.0, 40.0, 3600.0]


def test_a_rate_limited_llm_is_retried_after_its_retry_after_and_a_refused_key_not_at_all(
        any_mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setitem(jobs.HANDLERS, "decay", _failing(LLMRateLimitError("429 너무 많음", retry_after=300.0), calls))
    monkeypatch.setitem(jobs.HANDLERS, "purge", _failing(LLMAuthError("the server refused the key: 401"), calls))
    limited = _queue(any_mem, "limits", "decay")
    refused = _queue(any_mem, "limits", "purge")
    reports = {r["id"]: r["status"] for _ in range(2) for r in jobs.run_pending(any_mem.engine, now=500.0, limit=1)}
    assert reports == {limited: "retry", refused: "failed"}
    assert any_mem.operation(f"op-{limited}").run_after.timestamp() == 800.0  # type: ignore[union-attr]
    gave_up = any_mem.operation(f"op-{refused}")
    assert (gave_up.status, gave_up.attempts) == ("failed", 1) and "refused the key" in (gave_up.error or "")


# -- operations ----------------------------------------------------------------------------------
def test_operations_are_cancelled_and_retried(any_mem: Memory) -> None:
    op = any_mem.submit_retain("민지", messages=CHAT, document_id="chat-1")
    cancelled = any_mem.jobs.cancel(op.id)
    assert cancelled.status == "cancelled" and cancelled.finished_at is not None
    assert any_mem.run_jobs(bank="민지") == []  # a cancelled retain is never run
    assert any_mem.sources("민지") == []
    with pytest.raises(OperationStateError, match="cancelled"):
        any_mem.jobs.cancel(op.id)
    again = any_mem.jobs.retry(op.id)
    assert (again.status, again.attempts, again.finished_at) == ("queued", 0, None)
    with pytest.raises(OperationStateError, match="retried"):
        any_mem.jobs.retry(op.id)
    any_mem.run_jobs(bank="민지")
    done = any_mem.operation(op.id)
    assert done.status == "done" and done.result is not None and done.result.facts_added == 2
    assert done.started_at is not None and done.finished_at is not None and done.started_at <= done.finished_at
    with pytest.raises(OperationStateError):
        any_mem.jobs.cancel(op.id)
    with pytest.raises(OperationNotFoundError):
        any_mem.jobs.cancel("op-424242")


def test_cancelling_a_running_retain_writes_nothing(any_mem: Memory) -> None:
    op = any_mem.submit_retain("alice", messages=CHAT, document_id="chat-1")
    job, token = jobs.claim_next(any_mem.engine)  # type: ignore[misc]
    assert any_mem.operation(op.id).status == "running"
    any_mem.jobs.cancel(op.id)  # while its worker runs it
    report = jobs.run_claimed(any_mem.engine, job, token)
    assert report["status"] == "lost"
    assert any_mem.sources("alice") == [] and any_mem.operation(op.id).status == "cancelled"


# -- exactly once --------------------------------------------------------------------------------
def _counts(mem: Memory, bank: str) -> tuple[int, ...]:
    """Every row a retain and its consolidation write, counted in the tables (superseded ones too)."""
    bank_id = mem.engine.bank(bank).bank.id
    conn = mem.store._conn()  # noqa: SLF001  (counting rows is below the protocol on purpose)
    rows = [int(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE bank_id = ?", (bank_id,)).fetchone()[0])
            for table in ("facts", "sources", "messages", "chunks", "observations")]
    return (*rows, len(mem.audit_log(bank)))


class _Killed(BaseException):
    """The worker process dying: nothing after it runs, its open transaction is rolled back."""


def test_a_retain_rerun_after_its_worker_died_writes_its_effects_once(
        any_mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker 1 claims, writes the facts and dies before the job is marked done; its lease runs out
    and worker 2 runs the job again. The second worker's claim also outlives a third one that took
    the job while it was slow: that late commit is refused. Facts, sources, observations and audit
    rows exist once."""
    reference = any_mem.submit_retain("기준", messages=CHAT, text=None, document_id="chat-1")
    any_mem.run_jobs(bank="기준")
    any_mem.run_jobs(bank="기준")  # its consolidation
    assert any_mem.operation(reference.id).status == "done"
    once = _counts(any_mem, "기준")
    assert once[0] == 2 and once[4] > 0

    op = any_mem.submit_retain("민지", messages=CHAT, document_id="chat-1")
    engine = any_mem.engine
    t = time.time() + 1.0
    job, token = jobs.claim_next(engine, bank_id=engine.bank("민지").bank.id, now=t)  # type: ignore[misc]
    assert job.kind == "retain"
    real_commit = JobContext.commit

    def die_before_done(self: JobContext, result: dict[str, Any] | None) -> None:
        raise _Killed()

    monkeypatch.setattr(JobContext, "commit", die_before_done)
    with pytest.raises(_Killed):
        jobs.run_claimed(engine, job, token, now=t)
    monkeypatch.setattr(JobContext, "commit", real_commit)
    assert any_mem.operation(op.id).status == "running"  # nobody marked it: it waits for its lease
    assert jobs.claim_next(engine, now=t + 30) is None
    job2, token2 = jobs.claim_next(engine, now=t + 61)  # type: ignore[misc]
    assert job2.id == job.id and job2.attempts == 2
    job3, token3 = jobs.claim_next(engine, now=t + 200)  # type: ignore[misc]  # worker 2 stalled past its lease
    assert job3.id == job.id
    assert jobs.run_claimed(engine, job2, token2, now=t + 200)["status"] == "lost"  # its commit is refused
    assert jobs.run_claimed(engine, job3, token3, now=t + 200)["status"] == "done"
    any_mem.run_jobs(bank="민지")
    any_mem.run_jobs(bank="민지")
    done = any_mem.operation(op.id)
    assert done.status == "done" and done.result is not None and done.result.facts_added == 2
    assert _counts(any_mem, "민지") == once


def test_a_consolidation_rerun_after_a_crash_adds_no_observation(any_mem: Memory) -> None:
    any_mem.retain("alice", messages=CHAT, document_id="chat-1")
    engine = any_mem.engine
    t = time.time() + 1.0
    job, token = jobs.claim_next(engine, now=t)  # type: ignore[misc]
    assert job.kind == "consolidate"
    bank = engine.bank("alice")
    ctx = JobContext(bank.store, bank.bank, bank.embedder, engine.settings, engine, now=t, payload=job.payload,
                     job_id=job.id, claim=token)
    jobs.HANDLERS["consolidate"](ctx)  # its effects are written; the worker dies before finish_job
    written = [o.text for o in any_mem.observations("alice")]
    assert written
    again, token2 = jobs.claim_next(engine, now=t + 61)  # type: ignore[misc]
    assert again.id == job.id
    assert jobs.run_claimed(engine, again, token2, now=t + 61)["status"] == "done"
    assert [o.text for o in any_mem.observations("alice")] == written


def test_a_retain_run_twice_outside_the_queue_adds_no_fact(any_mem: Memory) -> None:
    """Idempotent by chunk hash too: the same retain job's payload run a second time (a job retried
    by hand after its effects were written) finds the messages and chunks stored."""
    op = any_mem.submit_retain("민지", messages=CHAT, text=None, document_id="chat-1")
    any_mem.run_jobs(bank="민지", limit=1)
    first = _counts(any_mem, "민지")
    job = any_mem.store.jobs.get(int(op.id[3:]))
    bank = any_mem.engine.bank("민지")
    ctx = JobContext(bank.store, bank.bank, bank.embedder, any_mem.engine.settings, any_mem.engine, payload=job.payload)
    result = jobs.HANDLERS["retain"](ctx)
    assert result is not None and result["facts_added"] == 0 and result["chunks_skipped"] == result["chunks_total"]
    assert _counts(any_mem, "민지") == first


# -- the pool ------------------------------------------------------------------------------------
def test_a_pool_drains_two_banks_with_two_threads(any_mem: Memory) -> None:
    ops = [any_mem.submit_retain("업로드", text=f"문서 {i}: 회의록 meeting notes number {i}.", document_id=f"d{i}")
           for i in range(6)]
    ops.append(any_mem.submit_retain("chat", messages=CHAT, document_id="chat-1"))
    pool = WorkerPool(any_mem, concurrency=2, poll_seconds=0.05)
    pool.start()
    try:
        deadline = time.monotonic() + 60
        while any(any_mem.operation(o.id).status != "done" for o in ops) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        assert pool.stop(grace=30.0) == []
    assert [any_mem.operation(o.id).status for o in ops] == ["done"] * 7
    assert not pool.alive()
    started = sorted(ops, key=lambda o: any_mem.operation(o.id).started_at)  # type: ignore[arg-type, return-value]
    assert [o.bank for o in started].index("chat") <= 2  # its turn came long before the upload's six were done


def test_a_pool_limited_to_some_banks_leaves_the_others(any_mem: Memory) -> None:
    mine = any_mem.submit_retain("team-a", text="팀 A의 일정은 금요일이다. Team A meets on Friday.")
    other = any_mem.submit_retain("alice", text="Alice likes tea.")
    pool = WorkerPool(any_mem, concurrency=1, banks="team-*", poll_seconds=0.05)
    pool.start()
    try:
        deadline = time.monotonic() + 30
        while any_mem.operation(mine.id).status != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        pool.stop()
    assert any_mem.operation(mine.id).status == "done" and any_mem.operation(other.id).status == "queued"


def test_a_worker_claims_runs_and_releases_through_memory(any_mem: Memory) -> None:
    """What a WorkerPool drives: mem.jobs.claim / run_claimed / release, never the engine behind it."""
    mine = any_mem.submit_retain("team-a", text="팀 A의 회의는 금요일이다. Team A meets on Friday.")
    other = any_mem.submit_retain("alice", text="Alice likes tea.")
    assert any_mem.jobs.claim(banks=["nobody"]) is None  # no such bank: nothing to claim
    claimed = any_mem.jobs.claim(banks=["team-a"])
    assert claimed is not None and claimed.kind == "retain" and f"op-{claimed.id}" == mine.id
    assert any_mem.operation(mine.id).status == "running" and any_mem.operation(other.id).status == "queued"
    assert any_mem.jobs.release([claimed]) == [claimed.id]  # given back: queued again at once
    assert any_mem.operation(mine.id).status == "queued" and any_mem.operation(mine.id).attempts == 0
    again = any_mem.jobs.claim(banks=["team-a"])
    assert again is not None and again.id == claimed.id and again.token != claimed.token
    report = any_mem.jobs.run_claimed(again)
    assert isinstance(report, JobReport) and (report.status, report.bank, report.kind) == ("done", "team-a", "retain")
    assert report.result is not None and report.result["facts_added"] >= 1
    assert any_mem.jobs.release([again]) == []  # it ended: no claim is held any more
    after = any_mem.jobs.claim(after=again)  # banks take turns: the next bank after team-a's
    assert after is not None and after.id == int(other.id.removeprefix("op-"))
    assert any_mem.jobs.run_claimed(after).status == "done"
    follow = any_mem.jobs.claim()  # each retain queued its consolidation
    assert follow is not None and follow.kind == "consolidate" and any_mem.jobs.release([follow]) == [follow.id]


def test_bank_patterns() -> None:
    match = bank_matcher("team-*, 민지")
    assert match is not None and bank_matcher(None) is None and bank_matcher("") is None
    assert [match(n) for n in ("team-a", "민지", "민지2", "alice")] == [True, True, False, False]


def test_stopping_a_pool_releases_the_job_it_could_not_finish(any_mem: Memory, fake_embedder: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = __import__("threading").Event(), __import__("threading").Event()
    slow = jobs.HANDLERS["retain"]

    def stuck(ctx: JobContext) -> dict[str, Any] | None:
        started.set()
        release.wait(20)
        return slow(ctx)

    monkeypatch.setitem(jobs.HANDLERS, "retain", stuck)
    op = any_mem.submit_retain("민지", messages=CHAT, document_id="chat-1")
    pool = WorkerPool(any_mem, concurrency=1, poll_seconds=0.05)
    pool.start()
    assert started.wait(20)
    released = pool.stop(grace=0.2)
    assert released == [int(op.id[3:])]
    back = any_mem.operation(op.id)
    assert (back.status, back.attempts) == ("queued", 0)
    release.set()  # its late commit is refused: the claim was released
    deadline = time.monotonic() + 20
    while pool.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any_mem.sources("민지") == [] and any_mem.operation(op.id).status == "queued"


# -- adapters ------------------------------------------------------------------------------------
def test_gieok_jobs_lists_cancels_and_retries(db_path: str, fake_embedder: object) -> None:
    with Memory(db_path, embedder="fake") as mem:
        op = mem.submit_retain("민지", messages=CHAT, document_id="chat-1")
    runner = CliRunner()
    base = ["--db", db_path, "--embedder", "fake"]
    listed = runner.invoke(cli, [*base, "jobs", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    assert [(r["operation_id"], r["kind"], r["status"], r["bank"]) for r in rows] == [
        (op.id, "retain", "queued", "민지")]
    cancelled = runner.invoke(cli, [*base, "jobs", "--cancel", op.id, "--json"])
    assert json.loads(cancelled.output)["status"] == "cancelled"
    text = runner.invoke(cli, [*base, "jobs", "--status", "cancelled"])
    assert op.id in text.output and "cancelled" in text.output
    refused = runner.invoke(cli, [*base, "jobs", "--cancel", op.id])
    assert refused.exit_code != 0 and "only queued or running" in refused.output
    assert json.loads(runner.invoke(cli, [*base, "jobs", "--retry", op.id, "--json"]).output)["status"] == "queued"


def test_http_cancel_and_retry(mem: Memory) -> None:
    with serving(create_app(mem, mcp=False, worker=False)) as url, httpx.Client(base_url=url, timeout=30) as http:
        accepted = http.post("/v1/banks/민지/retain", json={"messages": CHAT, "async": True})
        op_id = accepted.json()["operation_id"]
        cancelled = http.post(f"/v1/operations/{op_id}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        again = http.post(f"/v1/operations/{op_id}/cancel")
        assert again.status_code == 409 and "only queued or running" in again.json()["detail"]
        assert "Traceback" not in again.text
        retried = http.post(f"/v1/operations/{op_id}/retry")
        assert retried.status_code == 200 and retried.json()["status"] == "queued"
        assert http.post("/v1/operations/op-777/retry").status_code == 404
        assert http.get(f"/v1/operations/{op_id}").json()["attempts"] == 0
