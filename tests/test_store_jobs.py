"""The ``store.jobs`` contract (:class:`gieok.store.protocol.Jobs`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _setup

from gieok.store import SQLiteStore
from gieok.store._jobs import JobRow


def test_job_queue_enqueue_claim_lease_finish_retry(store: AnyStore) -> None:
    a = _setup(store, "a", ["x"])
    b = _setup(store, "b", ["y"])
    with store.write():
        first = store.jobs.enqueue(a, "consolidate", run_after=100.0)
        assert store.jobs.enqueue(a, "consolidate", {"fact_ids": [1]}) == first  # unique: the queued one
        second = store.jobs.enqueue(a, "consolidate", {"fact_ids": [1, 2]}, run_after=100.0, unique=False)
        decay = store.jobs.enqueue(b, "decay", {"이름": "값"}, run_after=50.0)
        later = store.jobs.enqueue(a, "refresh_models", run_after=10_000.0)
    assert len({first, second, decay, later}) == 4
    with store.write():
        assert store.jobs.claim("w1", 20.0, 60.0) is None  # nothing is due yet
        job = store.jobs.claim("w1", 200.0, 60.0, after_bank=a)  # bank a was served last: b's turn
        assert isinstance(job, JobRow)
        assert (job.id, job.bank_id, job.kind, job.status, job.attempts, job.payload) == (
            decay, b, "decay", "running", 1, {"이름": "값"})
        assert (job.claimed_by, job.lease_until, job.started_at) == ("w1", 260.0, 200.0)
        assert store.jobs.claim("w2", 200.0, 60.0, kinds=["decay"]) is None
        mine = store.jobs.claim("w2", 200.0, 60.0, bank_id=a)
        assert mine.id == first and mine.run_after == 100.0
        # one consolidation per bank at a time: the second waits while the first runs
        assert store.jobs.claim("w3", 200.0, 60.0, kinds=["consolidate"], bank_id=a) is None
        assert store.jobs.claim("w3", 230.0, 60.0) is None  # claimed ones are leased
        reclaimed = store.jobs.claim("w3b", 270.0, 60.0, kinds=["decay"])  # w1's lease ran out
        assert (reclaimed.id, reclaimed.attempts, reclaimed.claimed_by) == (decay, 2, "w3b")
        assert store.jobs.finish(decay, claimed_by="w1") is False  # the old claim may not end it
        assert store.jobs.finish(decay, claimed_by="w3b") is True
        assert store.jobs.finish(first, error="boom " * 200, retry_at=500.0, claimed_by="w2")
        assert store.jobs.claim("w3c", 300.0, 60.0, kinds=["consolidate"], bank_id=a).id == second
        store.jobs.finish(second, error="gave up")
    done = store.jobs.all(status="done")
    assert [j.id for j in done] == [decay] and done[0].last_error is None and done[0].finished_at is not None
    retry = store.jobs.all(bank_id=a, status="queued")
    assert [j.id for j in retry] == [later, first]  # newest first
    assert retry[1].run_after == 500.0 and len(retry[1].last_error) == 500
    assert [j.status for j in store.jobs.all(bank_id=a)] == ["queued", "failed", "queued"]
    assert store.jobs.all(bank_id=a, limit=1)[0].id == later
    assert store.jobs.counts() == {"done": 1, "failed": 1, "queued": 2}
    with store.write():
        assert store.jobs.claim("w4", 400.0, 60.0, bank_id=a) is None
        assert store.jobs.claim("w4", 600.0, 60.0, bank_id=a).id == first
        assert store.jobs.enqueue(a, "consolidate") != first  # no queued consolidation left to reuse


def test_job_claims_take_bank_turns_fifo_within_a_bank(store: AnyStore) -> None:
    """Deficit Round Robin with a quantum of one job: a bank with many queued jobs delays another
    bank's later job by one claim, and each bank's own jobs come out in queue order."""
    a = _setup(store, "업로드-a", ["x"])
    b = _setup(store, "chat-b", ["y"])
    c = _setup(store, "idle-c", ["z"])
    with store.write():
        a_jobs = [store.jobs.enqueue(a, "retain", {"n": i}, run_after=10.0 + i, unique=False) for i in range(5)]
        b_job = store.jobs.enqueue(b, "retain", {"n": "늦게"}, run_after=50.0, unique=False)
    order, cursor = [], None
    with store.write():
        while (job := store.jobs.claim(f"w{len(order)}", 100.0, 60.0, after_bank=cursor)) is not None:
            order.append(job.id)
            cursor = job.bank_id
    # FIFO would run b's job last; the turns put it second, a's stay in their order
    assert order == [a_jobs[0], b_job, *a_jobs[1:]]
    assert c not in {store.jobs.get(i).bank_id for i in order}
    with store.write():  # the cursor wraps: after the highest bank id, the lowest one with work
        extra = store.jobs.enqueue(a, "retain", {}, run_after=10.0, unique=False)
        assert store.jobs.claim("w-wrap", 150.0, 60.0, after_bank=max(a, b, c)).id == extra
        only_b = store.jobs.enqueue(b, "retain", {}, run_after=10.0, unique=False)
        store.jobs.enqueue(a, "retain", {}, run_after=10.0, unique=False)
        assert store.jobs.claim("w-banks", 150.0, 60.0, banks=[b]).id == only_b  # --banks
        assert store.jobs.claim("w-none", 150.0, 60.0, banks=[]) is None


def test_job_lease_heartbeat_release_cancel_retry(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        job_id = store.jobs.enqueue(bank, "retain", {"text": "안녕"}, run_after=0.0, unique=False)
        claimed = store.jobs.claim("t1", 100.0, 60.0)
        assert (claimed.id, claimed.lease_until) == (job_id, 160.0)
        assert store.jobs.renew_lease(job_id, "t1", 250.0) is True  # the heartbeat
        assert store.jobs.renew_lease(job_id, "someone-else", 999.0) is False
        assert store.jobs.claim("t2", 200.0, 60.0) is None  # renewed: still held at 200
        again = store.jobs.claim("t2", 251.0, 60.0)  # the heartbeat stopped (worker killed): claimed again
        assert (again.id, again.attempts, again.claimed_by, again.started_at) == (job_id, 2, "t2", 100.0)
        assert store.jobs.renew_lease(job_id, "t1", 999.0) is False  # the dead claim cannot revive
        assert store.jobs.release(job_id, "t1") is False
        assert store.jobs.release(job_id, "t2") is True  # a stopping worker gives it back
    released = store.jobs.get(job_id)
    assert (released.status, released.attempts, released.claimed_by, released.lease_until) == ("queued", 1, None, None)
    with store.write():
        store.jobs.claim("t3", 300.0, 60.0)
        assert store.jobs.cancel(job_id) is True  # a running job can be cancelled
        assert store.jobs.finish(job_id, result={"facts": 1}, claimed_by="t3") is False  # its commit is refused
        assert store.jobs.cancel(job_id) is False  # already ended
        assert store.jobs.claim("t4", 10_000.0, 60.0) is None  # a cancelled job is never claimed
    cancelled = store.jobs.get(job_id)
    assert (cancelled.status, cancelled.result) == ("cancelled", None) and cancelled.finished_at is not None
    with store.write():
        assert store.jobs.retry(job_id, 400.0) is True
        assert store.jobs.retry(job_id, 400.0) is False  # queued: nothing to retry
        assert store.jobs.claim("t5", 399.0, 60.0) is None
        retried = store.jobs.claim("t5", 400.0, 60.0)
        assert (retried.id, retried.attempts, retried.finished_at) == (job_id, 1, None)
        assert store.jobs.finish(job_id, error="LLMAuthError: key refused", claimed_by="t5") is True
        assert store.jobs.cancel(job_id) is False  # failed: only retry applies
    assert (store.jobs.get(job_id).status, store.jobs.get(job_id).last_error) == ("failed", "LLMAuthError: key refused")


def test_concurrent_claims_never_take_a_job_twice(open_store: Callable[[], AnyStore]) -> None:
    """Four claimers on their own connections (four processes on PostgreSQL: SKIP LOCKED; on SQLite
    the file's write lock) drain 60 jobs of three banks: each is claimed exactly once."""
    first = open_store()
    banks = [_setup(first, name, ["x"]) for name in ("가", "b", "다")]
    with first.write():
        ids = {first.jobs.enqueue(banks[i % 3], "retain", {"i": i}, run_after=0.0, unique=False) for i in range(60)}
    stores = [first] + [open_store() for _ in range(3)]
    taken: list[list[int]] = [[] for _ in stores]
    errors: list[BaseException] = []

    def drain(k: int) -> None:
        cursor = None
        try:
            while True:
                with stores[k].write():
                    job = stores[k].jobs.claim(f"c{k}-{len(taken[k])}", 100.0, 60.0, after_bank=cursor)
                if job is None:
                    return
                cursor = job.bank_id
                taken[k].append(job.id)
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=drain, args=(k,)) for k in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    every = [i for got in taken for i in got]
    assert sorted(every) == sorted(ids) and len(every) == len(set(every))
    assert first.jobs.counts() == {"running": 60}


