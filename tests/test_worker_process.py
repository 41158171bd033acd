"""`gieok worker` as a real process: it runs queued retains, and at SIGTERM it lets a running job
finish (within --grace) or gives it back to the queue, then exits 0; a worker killed in the middle of a
reembed leaves its committed batches, and the next worker resumes there. Korean and English."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gieok import Memory

CHILD = Path(__file__).resolve().parent / "worker_child.py"
ROOT = CHILD.parent.parent
CHAT = [
    {"id": "p1", "speaker": "민지", "text": "나 다음 주에 제주도 출장 가.", "timestamp": "2026-03-02T10:00:00+09:00"},
    {"id": "p2", "speaker": "Minji", "text": "My manager Sora lives in Pangyo.",
     "timestamp": "2026-03-02T10:01:00+09:00"},
]


def _worker(db_path: str, *args: str, sleep: float, batch: int = 256) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIEOK_")}
    env.update(PYTHONPATH=str(ROOT), GIEOK_THREADS="1", WORKER_CHILD_EMBED_SLEEP=str(sleep),
               WORKER_CHILD_REEMBED_BATCH=str(batch))
    return subprocess.Popen([sys.executable, str(CHILD), "--db", db_path, "--embedder", "fake", "worker",
                             "--poll", "0.05", "--log-level", "warning", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait(check: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def _status(db_path: str, op_id: str) -> tuple[str, int]:
    with Memory(db_path, embedder="fake") as mem:
        op = mem.operation(op_id)
        return op.status, op.attempts


def test_sigterm_lets_the_running_job_finish(db_path: str, fake_embedder: object) -> None:
    with Memory(db_path, embedder="fake") as mem:
        op = mem.submit_retain("민지", messages=CHAT, document_id="chat-1").id
    child = _worker(db_path, "--grace", "60", sleep=1.0)
    try:
        _wait(lambda: _status(db_path, op)[0] == "running")
        child.send_signal(signal.SIGTERM)
        _out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 0, err
    assert "gieok worker stopped" in err and "released" not in err
    assert _status(db_path, op) == ("done", 1)
    with Memory(db_path, embedder="fake") as mem:
        assert "제주도" in mem.recall("민지", "제주도 출장 언제야?").memories[0].text


def test_sigterm_gives_back_a_job_that_does_not_finish_in_the_grace(db_path: str, fake_embedder: object) -> None:
    with Memory(db_path, embedder="fake") as mem:
        op = mem.submit_retain("민지", messages=CHAT, document_id="chat-1").id
    child = _worker(db_path, "--grace", "0.3", sleep=30.0)
    try:
        _wait(lambda: _status(db_path, op)[0] == "running")
        started = time.monotonic()
        child.send_signal(signal.SIGTERM)
        _out, err = child.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        child.kill()
    assert child.returncode == 0, err
    assert f"released {op}" in err and took < 15
    assert _status(db_path, op) == ("queued", 0)  # queued again at once, the attempt not counted
    with Memory(db_path, embedder="fake") as mem:
        assert mem.sources("민지") == []
        mem.run_jobs(bank="민지")
        assert mem.operation(op).status == "done"  # the next worker runs it in full


def test_a_reembed_whose_worker_is_killed_resumes_in_the_next_worker(db_path: str, fake_embedder: object) -> None:
    from datetime import datetime, timedelta, timezone

    from conftest import FakeEmbedder

    from gieok.providers import registry

    source = type("Source", (FakeEmbedder,), {"model_id": "fake-source", "dim": 32})
    registry.register("embedder", "fake-source", source, replace=True)
    try:
        lines = [("민지", "나 다음 주에 제주도 출장 가"), ("Minji", "My manager Sora lives in Pangyo"),
                 ("소라", "판교 사무실은 9시에 열어요"), ("Sora", "Bring your badge on Monday")]
        chat = [{"id": f"k{i}", "speaker": lines[i % 4][0], "text": f"{lines[i % 4][1]} ({i})",
                 "timestamp": f"2026-03-02T10:{i:02d}:00+09:00"} for i in range(24)]
        with Memory(db_path, embedder="fake-source") as mem:
            mem.retain("민지", messages=chat, document_id="chat")
            bank = mem.store.banks.get("민지").id
            facts = mem.store.facts.count(bank)
            op = mem.reembed("민지", "fake").id  # the worker's fake embedder: each batch takes 0.2 s

            def staged() -> int:
                return mem.store.reembed.count_staged(bank)

            child = _worker(db_path, sleep=0.2, batch=4)
            try:
                _wait(lambda: staged() >= 8)
                child.send_signal(signal.SIGKILL)  # no grace, no goodbye: mid-job
                child.communicate(timeout=30)
            finally:
                child.kill()
            kept = staged()
            assert 8 <= kept < facts and kept % 4 == 0  # whole batches, each committed
            assert mem.operation(op).status == "running" and mem.store.banks.get("민지").embedder == "fake-source"
            # its lease runs out; this process is the next worker
            mem.run_jobs(bank="민지", now=datetime.now(timezone.utc) + timedelta(hours=1))
            done = mem.operation(op)
            assert done.status == "done" and done.report is not None and done.report["resumed_from"] == kept
        with Memory(db_path, embedder="fake") as mem:
            mem.retain("fresh", messages=chat, document_id="chat")
            ids = {name: sorted(mem.store.facts.ids(mem.store.banks.get(name).id)) for name in ("민지", "fresh")}
            moved, fresh = (mem.store.search.vectors_of(64, ids[name]) for name in ("민지", "fresh"))
            assert [moved[i].tolist() for i in ids["민지"]] == [fresh[i].tolist() for i in ids["fresh"]]
            assert "제주도" in mem.recall("민지", "제주도 출장").memories[0].text
    finally:
        registry.unregister("embedder", "fake-source")
