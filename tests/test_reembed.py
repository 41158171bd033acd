"""Moving a bank to another embedder (the ``reembed`` job, issue #15), on SQLite and PostgreSQL.

Two deterministic embedders of different dimensions: the conftest's FakeEmbedder (64-d, "fake") and
a salted one (40-d, "salted"). A bank retained with one and re-embedded into the other must hold
exactly the vectors of a bank retained with the other from the start — facts, replies' context
vectors, document chunks' heading-path vectors and observations — and recall the same way; the old
vectors serve recall until the swap; a job killed midway resumes where it stopped; facts retained
or erased while it runs are embedded or dropped. Texts in Korean and English.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from click.testing import CliRunner
from conftest import FakeEmbedder
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from server_harness import serving, wait_for_operation

from gieok import EmbedderMismatchError, InputError, Memory, ReembedRunningError, UnknownProviderError
from gieok.cli import cli
from gieok.engine.jobs import reembed as reembed_module
from gieok.providers import registry
from gieok.providers.embedders import Embedder
from gieok.server.app import create_app
from gieok.store import SQLiteStore
from gieok.text.terms import keyword_terms

CHAT = [
    {"id": "m1", "speaker": "민지", "text": "나 다음 주에 제주도 여행 가", "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "m2", "speaker": "assistant", "text": "좋겠다! 누구랑 가?", "timestamp": "2026-05-04T09:00:20+09:00"},
    {"id": "m3", "speaker": "민지", "text": "언니랑 둘이 가. 한라산도 오를 거야",
     "timestamp": "2026-05-04T09:01:00+09:00"},
    {"id": "m4", "speaker": "Caroline", "text": "I started pottery classes on Tuesdays",
     "timestamp": "2026-05-05T18:00:00+00:00"},
    {"id": "m5", "speaker": "assistant", "text": "Nice, twice a week?", "timestamp": "2026-05-05T18:00:30+00:00"},
    {"id": "m6", "speaker": "Caroline", "text": "Yes, twice!", "timestamp": "2026-05-05T18:01:00+00:00"},
]
HANDBOOK = """# 환불 정책

환불은 구매 후 14일 안에 요청할 수 있습니다. 영수증과 주문번호가 필요합니다. 포장을 뜯은 상품도 불량이면 환불됩니다.

Refunds go back to the original card within five business days. Store credit is offered when the card has expired.

예외 상품은 디지털 상품과 맞춤 제작 상품입니다. 이 상품들은 교환만 가능합니다.

# Shipping

Orders ship from Busan every weekday. 제주도 배송은 이틀이 더 걸립니다.
"""


class SaltedEmbedder(Embedder):
    """Another deterministic embedder: keyword terms hashed with a salt into 40 dimensions. Counts
    the texts it embeds; ``fail_after`` raises (``failure``) once that many batches were embedded."""

    model_id = "salted"
    dim = 40

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0
        self.batches = 0
        self.fail_after: int | None = None
        self.failure: BaseException = RuntimeError("embedder down")
        self.on_batch: Callable[[int], None] | None = None

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        if self.fail_after is not None and self.batches >= self.fail_after:
            raise self.failure
        self.batches += 1
        self.texts += len(texts)
        if self.on_batch is not None:
            self.on_batch(self.batches)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in keyword_terms(text) or (text,):
                h = int.from_bytes(hashlib.sha256(b"salt:" + term.encode()).digest()[:4], "little")
                out[i, h % (self.dim - 1)] += 1.0 + (h % 7) / 10
            out[i, -1] = 0.05
        return out


class Killed(BaseException):
    """A worker process dying: not an error the job records, it simply stops."""


@pytest.fixture
def salted() -> Iterator[SaltedEmbedder]:
    embedder = SaltedEmbedder()
    registry.register("embedder", "salted", lambda: embedder, replace=True)
    yield embedder
    registry.unregister("embedder", "salted")


@pytest.fixture
def target(open_store: Callable[[], Any]) -> Callable[[], Any]:  # noqa: F811
    """Opens a store on this test's own database, SQLite then PostgreSQL (every call: the same one)."""
    return open_store