def test_one_consolidation_per_bank_at_a_time(open_store: Callable[[], AnyStore]) -> None:
    first, second = open_store(), open_store()
    a = _setup(first, "a", ["x"])
    b = _setup(first, "b", ["y"])
    with first.write():
        a1 = first.jobs.enqueue(a, "consolidate", {"fact_ids": [1]}, run_after=0.0, unique=False)
        a2 = first.jobs.enqueue(a, "consolidate", {"fact_ids": [2]}, run_after=0.0, unique=False)
        b1 = first.jobs.enqueue(b, "consolidate", {}, run_after=0.0, unique=False)
    with first.write():
        assert first.jobs.claim("p1", 10.0, 60.0, bank_id=a).id == a1
    with second.write():  # another process: a's second consolidation waits, b's may run
        assert second.jobs.claim("p2", 10.0, 60.0, kinds=["consolidate"], bank_id=a) is None
        assert second.jobs.claim("p2", 10.0, 60.0, kinds=["consolidate"]).id == b1
    with first.write():
        assert first.jobs.finish(a1, result={}, claimed_by="p1")
    with second.write():
        assert second.jobs.claim("p3", 11.0, 60.0, kinds=["consolidate"]).id == a2
    with second.write():  # its lease ran out: the same job is claimed again, none other
        assert first.jobs.get(a2).status == "running"
        assert second.jobs.claim("p4", 100.0, 60.0, kinds=["consolidate"], bank_id=a).id == a2


