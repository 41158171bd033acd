"""Moving a bank to another embedder: the ``reembed`` job (issue #15).

A bank records the embedder and dimension of its vectors, and a memory opened with another embedder
refuses it (EmbedderMismatchError) rather than mix two vector spaces. :func:`submit` queues the
move; the job (:func:`run_reembed`, run by any worker) re-embeds every vector the bank owns — each
fact's own vector, a reply's second vector with the message it answers (or a document chunk's
heading path), and every observation's — with the texts retain embeds (the helpers of
:mod:`gieok.engine.retain.plan`), so a re-embedded bank holds exactly the vectors a bank retained
afresh with the new embedder would. Which facts have a context vector is read from the bank (a
reply retain gave one, and that still has it); its context is rebuilt from what is stored: the
message stored before it in its conversation, or its chunk's text and location.

Old vectors are kept until the end: recall goes on with the old embedder and vectors while the new
ones are staged (:mod:`gieok.store._reembed`) in batches of :data:`BATCH` facts, each committed on
its own, so a job killed midway resumes where it stopped. Facts retained meanwhile are picked up
as the job goes; facts erased meanwhile take their staged vectors with them. At the end, under the
store's write lock, what is still missing is embedded (facts and observations written since), and
in the same transaction the staged vectors replace the old ones, the bank's embedder and dimension
are set, its vector index is reset (SQLite: a bank past ``ann_min_vectors`` is trained again) and
the job is marked done. From then on the bank opens with the new embedder only.

One reembed per bank at a time: a second request for the same embedder gets the queued or running
operation back, one for another embedder ReembedRunningError. The semantic links and supersede
verdicts retain judged with the old embedder stay as they were (they are part of the graph, not
vectors).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from gieok.engine.context import Engine, JobContext, check_bank_name
from gieok.engine.retain.plan import embed_text, reply_context, section_context
from gieok.engine.retain.run import index_when_due
from gieok.errors import BankNotFoundError, ClaimLostError, InputError, ReembedRunningError
from gieok.providers.embedders import Embedder
from gieok.store.protocol import BankRow, Store

__all__ = ["BATCH", "active_reembed", "run_reembed", "submit"]

BATCH = 256  # facts embedded and staged per committed step


def active_reembed(store: Store, bank_id: int) -> Any:
    """The bank's queued or running reembed job, or None."""
    for status in ("running", "queued"):
        jobs = store.jobs.all(bank_id, status, 1, kind="reembed")
        if jobs:
            return jobs[0]
    return None


def submit(engine: Engine, bank: str, embedder: str) -> int:
    """Queue the move of ``bank`` to ``embedder``; returns the job id. Checked now, not in the
    background: the bank exists, the embedder is registered (UnknownProviderError lists those that
    are) and is not the bank's already. The memory may be open with either embedder."""
    name = check_bank_name(bank)
    if not isinstance(embedder, str) or not embedder.strip():
        raise InputError("embedder must be a registered embedder's name, e.g. embedder='e5-small'")
    store = engine.store
    row = store.banks.get(name)
    if row is None:
        raise BankNotFoundError(name)
    target = engine.embedder(embedder)  # builds it: an unknown or broken embedder fails here
    with store.write():
        store.lock_bank(row.id)
        current = store.banks.by_id(row.id) or row
        running = active_reembed(store, row.id)
        if current.embedder == target.model_id:
            hint = f" (cancel op-{running.id}, its move to {running.payload.get('embedder')!r}, to stay)" \
                if running is not None else ""
            raise InputError(f"bank {name!r} is embedded with {target.model_id!r} already: nothing to re-embed{hint}")
        if running is not None:
            if running.payload.get("embedder") == target.model_id:
                return int(running.id)  # the same move, asked again: the same operation
            raise ReembedRunningError(name, f"op-{running.id}", str(running.payload.get("embedder")))
        job = store.jobs.enqueue(row.id, "reembed", {"embedder": target.model_id, "dim": int(target.dim)},
                                 unique=False)
    assert job is not None
    return job


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fact_texts(store: Store, bank: BankRow, ids: Sequence[int]) -> list[tuple[int, str, str | None]]:
    """Per fact: (id, what its own vector embeds, what its context vector embeds or None) — the texts
    retain built, from what the bank stores."""
    facts = store.facts.get(bank.id, ids)
    with_context = set(store.search.vectors_of(bank.dim, [f.id for f in facts], "context"))
    replies = [f for f in facts if f.id in with_context and f.message_ids]
    previous = store.reembed.previous_messages(bank.id, [f.message_ids[0] for f in replies])
    pieces = [f for f in facts if f.id in with_context and not f.message_ids]
    chunk_texts = store.reembed.chunk_texts([f.chunk_id for f in pieces])
    locations = store.sources.chunk_locations([f.chunk_id for f in pieces])
    out = []
    for f in facts:
        context: str | None = None
        if f.id in with_context:
            if f.message_ids:
                before = previous.get(f.message_ids[0])
                context = reply_context(before) if before is not None else None
            elif f.chunk_id in chunk_texts:
                context = section_context(chunk_texts[f.chunk_id], locations.get(f.chunk_id))
        out.append((f.id, embed_text(f.text, f.speaker), embed_text(f.text, f.speaker, context) if context else None))
    return out