def _memory(opener: Callable[[], Any], embedder: str, **settings: Any) -> Memory:
    return Memory(store=opener(), embedder=embedder, chunk_chars=160, **settings)


def _fill(mem: Memory, bank: str) -> None:
    mem.retain(bank, messages=CHAT, document_id="chat")
    mem.ingest(bank, HANDBOOK.encode(), document_id="handbook.md")
    mem.run_jobs(bank=bank)  # consolidation: observations


def _vectors(mem: Memory, bank: str) -> dict[str, Any]:
    """Everything vector the bank holds, keyed by what does not depend on row ids: fact texts (with
    their message ids) and observation texts."""
    store = mem.store
    row = store.banks.get(bank)
    ids = list(store.facts.ids(row.id))
    facts = {f.id: (f.text, tuple(f.message_ids)) for f in store.facts.get(row.id, ids)}
    own = store.search.vectors_of(row.dim, ids)
    context = store.search.vectors_of(row.dim, ids, "context")
    observation_ids, observation_vectors = store.observations.vectors(row.id)
    texts = {o.id: o.text for o in store.observations.get(row.id, observation_ids)}
    return {"dim": row.dim, "embedder": row.embedder,
            "facts": {facts[i]: own[i].tolist() for i in ids},
            "context": {facts[i]: context[i].tolist() for i in context},
            "observations": {texts[i]: v.tolist() for i, v in zip(observation_ids, observation_vectors
                                                                    if observation_vectors is not None else [])}}


def _staged(store: Any, bank_id: int) -> set[int]:
    # below the protocol on purpose: which facts have a staged row
    return {int(r[0]) for r in store._conn().execute("SELECT fact_id FROM reembed_facts WHERE bank_id = ?"
                                                     if isinstance(store, SQLiteStore) else
                                                     "SELECT fact_id FROM reembed_facts WHERE bank_id = %s",
                                                     (bank_id,))}


QUERIES = ["제주도 누구랑 가?", "how often pottery", "환불 기간", "Refunds to the card", "예외 상품 교환", "배송"]


def test_a_reembedded_bank_holds_what_a_bank_retained_with_the_new_embedder_holds(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder) -> None:
    old = _memory(target, "fake")
    _fill(old, "moved")
    before = _vectors(old, "moved")
    assert before["dim"] == 64 and before["context"] and before["observations"]
    # a reply's context vector and a document chunk's heading-path vector are both there
    assert any(ids for _, ids in before["context"]) and any(not ids for _, ids in before["context"])

    op = old.reembed("moved", "salted", wait=True)
    assert (op.kind, op.status) == ("reembed", "done")
    assert op.report is not None and op.report["texts_changed"] == 0
    assert op.report["facts"] == len(before["facts"]) and op.report["embedder"] == "salted"
    assert op.report["context_vectors"] == len(before["context"])

    new = _memory(target, "salted")
    _fill(new, "fresh")
    moved, fresh = _vectors(new, "moved"), _vectors(new, "fresh")
    assert moved["dim"] == 40 and moved["embedder"] == "salted"
    assert set(moved["facts"]) == set(before["facts"]) and set(moved["context"]) == set(before["context"])
    assert moved == fresh  # every vector: as if retained with the new embedder from the start
    for query in QUERIES:  # and recall ranks the same way on the semantic channel
        ranked = [[m.text for m in new.recall(bank, query, limit=8, explain=True).memories
                   if m.channels.get("semantic")] for bank in ("moved", "fresh")]
        assert ranked[0] == ranked[1] and ranked[0], query
        # and, here, in full (every channel, with scores): the semantic links retain judged with the old
        # embedder happen to be the new one's too on these texts; in general they stay as judged
        full = [[(m.text, round(m.score, 6)) for m in new.recall(bank, query, limit=10).memories]
                for bank in ("moved", "fresh")]
        assert full[0] == full[1], query