def test_one_consolidation_race_loses_quietly(open_store: Callable[[], AnyStore]) -> None:
    """Two claims in flight at once for one bank's two consolidations: the unique index lets one
    win; the other gets nothing (no error, nothing claimed) instead of a second consolidation."""
    first, second = open_store(), open_store()
    a = _setup(first, "a", ["x"])
    with first.write():
        first.jobs.enqueue(a, "consolidate", {}, run_after=0.0, unique=False)
        first.jobs.enqueue(a, "consolidate", {}, run_after=0.0, unique=False)
    if isinstance(first, SQLiteStore):
        pytest.skip("SQLite serialises claims on the file's write lock: two cannot be in flight")
    got: list[Any] = []
    held, release = threading.Event(), threading.Event()

    def claim_and_hold() -> None:
        with first.write():
            got.append(first.jobs.claim("r1", 10.0, 60.0))
            held.set()
            release.wait(10)

    t = threading.Thread(target=claim_and_hold)
    t.start()
    assert held.wait(10)
    racing: list[Any] = []
    r = threading.Thread(target=lambda: racing.append(_claim_once(second, "r2")))
    r.start()
    r.join(0.5)  # it waits on the unique index until the first claim commits
    release.set()
    t.join(10)
    r.join(10)
    assert got[0] is not None and racing == [None]
    assert [j.status for j in first.jobs.all(bank_id=a)].count("running") == 1


def _claim_once(store: AnyStore, token: str) -> Any:
    with store.write():
        return store.jobs.claim(token, 10.0, 60.0)


def test_progress_is_kept_for_the_claim_that_holds_the_job_and_done_jobs_are_pruned(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        job_id = store.jobs.enqueue(bank, "reembed", {"to": "e5"}, run_after=0.0)
        job = store.jobs.claim("w1", 10.0, 60.0)
        assert job is not None and job.id == job_id
        assert store.jobs.set_progress(job_id, "w1", {"done": 100, "단계": "staging"}) is True
        assert store.jobs.set_progress(job_id, "w2", {"done": 0}) is False  # not w2's claim
    got = store.jobs.get(job_id)
    assert got is not None and got.result == {"done": 100, "단계": "staging"}
    with store.write():
        assert store.jobs.finish(job_id, result={"done": 200}, claimed_by="w1") is True
        assert store.jobs.set_progress(job_id, "w1", {"done": 300}) is False  # done: no longer running
        assert store.jobs.prune(0.0) == 0  # finished after that
        assert store.jobs.prune(time.time() + 1) == 1
    assert store.jobs.get(job_id) is None


def test_forget_cancels_the_retains_queued_for_a_source_or_a_user(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    by_source = {"source_id": "chat", "messages": [{"id": "m1", "text": "지우의 비밀"}]}
    by_message = {"source_id": "other", "messages": [{"id": "chat", "text": "named by a message id"}]}
    by_user = {"source_id": "note", "messages": [], "scope": {"user_id": "jiwoo"}}
    with store.write():
        ids = [store.jobs.enqueue(bank, "retain", p, run_after=0.0, unique=False)
               for p in (by_source, by_message, by_user)]
        kept = store.jobs.enqueue(bank, "consolidate", {"source_id": "chat"}, run_after=0.0)
        assert store.jobs.cancel_retains_of(bank, source_id="chat") == [by_source, by_message]
        assert store.jobs.cancel_retains_of(bank, user_id="jiwoo") == [by_user]
        assert store.jobs.cancel_retains_of(bank, user_id="jiwoo") == []  # already cancelled
    cancelled = [store.jobs.get(i) for i in ids]
    assert all(j is not None and j.status == "cancelled" and j.payload["erased"] is True for j in cancelled)
    assert "지우의 비밀" not in repr(cancelled)  # the payloads are blanked
    job = store.jobs.get(kept)
    assert job is not None and job.status == "queued"
