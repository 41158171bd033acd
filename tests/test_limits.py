"""Limits on every field (gieok.limits), checked once at the edge of the library, and stored values
that cannot be read back never failing a bank's reads (issue 32, items 1 and 2)."""

from __future__ import annotations

import inspect
import logging
import time
from typing import Any

import numpy as np
import pytest
from conftest import FakeEmbedder
from pg_server import pg_dsn_factory  # noqa: F401

from gieok import Memory
from gieok.engine._edge import ARGUMENTS, PER_METHOD, UNCHECKED
from gieok.engine.working_memory import Session
from gieok.errors import InputError, InvalidTimeError
from gieok.limits import LIMITS, limit

KOREAN = [{"id": "k1", "speaker": "지민", "text": "저 땅콩 알레르기가 있어요. 5월 17일이 제 생일이에요.",
           "timestamp": "2026-05-04T10:00:00+09:00"}]
ENGLISH = [{"id": "e1", "speaker": "Daniel", "text": "I work at Acme as a nurse and I'm allergic to shellfish.",
            "timestamp": "2026-05-04T10:00:00Z"}]


@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "2201-01-01T00:00:00Z",
                                   "1899-12-31T23:59:59Z", "2026-05-04T10:00:00+15:00", "0000-01-01"])
def test_a_timestamp_past_the_limits_is_refused_and_nothing_is_stored(store_mem: Memory, stamp: str) -> None:
    for messages in (KOREAN, ENGLISH):
        with pytest.raises(InputError, match="timestamp of message #0"):
            store_mem.retain("b", [{**messages[0], "timestamp": stamp}])
    assert "b" not in {b.name for b in store_mem.banks()} or store_mem.sources("b") == []
    store_mem.retain("b", KOREAN + ENGLISH)  # the same messages within the limits are fine
    assert len(store_mem.recall("b", "생일이 언제예요? when is the birthday").memories) >= 1


@pytest.mark.parametrize("argument", ["now", "as_of"])
def test_caller_times_past_the_limits_are_refused(mem: Memory, argument: str) -> None:
    mem.retain("b", ENGLISH)
    with pytest.raises(InvalidTimeError, match="year must be between 1900 and 2200"):
        mem.recall("b", "where does Daniel work?", **{argument: "9999-12-31T23:59:59-14:00"})
    with pytest.raises(InvalidTimeError, match="year"):
        mem.forget("b", before="0001-01-01T00:00:00+14:00")


def _plant(store: Any, sql: str, params: tuple[Any, ...]) -> None:
    """Write straight into the store's tables, as a row written before the checks (or by hand) would be."""
    if type(store).__name__.startswith("Postgres"):
        sql = sql.replace("?", "%s")
    with store.write():
        store._conn().execute(sql, params)


def test_a_stored_time_no_date_can_hold_never_fails_a_read(store_mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    store_mem.retain("b", KOREAN + ENGLISH)
    huge, tiny = 1e300, -1e18  # far past year 9999 either way, as a float column holds them
    _plant(store_mem.store, "UPDATE facts SET occurred_start = ?, occurred_end = ?, mentioned_at = ?, valid_from = ?, "
           "utc_offset = ?", (tiny, huge, huge, float("nan"), 10**6))
    _plant(store_mem.store, "UPDATE profile_slots SET said_at = ?", (huge,))
    with caplog.at_level(logging.WARNING, logger="gieok.engine._time"):
        for query in ("생일이 언제예요?", "Where does Daniel work?"):
            found = store_mem.recall("b", query, explain=True)
            assert found.memories and all(m.mentioned_at is None for m in found.memories)
            assert store_mem.reflect("b", query).answer
        assert store_mem.browse.overview("b") is not None
        assert store_mem.profile("b") is not None
        assert store_mem.lookup("b", "birthday") is None or True  # answered, not raised: its statements are unreadable
        for source in store_mem.sources("b"):
            assert store_mem.browse.source_facts("b", source.id)
        store_mem.run_jobs("b")  # consolidation reads the same rows
    assert any("cannot be read back" in r.getMessage() for r in caplog.records)


def test_a_long_query_is_read_to_its_limit_before_any_work(db_path: str) -> None:
    seen: list[int] = []

    class Recording(FakeEmbedder):
        model_id = "recording"

        def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
            if kind == "query":
                seen.extend(len(t) for t in texts)
            return super().embed_batch(texts, kind)

    from gieok.providers import registry

    embedder = Recording()
    registry.register("embedder", "recording", lambda: embedder, replace=True)
    try:
        with Memory(db_path, embedder="recording") as mem:
            mem.retain("b", KOREAN + ENGLISH)
            for unit in ("알레르기 ", "allergy "):
                query = (unit * 20_000)[: limit("query_chars")]
                started = time.perf_counter()
                assert mem.recall("b", query).memories
                assert time.perf_counter() - started < 10
                assert seen and max(seen) <= limit("query_read_chars") + 20  # the embedder's own prefix at most
                with pytest.raises(InputError, match="at most 20,000"):
                    mem.recall("b", unit * 100_000)
                with pytest.raises(InputError, match="question"):
                    mem.reflect("b", unit * 100_000)
    finally:
        registry.unregister("embedder", "recording")


@pytest.mark.parametrize("call, match", [
    (lambda m: m.retain("b" * 201, KOREAN), "bank is 201 characters"),
    (lambda m: m.retain("b", KOREAN, document_id="d" * 201), "document_id is 201"),
    (lambda m: m.retain("b", [{**ENGLISH[0], "id": "m" * 201}]), "message #0 id is 201"),
    (lambda m: m.retain("b", [{**KOREAN[0], "speaker": "김" * 201}]), "message #0 speaker is 201"),
    (lambda m: m.retain("b", KOREAN, user_id="u" * 201), "user_id"),
    (lambda m: m.retain("b", KOREAN, metadata={"blob": "가" * 30_000}), "metadata is 90,012 bytes"),
    (lambda m: m.retain("b", [{"text": "hi"}] * 10_001), "10,001 messages"),
    (lambda m: m.recall("b", "알레르기", limit=1_001), "limit is at most 1,000"),
    (lambda m: m.recall("b", "allergy", limit=2**64), "64 bits"),
    (lambda m: m.recall("b", "allergy", max_tokens=10**7), "max_tokens is at most"),
    (lambda m: m.profile("b", "지" * 201), "person is 201"),
    (lambda m: m.forget("b", entity="Smythe" * 50), "entity is 300"),
    (lambda m: m.get("b", "f-" + "1" * 300), "memory_id is 302"),
])
def test_every_field_has_a_limit(mem: Memory, call: Any, match: str) -> None:
    mem.retain("b", KOREAN)
    before = [s.id for s in mem.sources("b")]
    with pytest.raises(InputError, match=match):
        call(mem)
    assert [s.id for s in mem.sources("b")] == before  # a refused call stored nothing


def test_every_public_argument_is_checked_or_named_unchecked() -> None:
    """A new argument must be placed: in the edge's table (by its name) or among the unchecked."""
    from gieok._namespaces import TWINS

    for cls in (Memory, Session, *TWINS):
        for name, method in vars(cls).items():
            if name.startswith("_") or not inspect.isfunction(method):
                continue
            for param in inspect.signature(method).parameters:
                assert param in ARGUMENTS or param in UNCHECKED or (name, param) in PER_METHOD, (cls, name, param)


def test_the_limits_table_is_documented() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "configuration.md").read_text(encoding="utf-8")
    for item in LIMITS:
        assert f"`{item.name}`" in page, item.name