def test_the_old_embedder_serves_recall_until_the_swap_and_is_refused_after(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory(target, "fake")
    _fill(mem, "a")
    expected = {q: [m.id for m in mem.recall("a", q).memories] for q in QUERIES}
    monkeypatch.setattr(reembed_module, "BATCH", 3)
    seen: list[list[str]] = []
    # while the job stages the new vectors, recall with the old embedder answers as before
    salted.on_batch = lambda n: seen.append([m.id for m in mem.recall("a", QUERIES[0]).memories]) if n == 2 else None
    op = mem.reembed("a", "salted", wait=True)
    assert op.status == "done" and seen == [expected[QUERIES[0]]]
    with pytest.raises(EmbedderMismatchError, match="salted"):
        mem.recall("a", "제주도")
    with pytest.raises(EmbedderMismatchError, match="reembed"):  # the message says how to move it back
        _memory(target, "fake").recall("a", "x")
    new = _memory(target, "salted")
    assert [m.text for m in new.recall("a", "제주도 여행").memories]
    assert mem.store.reembed.target(mem.store.banks.get("a").id) is None  # staging cleared


def test_a_job_killed_midway_resumes_where_it_stopped(target: Callable[[], Any], fake_embedder: FakeEmbedder,
                                                       salted: SaltedEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory(target, "fake")
    _fill(mem, "a")
    bank = mem.store.banks.get("a")
    facts = mem.store.facts.count(bank.id)
    monkeypatch.setattr(reembed_module, "BATCH", 4)
    salted.fail_after, salted.failure = 2, Killed()  # the worker dies while embedding the third batch
    op = mem.reembed("a", "salted")
    with pytest.raises(Killed):
        mem.run_jobs(bank="a")
    staged = _staged(mem.store, bank.id)
    assert len(staged) == 8 and mem.operation(op.id).status == "running"  # two batches committed
    assert mem.store.banks.get("a").embedder == "fake"  # nothing swapped
    embedded_before = salted.texts
    salted.fail_after = None
    # its lease runs out; the next worker takes the job over and starts at the first unstaged fact
    reports = mem.run_jobs(bank="a", now=datetime.now(timezone.utc) + timedelta(hours=1))
    assert [(r.kind, r.status) for r in reports] == [("reembed", "done")]
    done = mem.operation(op.id)
    assert done.report is not None and done.report["resumed_from"] == 8 and done.report["facts"] == facts
    contexts = done.report["context_vectors"]
    observations = done.report["observations"]
    # what the second run embedded: the facts not staged, their context vectors, the observations
    # (the staged facts' own vectors were not embedded again; their contexts may have been, at most 8)
    again = salted.texts - embedded_before
    assert facts - 8 + observations <= again <= facts - 8 + contexts + observations
    fresh = _memory(target, "salted")
    _fill(fresh, "b")
    assert _vectors(fresh, "a") == _vectors(fresh, "b")


def test_facts_retained_or_erased_while_it_runs(target: Callable[[], Any], fake_embedder: FakeEmbedder,
                                               salted: SaltedEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory(target, "fake")
    _fill(mem, "a")
    bank = mem.store.banks.get("a")
    monkeypatch.setattr(reembed_module, "BATCH", 3)
    erased_id = min(mem.store.facts.ids(bank.id))
    happened: dict[str, Any] = {}

    def meanwhile(batch: int) -> None:
        if batch != 2:
            return
        assert erased_id in _staged(mem.store, bank.id)  # staged by the first batch
        mem.retain("a", messages=[{"id": "m9", "speaker": "민지", "text": "제주도에서 흑돼지 먹었어",
                                   "timestamp": "2026-05-12T20:00:00+09:00"},
                                  {"id": "m10", "speaker": "assistant", "text": "맛있었겠다!"}], document_id="chat")
        mem.forget("a", memory_id=f"f-{erased_id}")
        happened["staged after erase"] = _staged(mem.store, bank.id)

    salted.on_batch = meanwhile
    op = mem.reembed("a", "salted", wait=True)
    assert op.status == "done"
    # the erased fact's staged vector went with it, at once (nothing derived outlives an erase)
    assert erased_id not in happened["staged after erase"]
    new = _memory(target, "salted")
    moved = _vectors(new, "a")
    texts = {text for text, _ in moved["facts"]}
    assert "제주도에서 흑돼지 먹었어" in texts and ("맛있었겠다!", ("m10",)) in moved["context"]
    assert erased_id not in set(new.store.facts.ids(bank.id))
    assert new.store.search.vectors_of(40, [erased_id]) == {} and new.store.search.vectors_of(64, [erased_id]) == {}
    # the new facts' vectors are the new embedder's, with the same texts retain gives them
    fresh = _memory(target, "salted")
    fresh.retain("b", messages=[{"id": "m6", "speaker": "Caroline", "text": "Yes, twice!"},
                                {"id": "m9", "speaker": "민지", "text": "제주도에서 흑돼지 먹었어",
                                 "timestamp": "2026-05-12T20:00:00+09:00"},
                                {"id": "m10", "speaker": "assistant", "text": "맛있었겠다!"}], document_id="chat")
    expected = _vectors(fresh, "b")
    reply, said = ("맛있었겠다!", ("m10",)), ("제주도에서 흑돼지 먹었어", ("m9",))
    assert moved["context"][reply] == expected["context"][reply] and moved["facts"][said] == expected["facts"][said]
    assert not _staged(new.store, bank.id)


def test_what_is_refused_at_once(target: Callable[[], Any], fake_embedder: FakeEmbedder,
                                 salted: SaltedEmbedder) -> None:
    mem = _memory(target, "fake")
    mem.retain("a", messages=CHAT[:2])
    with pytest.raises(UnknownProviderError, match="salted"):  # the message lists what is registered
        mem.reembed("a", "no-such-embedder")
    with pytest.raises(InputError, match="already"):
        mem.reembed("a", "fake")
    assert all(j.kind != "reembed" for j in mem.jobs("a"))  # nothing was queued
    op = mem.reembed("a", "salted")
    assert mem.reembed("a", "salted").id == op.id  # the same move asked again: the same operation
    registry.register("embedder", "third", type("Third", (FakeEmbedder,), {"model_id": "third"}), replace=True)
    try:
        with pytest.raises(ReembedRunningError, match=op.id):
            mem.reembed("a", "third")
        mem.jobs.cancel(op.id)
        other = mem.reembed("a", "third")
        assert other.id != op.id
        with pytest.raises(ReembedRunningError):
            mem.jobs.retry(op.id)
    finally:
        registry.unregister("embedder", "third")


# -- the adapters: CLI and HTTP call Memory.reembed -------------------------------------------------
def test_cli_reembed_waits_with_its_result_and_the_bank_then_opens_with_the_new_embedder(
        db_path: str, fake_embedder: FakeEmbedder, salted: SaltedEmbedder, tmp_path: Path) -> None:
    runner = CliRunner()

    def run(*args: str, embedder: str = "fake", code: int = 0) -> Any:
        result = runner.invoke(cli, ["--db", db_path, "--embedder", embedder, *args])
        assert result.exit_code == code, result.output + str(result.exception)
        return result

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT, ensure_ascii=False), encoding="utf-8")
    run("retain", "minji", str(chat))
    queued = json.loads(run("reembed", "minji", "--embedder", "salted", "--json").output)
    assert (queued["kind"], queued["status"]) == ("reembed", "queued")
    run("recall", "minji", "제주도")  # still the old embedder's bank
    done = json.loads(run("reembed", "minji", "--embedder", "salted", "--wait", "--json").output)
    assert done["id"] == queued["id"] and done["status"] == "done" and done["report"]["dim"] == 40
    assert "re-embed" in run("recall", "minji", "제주도", code=2).output  # the error says how to move it
    assert "제주도" in run("recall", "minji", "제주도 여행", embedder="salted").output
    assert "already" in run("reembed", "minji", "--embedder", "salted", embedder="salted", code=2).output
    assert "unknown embedder" in run("reembed", "minji", "--embedder", "nope", embedder="salted", code=2).output


def test_http_reembed_is_accepted_and_run_by_the_worker(mem: Memory, salted: SaltedEmbedder) -> None:
    mem.retain("alice", messages=CHAT)
    with serving(create_app(mem, mcp=False, poll_seconds=0.05)) as url, httpx.Client(base_url=url, timeout=60) as http:
        refused = http.post("/v1/banks/alice/reembed", json={"embedder": "nope"})
        assert refused.status_code == 422 and "registered embedders" in refused.json()["detail"]
        assert http.post("/v1/banks/nobody/reembed", json={"embedder": "salted"}).status_code == 404
        accepted = http.post("/v1/banks/alice/reembed", json={"embedder": "salted"})
        assert accepted.status_code == 202
        op_id = accepted.json()["operation_id"]
        assert accepted.headers["location"] == f"/v1/operations/{op_id}"
        op = wait_for_operation(http, op_id)
        assert op["status"] == "done" and op["kind"] == "reembed" and op["report"]["embedder"] == "salted", op
        # this server runs the old embedder: the moved bank is refused, as the library refuses it
        mismatch = http.post("/v1/banks/alice/recall", json={"query": "제주도"})
        assert mismatch.status_code == 409 and "salted" in mismatch.json()["detail"]


def test_a_retain_planned_before_the_swap_and_written_after_it_is_refused(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Retain embeds outside the write lock; a swap in between must not let old-space vectors in."""
    mem = _memory(target, "fake")
    mem.retain("a", messages=CHAT[:3], document_id="chat")
    facts = mem.store.facts.count(mem.store.banks.get("a").id)
    plain = fake_embedder.embed_batch

    def embed_then_swap(texts: list[str], kind: str) -> np.ndarray:
        out = plain(texts, kind)
        if kind == "document" and any("Jersey" in t for t in texts):
            assert mem.reembed("a", "salted", wait=True).status == "done"  # while the retain plans
        return out

    monkeypatch.setattr(fake_embedder, "embed_batch", embed_then_swap)
    with pytest.raises(EmbedderMismatchError):
        mem.retain("a", messages=[{"id": "m7", "speaker": "민지", "text": "We moved to Jersey City last week"}],
                   document_id="chat")
    new = _memory(target, "salted")
    assert new.store.facts.count(new.store.banks.get("a").id) == facts  # nothing of the retain was written
    assert "Jersey" not in " ".join(m.text for m in new.recall("a", "Jersey City").memories)


def test_an_observation_written_across_the_swap_is_embedded_by_the_new_embedder(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Consolidation embeds an observation outside the write lock; a swap in between makes it embed
    the text again with the bank's new embedder, so no old-space vector enters the moved bank."""
    mem = _memory(target, "fake")
    mem.retain("a", messages=CHAT, document_id="chat")
    plain = fake_embedder.embed_batch
    swapped: list[str] = []

    def embed_then_swap(texts: list[str], kind: str) -> np.ndarray:
        out = plain(texts, kind)
        if not swapped:  # the first observation's text: the reembed runs to its end meanwhile
            swapped.append(mem.reembed("a", "salted", wait=True).status)
        return out

    monkeypatch.setattr(fake_embedder, "embed_batch", embed_then_swap)
    reports = mem.run_jobs(bank="a")
    assert swapped == ["done"] and {r.kind: r.status for r in reports}["consolidate"] == "done"
    new = _memory(target, "salted")
    ids, vectors = new.store.observations.vectors(new.store.banks.get("a").id)
    assert ids and vectors is not None and vectors.shape[1] == 40
    text = {o.id: o.text for o in new.store.observations.get(new.store.banks.get("a").id, ids)}
    assert np.array_equal(vectors, SaltedEmbedder().embed([text[i] for i in ids], "document"))


def test_a_fact_retained_after_the_last_batch_is_embedded_under_the_lock_before_the_swap(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory(target, "fake")
    _fill(mem, "a")
    plain = reembed_module._observation_vectors
    late = {"id": "m8", "speaker": "Caroline", "text": "My kiln broke, so no pottery this week",
            "timestamp": "2026-05-06T18:00:00+00:00"}

    def retain_first(ctx: Any, target_: Embedder, report: dict[str, Any]) -> Any:
        if not report.get("late"):  # every fact is staged by now; the lock is not held yet
            report["late"] = True
            mem.retain("a", messages=[late], document_id="chat")
        return plain(ctx, target_, report)

    monkeypatch.setattr(reembed_module, "_observation_vectors", retain_first)
    op = mem.reembed("a", "salted", wait=True)
    assert op.status == "done" and op.report is not None and op.report["under_lock"] == 1
    new = _memory(target, "salted")
    fresh = SaltedEmbedder().embed([f"Caroline: {late['text']}"], "document")[0]
    moved = _vectors(new, "a")["facts"]
    assert moved[(late["text"], ("m8",))] == fresh.tolist()


def test_a_failing_embedder_leaves_the_bank_as_it_was_and_a_retry_finishes_the_move(
        target: Callable[[], Any], fake_embedder: FakeEmbedder, salted: SaltedEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory(target, "fake")
    _fill(mem, "a")
    expected = [m.id for m in mem.recall("a", "한라산 pottery").memories]
    monkeypatch.setattr(reembed_module, "BATCH", 5)
    salted.fail_after = 1  # the second batch fails: the job is queued again after its backoff
    op = mem.reembed("a", "salted", wait=True)
    assert op.status == "queued" and op.error is not None and "embedder down" in op.error
    assert [m.id for m in mem.recall("a", "한라산 pottery").memories] == expected  # still the old bank
    assert len(_staged(mem.store, mem.store.banks.get("a").id)) == 5
    assert mem.reembed("a", "salted").id == op.id  # the same move asked again: its operation, waiting
    salted.fail_after = None
    mem.run_jobs(bank="a", now=datetime.now(timezone.utc) + timedelta(hours=1))  # after its backoff
    done = mem.operation(op.id)
    assert done.status == "done" and done.report is not None and done.report["resumed_from"] == 5


class Reversed(FakeEmbedder):
    """Another embedder of the same dimension (64): the fake's vectors, backwards."""

    model_id = "reversed"

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        return super().embed_batch(texts, kind)[:, ::-1].copy()


def test_a_move_to_an_embedder_of_the_same_dimension_and_of_an_empty_bank(
        target: Callable[[], Any], fake_embedder: FakeEmbedder) -> None:
    registry.register("embedder", "reversed", Reversed, replace=True)
    try:
        mem = _memory(target, "fake")
        mem.banks.create("empty")
        assert mem.reembed("empty", "reversed", wait=True).status == "done"
        mem.retain("a", messages=CHAT, document_id="chat")
        before = _vectors(mem, "a")
        op = mem.reembed("a", "reversed", wait=True)
        assert op.report is not None and op.report["dim"] == 64 and op.report["facts"] == len(before["facts"])
        moved = _vectors(_memory(target, "reversed"), "a")
        assert moved["embedder"] == "reversed" and set(moved["facts"]) == set(before["facts"])
        assert all(moved["facts"][k] == before["facts"][k][::-1] for k in before["facts"])  # the same slots, rewritten
        assert all(moved["context"][k] == before["context"][k][::-1] for k in before["context"])
        assert _vectors(_memory(target, "reversed"), "empty")["facts"] == {}
    finally:
        registry.unregister("embedder", "reversed")
