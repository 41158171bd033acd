"""Concurrent writers (issue #13, items 10-11): two processes retaining the same message ids end as
if they had run one after the other — no raw IntegrityError, no duplicate — and a writer that cannot
get the write lock gets a typed StoreBusyError with nothing written. Korean and English."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import Memory, StoreBusyError

CHAT = [{"id": f"r{i}", "speaker": "민지" if i % 2 else "Minji",
         "text": f"{i}번째 메시지: 다음 주에 부산 {i}호점에 가." if i % 2 else
         f"Message {i}: I visit the Austin store {i}.",
         "timestamp": f"2026-05-0{1 + i % 9}T09:00:00+09:00"} for i in range(12)]


def _retain_twice(path: str, start: mp.synchronize.Barrier, errors: mp.Queue) -> None:  # type: ignore[name-defined]
    from conftest import FakeEmbedder

    from gieok.providers import registry

    embedder = FakeEmbedder()
    registry.register("embedder", "fake", lambda: embedder, replace=True)
    try:
        if path.endswith(".db"):
            mem = Memory(path, embedder="fake")
        else:
            from gieok.store.postgres import PostgresStore

            mem = Memory(store=PostgresStore(path), embedder="fake")
        with mem:
            start.wait(30)
            for _ in range(3):
                mem.retain("shared", CHAT, document_id="chat")
    except BaseException as exc:  # reported to the parent, which fails the test with it
        errors.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_two_processes_retaining_the_same_ids_behave_like_one_after_the_other(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest, fake_embedder: object) -> None:
    path = str(tmp_path / "race.db") if backend == "sqlite" else request.getfixturevalue("pg_dsn_factory")()
    ctx = mp.get_context("spawn")
    start, errors = ctx.Barrier(2), ctx.Queue()
    workers = [ctx.Process(target=_retain_twice, args=(path, start, errors)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(180)
    problems = [errors.get() for _ in range(errors.qsize())] if not errors.empty() else []
    assert not problems, problems
    assert all(w.exitcode == 0 for w in workers)
    mem = Memory(path, embedder="fake") if backend == "sqlite" else None
    if mem is None:
        from gieok.store.postgres import PostgresStore

        mem = Memory(store=PostgresStore(path), embedder="fake")
    with mem:
        kept = mem.source("shared", "chat").messages
        assert sorted(m.id for m in kept) == sorted(m["id"] for m in CHAT)  # each once
        assert [(b.name, b.facts) for b in mem.banks()] == [("shared", len(CHAT))]


def test_a_writer_that_cannot_get_the_lock_gets_store_busy(tmp_path: Path, fake_embedder: object,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import gieok.store._connect as connect
    import gieok.store.sqlite as sqlite_store

    monkeypatch.setattr(connect, "BUSY_TIMEOUT_S", 0.3)
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_S", 0.3)
    path = str(tmp_path / "busy.db")
    with Memory(path, embedder="fake") as mem:
        mem.retain("b", text="Tom lives in Austin. 톰은 오스틴에 살아.", document_id="one")
        # the same SQLite library as the store's (two copies in one process do not see each other's locks)
        holder = connect.sqlite_module().connect(path, timeout=0.1, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process's long retain
        try:
            with pytest.raises(StoreBusyError, match="retry"):
                mem.retain("b", text="민지는 판교에서 일해. Minji works in Pangyo.", document_id="two")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert [s.id for s in mem.sources("b")] == ["one"]
        assert mem.retain("b", text="민지는 판교에서 일해. Minji works in Pangyo.", document_id="two").facts_added


def test_a_message_over_the_size_limit_is_refused_up_front(tmp_path: Path, fake_embedder: object) -> None:
    from gieok.errors import InputError

    with Memory(str(tmp_path / "size.db"), embedder="fake", max_retain_chars=1000) as mem:
        with pytest.raises(InputError, match="max_retain_chars"):
            mem.retain("b", [{"speaker": "민지", "text": "가" * 1001}])
        with pytest.raises(InputError, match="split it"):
            mem.retain("b", text="word " * 300)
        assert mem.banks() == []
        assert mem.retain("b", [{"speaker": "Minji", "text": "short and fine, 짧아서 괜찮아"}]).facts_added == 1


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_consolidation_racing_another_makes_one_observation_per_topic(
        mem: Memory, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """While one run renders a topic's text, another run writes the same topic (issue #13, item 12):
    the first starts again from what the other wrote instead of adding a second observation."""
    import gieok.engine.jobs.consolidate as consolidate

    said = {"ko": ["민지는 판교에서 일해.", "민지는 고양이 두부를 키워."],
            "en": ["Minji works in Pangyo.", "Minji has a cat named Dubu."]}[lang]
    mem.retain("b", [{"id": f"c{i}", "speaker": "user", "text": t} for i, t in enumerate(said)])
    render, raced = consolidate._render, []

    def render_while_another_writes(topic: str, facts: object) -> str:
        text = render(topic, facts)  # type: ignore[arg-type]
        if not raced:
            raced.append(topic)
            store, bank = mem.engine.store, mem.engine.find_bank("b")
            assert bank is not None
            with store.write():  # the other worker's observation of the same topic
                store.observations.save(bank.id, None, entity_id=None, topic=topic, text=f"{topic}: (the other run)",
                                        fact_ids=[], history=[], believed_at=None,
                                        embedding=mem.engine.embedder().embed([topic], "document")[0],
                                        terms=(), tokens=3)
        return text

    monkeypatch.setattr(consolidate, "_render", render_while_another_writes)
    mem.run_jobs("b")
    assert raced
    bank = mem.store.banks.get("b")
    assert bank is not None
    topics = [o.topic for o in mem.store.observations.all(bank.id)]
    assert len(topics) == len(set(topics)), topics
    assert any("(the other run)" not in o.text and raced[0] in o.text for o in mem.observations("b"))