def _embed_facts(store: Store, bank: BankRow, target: Embedder, batch: Sequence[tuple[int, str]],
                 report: dict[str, Any]) -> list[tuple[int, np.ndarray, np.ndarray | None]]:
    """The new vectors of a batch of ``(fact id, embed_hash)``."""
    texts = _fact_texts(store, bank, [i for i, _ in batch])
    hashes = dict(batch)
    # the text retain embedded has this hash: one that differs was retained by an older formula
    report["texts_changed"] += sum(1 for i, own, _ in texts if hashes.get(i) != _digest(own))
    inputs = [own for _, own, _ in texts] + [context for _, _, context in texts if context]
    vectors = target.embed(inputs, "document") if inputs else np.zeros((0, target.dim), dtype=np.float32)
    contextual = iter(vectors[len(texts):])
    return [(i, vectors[k], next(contextual) if context else None) for k, (i, _, context) in enumerate(texts)]


def _stage_missing(ctx: JobContext, target: Embedder, report: dict[str, Any], *, after: int = 0,
                   locked: bool = False) -> None:
    """Embed and stage the facts without a staged vector, after id ``after``, a batch at a time: each
    batch its own transaction (embedded before it), or with ``locked`` all in the caller's."""
    store, bank = ctx.store, ctx.bank
    while batch := store.reembed.unstaged_facts(bank.id, after, BATCH):
        rows = _embed_facts(store, bank, target, batch, report)
        if locked:  # written since the last batch: embedded while the lock is held
            report["under_lock"] = report.get("under_lock", 0) + store.reembed.stage_facts(bank.id, rows)
        else:
            with store.write():
                held = _progress(ctx, report)
                if held:
                    report["staged"] += store.reembed.stage_facts(bank.id, rows)
                    report["total"] = max(report["total"], report["staged"])
            if not held:
                _let_go(ctx)
            if ctx.progress is not None:
                ctx.progress(report["staged"], report["total"])
        after = batch[-1][0]


def _progress(ctx: JobContext, report: dict[str, Any]) -> bool:
    """Inside a write: record how far the job is (``staged`` of ``total`` facts, kept as the job goes:
    counting a large bank's rows every batch would cost more than the batch); False when its claim
    no longer holds it."""
    if ctx.job_id is None or ctx.claim is None:
        return True
    return ctx.store.jobs.set_progress(ctx.job_id, ctx.claim, dict(report))


def _let_go(ctx: JobContext) -> None:
    """The claim is gone: a cancelled job's staged vectors go (a lease another worker took over keeps
    them: it resumes there). Raises ClaimLostError."""
    assert ctx.job_id is not None
    job = ctx.store.jobs.get(ctx.job_id)
    if job is not None and job.status == "cancelled":
        with ctx.store.write():
            ctx.store.reembed.clear(ctx.bank.id)
    raise ClaimLostError(ctx.job_id)


def _observation_vectors(ctx: JobContext, target: Embedder,
                         report: dict[str, Any]) -> list[tuple[int, str, np.ndarray]]:
    """The new vectors of the observations not staged with their current text (new or rewritten
    since): ``(observation id, hash of its text, vector)``."""
    store, bank = ctx.store, ctx.bank
    staged = store.reembed.observation_hashes(bank.id)
    todo = [(o.id, _digest(o.text), o.text) for o in store.observations.get(bank.id, list(staged))
            if staged.get(o.id) != _digest(o.text)]
    if not todo:
        return []
    report["observations_embedded"] = report.get("observations_embedded", 0) + len(todo)
    vectors = target.embed([text for _, _, text in todo], "document")
    return [(i, digest, v) for (i, digest, _), v in zip(todo, vectors)]


def run_reembed(ctx: JobContext) -> dict[str, Any]:
    """The ``reembed`` job (see the module docstring); its report: facts and context vectors moved,
    observations, the embedder and dimension now, seconds taken."""
    store, bank, started = ctx.store, ctx.bank, time.monotonic()
    target = ctx.engine.embedder(str(ctx.payload["embedder"]))
    report: dict[str, Any] = {"embedder": target.model_id, "dim": int(target.dim), "from": bank.embedder,
                              "texts_changed": 0}
    if bank.embedder == target.model_id:  # a retried job whose move already happened
        with store.write():
            store.reembed.clear(bank.id)
            ctx.commit({**report, "facts": 0})
        return {**report, "facts": 0}
    with store.write():
        store.lock_bank(bank.id)
        report["resumed_from"] = report["staged"] = store.reembed.start(bank.id, target.model_id, int(target.dim))
        report["total"] = store.facts.count(bank.id)
        held = _progress(ctx, report)
    if not held:
        _let_go(ctx)
    _stage_missing(ctx, target, report)  # the bank as it is, and what is retained meanwhile
    _stage_missing(ctx, target, report)  # ids a concurrent transaction took before ours but committed later
    observations = _observation_vectors(ctx, target, report)
    with store.write():
        store.reembed.stage_observations(bank.id, observations)
    with store.write():
        # the end, under the write lock: what was written since, then the swap, in one transaction
        locked = time.monotonic()
        store.lock_bank(bank.id)
        current = store.banks.by_id(bank.id)
        if current is None:
            raise BankNotFoundError(bank.name)
        if current.embedder != bank.embedder:
            raise InputError(f"bank {bank.name!r} moved to {current.embedder!r} while this reembed ran: "
                             "submit the reembed again")
        _stage_missing(ctx, target, report, locked=True)
        store.reembed.stage_observations(bank.id, _observation_vectors(ctx, target, report))
        moved = store.reembed.swap(bank.id, target.model_id, int(target.dim))
        report.update(moved, seconds=round(time.monotonic() - started, 3),
                      locked_seconds=round(time.monotonic() - locked, 3))
        report.pop("staged", None)
        report.pop("total", None)
        ctx.commit(dict(report))
    if ctx.progress is not None:
        ctx.progress(int(moved.get("facts", 0)), int(moved.get("facts", 0)))
    index_when_due(store, bank.id, int(target.dim))  # a large bank's clusters, trained in steps
    return report
