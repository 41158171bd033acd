"""One retain is one unit: an error or a killed process at any step of its write leaves all of the
call or none of it — no source without its facts, no facts without their audit row or their
consolidation job, no new bank left half made. Korean and English messages."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gieok import Memory
from gieok.engine.retain import run as retain_module
from gieok.store._connect import open_connection
from gieok.store.sqlite import SQLiteStore

CHAT = [
    {"id": "a1", "speaker": "alice", "text": "내 전화번호는 010-1234-5678이야, 저장해 둬",
     "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "a2", "speaker": "alice", "text": "I moved to Busan with my sister Hana last spring.",
     "timestamp": "2026-05-04T09:01:00+09:00"},
    {"id": "a3", "speaker": "alice", "text": "민지랑 다음 주 금요일에 한라산 가기로 했어",
     "timestamp": "2026-05-04T09:02:00+09:00"},
]
EARLIER = [{"id": "e1", "speaker": "alice", "text": "나 땅콩 알레르기 있어", "timestamp": "2026-05-01T09:00:00+09:00"},
           {"id": "e2", "speaker": "alice", "text": "I work at Kakao in Pangyo.",
            "timestamp": "2026-05-01T09:05:00+09:00"}]

# the steps of retain's write, in order; each is made to fail in turn
STEPS: list[tuple[str, str]] = [
    ("store", "banks.create"), ("store", "sources.upsert"), ("store", "sources.add_message"), ("store", "facts.add"),
    ("store", "graph.save_entity"), ("store", "graph.add_links"), ("engine", "supersede_new_facts"),
    ("store", "audit.add"), ("store", "jobs.enqueue"),
]


def _counts(path: str) -> dict[str, int]:
    """Rows of every table of the file (FTS and vector shadow tables included)."""
    conn = open_connection(path)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        out = {}
        for name in names:
            try:
                out[name] = conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
            except Exception:  # a virtual table whose module this connection lacks
                continue
        return out
    finally:
        conn.close()


class _Crash(RuntimeError):
    pass


def _owner(mem: Memory, where: str, name: str) -> tuple[Any, str]:
    """The object a step is an attribute of, and its name: a store step names the store's area and
    the area's method ("facts.add")."""
    if where != "store":
        return retain_module, name
    area, method = name.split(".")
    return getattr(mem.store, area), method


def _fail_at(monkeypatch: pytest.MonkeyPatch, mem: Memory, where: str, name: str) -> None:
    def crash(*args: Any, **kwargs: Any) -> Any:
        raise _Crash(f"crash in {name}")

    monkeypatch.setattr(*_owner(mem, where, name), crash)


@pytest.mark.parametrize(("where", "name"), STEPS)
def test_an_error_at_any_step_of_a_first_retain_leaves_nothing(db_path: str, fake_embedder: object,
                                                               monkeypatch: pytest.MonkeyPatch, where: str,
                                                               name: str) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("bob", messages=EARLIER)  # another bank, so the calibration and entities exist
        before = _counts(db_path)
        _fail_at(monkeypatch, mem, where, name)
        with pytest.raises(_Crash):
            mem.retain("alice", messages=CHAT, document_id="chat")
        monkeypatch.undo()
        assert _counts(db_path) == before
        assert [b.name for b in mem.banks()] == ["bob"]
        # the same call afterwards works and writes every part
        result = mem.retain("alice", messages=CHAT, document_id="chat")
        assert result.facts_added == 3 and result.redactions == 1
        assert [e.operation for e in mem.audit_log("alice")] == ["retain"]
        assert [j.kind for j in mem.jobs("alice")] == ["consolidate"]


@pytest.mark.parametrize(("where", "name"), [s for s in STEPS if s[1] != "banks.create"])
def test_an_error_at_any_step_leaves_an_existing_bank_as_it_was(db_path: str, fake_embedder: object,
                                                                monkeypatch: pytest.MonkeyPatch, where: str,
                                                                name: str) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("alice", messages=EARLIER, document_id="chat")
        mem.run_jobs()
        before = _counts(db_path)
        _fail_at(monkeypatch, mem, where, name)
        with pytest.raises(_Crash):
            mem.retain("alice", messages=CHAT, document_id="chat")
        monkeypatch.undo()
        assert _counts(db_path) == before
        assert [m.id for m in mem.source("alice", "chat").messages] == ["e1", "e2"]


def test_a_document_retain_is_one_unit_too(db_path: str, fake_embedder: object,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    text = "환불은 구매 후 7일 이내에 가능합니다.\n\nRefunds after seven days need a manager's approval."
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("docs", text=text, document_id="policy")
        before = _counts(db_path)
        _fail_at(monkeypatch, mem, "store", "jobs.enqueue")
        with pytest.raises(_Crash):  # a new version of the document: its changed chunk fails to land
            mem.retain("docs", text=text.replace("7일", "14일"), document_id="policy")
        monkeypatch.undo()
        assert _counts(db_path) == before
        assert "7일" in (mem.source("docs", "policy").text or "")


_KILLER = textwrap.dedent('''
    import os, sys
    sys.path[:0] = [{tests!r}]
    from conftest import FakeEmbedder
    from gieok import Memory
    from gieok.engine.retain import run as retain_module
    from gieok.providers import registry

    registry.register("embedder", "fake", FakeEmbedder, replace=True)
    where, name = sys.argv[1], sys.argv[2]
    with Memory({path!r}, embedder="fake") as mem:
        def die(*args, **kwargs):
            os._exit(9)  # no rollback, no close: what kill -9 leaves
        if where == "store":  # the store's area and its method: "facts.add"
            area, method = name.split(".")
            setattr(getattr(mem.store, area), method, die)
        else:
            setattr(retain_module, name, die)
        mem.retain("alice", messages={chat!r}, document_id="chat")
''')


# a fresh interpreter costs seconds: the first and the last step of the write stand for the rest
@pytest.mark.parametrize(("where", "name"), [("store", "facts.add"), ("store", "jobs.enqueue")])
def test_a_process_killed_inside_retain_leaves_no_half_retain(db_path: str, fake_embedder: object, where: str,
                                                              name: str) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("bob", messages=EARLIER)
    before = _counts(db_path)
    script = _KILLER.format(tests=str(Path(__file__).parent), path=db_path, chat=CHAT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIEOK_")}
    done = subprocess.run([sys.executable, "-c", script, where, name], env=env, capture_output=True, timeout=120)
    assert done.returncode == 9, done.stderr.decode()
    store = SQLiteStore(db_path)  # opening recovers the WAL: the unfinished transaction is gone
    store.close()
    assert _counts(db_path) == before


def _steps_run(monkeypatch: pytest.MonkeyPatch, mem: Memory) -> list[str]:
    seen: list[str] = []
    for where, name in STEPS:
        owner, attribute = _owner(mem, where, name)
        original: Callable[..., Any] = getattr(owner, attribute)

        def spy(*args: Any, _name: str = name, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            seen.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(owner, attribute, spy)
    return seen


def test_every_failure_step_is_really_part_of_a_retain(db_path: str, fake_embedder: object,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The steps the tests above break are the ones a retain runs (else they would prove nothing)."""
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("bob", messages=EARLIER)
        seen = _steps_run(monkeypatch, mem)
        mem.retain("alice", messages=CHAT, document_id="chat")
        assert set(seen) == {name for _, name in STEPS}
