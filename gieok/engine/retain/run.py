"""Retain: source in, facts out — one pipeline, one write transaction.

1. **Validate** the call (messages or a document, lifecycle overrides, ids, times): bad input
   raises before anything is read or written, so it loses nothing already stored.
2. **Redact** every item with the bank's policy (gieok.defense): texts, speakers, metadata keys and
   values are redacted; ids and a new bank's name are refused (SensitiveIdError) when they hold a
   secret or identifier. A "block" finding refuses the whole call: only the refusal's audit row
   (types, positions, fingerprints — never values) is written.
3. **Plan** outside the write lock (:mod:`gieok.engine.retain.plan`): chunking, extraction
   (deterministic, or the bank's LLM), embedding and entity-mention extraction — the slow work.
4. **Write** in one transaction: the bank if it is new, the verbatim source, messages, chunks,
   facts with their index rows and vectors, entity resolution and mentions, temporal / semantic /
   causal links, supersede, the audit row and the consolidation job. A crash or an error anywhere in
   it leaves all of the call or none of it.

One exception to "all in one": when the bank is new and an LLM will extract its facts, the bank row
is written first, because the LLM's spend is metered against the bank as the calls are made (a
spend that happened is recorded even if the retain then fails). If the call then fails, the bank it
created is deleted again unless something was written into it meanwhile — and metered spend counts:
a bank whose failed first retain already paid for LLM calls is kept, holding only that spend, so
``llm_usage`` and the spend ceiling stay true (``delete_bank`` removes it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

import numpy as np

from gieok.engine._time import TimeLike, optional_epoch, to_datetime
from gieok.engine._validate import check_encodable, check_metadata, check_number
from gieok.engine.admin.banks import discard_if_empty
from gieok.engine.context import BankContext, Engine, JobContext, check_bank_name
from gieok.engine.retain import redact as defense
from gieok.engine.retain.doubt import check_trust, hold_instructions
from gieok.engine.retain.link import Nearest, find_nearest, link_new_facts, nearest_after_write
from gieok.engine.retain.plan import (
    FactOptions,
    Layout,
    Plan,
    content_sha,
    normalize_messages,
    plan_document,
    plan_messages,
)
from gieok.engine.retain.resolve import plan_entities, write_entities
from gieok.engine.retain.supersede import Verdicts, prejudge_updates, supersede_new_facts
from gieok.engine.scopes import own_facts
from gieok.engine.slots import plan_slots, profile_rows
from gieok.errors import EmbedderMismatchError, InputError, InvalidMessageError, ScopeConflictError, StoreBusyError
from gieok.lifecycle import DECAY_CLASSES
from gieok.providers.decisions import DecisionModel
from gieok.records import UNSCOPED, Message, NewFact, RetainResult, Scope
from gieok.store.protocol import BankRow, Store

__all__ = ["retain", "screen", "write_screened", "submit", "run_retain_job", "fact_options", "normalize_messages",
           "FactOptions", "Screened"]

Progress = Callable[[int], None] | None

# the default options: every fact keeps the lifecycle the classifier gives it (frozen, so one instance is shared)
NO_OVERRIDES = FactOptions()


def fact_options(decay_class: str | None = None, importance: float | None = None, pinned: bool | None = None,
                 ttl: float | None = None, expires_at: TimeLike | None = None) -> FactOptions:
    """The caller's lifecycle overrides for every fact of one call, checked."""
    if decay_class is not None and decay_class not in DECAY_CLASSES:
        raise InputError(f"decay_class {decay_class!r} is unknown: use one of {', '.join(DECAY_CLASSES)}")
    if importance is not None:
        check_number(importance, "importance", low=0.0, high=1.0, example="importance=0.8")
    if ttl is not None and expires_at is not None:
        raise InputError("give ttl= (seconds from now) or expires_at=, not both")
    if ttl is not None and check_number(ttl, "ttl", example="ttl=86400 for a day") <= 0:
        raise InputError("ttl must be a positive number of seconds, e.g. ttl=86400 for a day")
    expiry = datetime.now(timezone.utc).timestamp() + float(ttl) if ttl is not None else \
        optional_epoch(expires_at, "expires_at")
    return FactOptions(decay_class, None if importance is None else float(importance), pinned, expiry)


@dataclass(frozen=True)
class Screened:
    """A retain call after validation and redaction: what may be planned, written or queued."""

    bank: str
    kind: str  # conversation / document
    source_id: str
    redacted: defense.Redacted
    timestamp: str | None  # a document's default time (messages carry their own)
    layout: Layout | None = None  # an ingested document's chunks (redacted) and their locations
    scope: Scope = UNSCOPED  # whose the source is (gieok.engine.scopes)
    metadata_given: bool = False  # a conversation's stored metadata is replaced only when the call gives some
    trust: str | None = None  # the caller's trust level for the whole source (None: by speaker / kind)
    # the bank as the call found it, resolved once and passed down (None: a bank this call creates)
    context: BankContext | None = field(default=None, repr=False, compare=False)


def screen(engine: Engine, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
           text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
           metadata: Mapping[str, Any] | None = None, layout: Layout | None = None,
           scope: Scope = UNSCOPED, trust: str | None = None) -> Screened:
    """Steps 1 and 2: validate the call and redact it with the bank's policy. A "block" finding writes
    the refusal's audit row and raises BlockedContentError; nothing else is written. ``layout`` (from
    ingest) is a document's chunks with their locations: each chunk is redacted as well. ``scope``
    (checked by :func:`gieok.engine.scopes.check_scope`) is stored verbatim, so its ids are refused
    like other ids when they hold a secret or identifier."""
    if (messages is None) == (text is None):
        raise InputError("retain needs exactly one of messages=[...] or text='...'")
    if document_id is not None and (not isinstance(document_id, str) or not document_id.strip()):
        raise InputError("document_id must be a non-empty string")
    if document_id is not None:
        check_encodable(document_id, "document_id")
    check_bank_name(bank)
    metadata = check_metadata(metadata) if metadata is not None else None
    default_ts = to_datetime(timestamp, "timestamp").isoformat() if timestamp is not None else None
    _check_size(engine, messages, text)
    row = engine.find_bank(bank)  # the one lookup of the bank: the context travels with the Screened call
    ctx = engine.context(row) if row is not None else None
    policy = ctx.redaction_policy() if ctx is not None else engine.policy_from(None)
    # ids and bank names are refused, not rewritten (see gieok.engine.retain.redact); checked before the
    # refusal audit row below, which stores both
    if ctx is None:
        defense.check_id(bank, "the bank name", policy)
    if document_id is not None:
        defense.check_id(document_id, "document_id", policy)
    for what, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("session_id", scope.session_id),
                        *(("a tag", tag) for tag in scope.tags)):
        if value is not None:
            defense.check_id(value, what, policy)
    if messages is not None:
        normalized = [m if m.timestamp or default_ts is None else Message(m.id, m.speaker, m.text, default_ts)
                      for m in normalize_messages(messages)]
        source_id = document_id or f"conversation-{normalized[0].id}"
        redacted = defense.redact_messages(normalized, policy, source_id, metadata)
    else:
        if not isinstance(text, str):
            raise InputError(f"text must be a string, not {type(text).__name__}: give the document's text")
        if not text.strip():
            raise InputError("text is empty: give the document's text")
        check_encodable(text, "text")
        # the same text retained for two users is two documents, each of its own scope
        scoped = () if scope == UNSCOPED else (scope.user_id, scope.agent_id, scope.session_id, *scope.tags)
        source_id = document_id or "doc-" + content_sha(text, *scoped)[:16]
        redacted = defense.redact_document(text, source_id, metadata or {}, policy)
        if layout is not None:
            layout = defense.redact_layout(layout, source_id, policy, redacted)
    if redacted.blocked:
        with engine.store.write():
            _audit(engine.store, bank, "retain-refused", source_id, redacted)
        defense.check_blocked(redacted)
    return Screened(bank, "conversation" if messages is not None else "document", source_id, redacted, default_ts,
                    layout, scope, metadata is not None, check_trust(trust), ctx)


def _check_size(engine: Engine, messages: Any, text: Any) -> None:
    """Refuse, before any work, a message or document above ``max_retain_chars``."""
    limit = int(engine.settings.max_retain_chars)
    sizes = [len(text)] if isinstance(text, str) else \
        [len(m.get("text") or "") if isinstance(m, Mapping) else len(getattr(m, "text", "") or "")
         for m in (messages if isinstance(messages, Sequence) and not isinstance(messages, str) else [])]
    if sizes and max(sizes) > limit:
        raise InputError(f"a {'document' if isinstance(text, str) else 'message'} of {max(sizes):,} characters is over "
                         f"max_retain_chars ({limit:,}): split it into smaller documents or messages, or raise the "
                         "setting (Memory(..., max_retain_chars=...))")


def retain(engine: Engine, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
           text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
           metadata: Mapping[str, Any] | None = None, progress: Progress = None,
           on_total: Callable[[int], None] | None = None, options: FactOptions = NO_OVERRIDES,
           scope: Scope = UNSCOPED, trust: str | None = None) -> RetainResult:
    """Store a conversation (``messages``) or a document (``text``) and its facts (see the module docstring)."""
    screened = screen(engine, bank, messages, text=text, document_id=document_id, timestamp=timestamp,
                      metadata=metadata, scope=scope, trust=trust)
    return write_screened(engine, screened, options, progress=progress, on_total=on_total)


OnCommit = Callable[[RetainResult], None] | None


def write_screened(engine: Engine, screened: Screened, options: FactOptions = NO_OVERRIDES, *,
                   progress: Progress = None, on_total: Callable[[int], None] | None = None,
                   audit_operation: str = "retain", on_commit: OnCommit = None) -> RetainResult:
    """Steps 3 and 4: plan outside the write lock, then write everything in one transaction. A call
    that fails leaves no new, empty bank behind (see the module docstring). ``on_commit(result)``
    runs last inside the write transaction (a queued retain marks its job done there)."""
    new_bank = screened.context is None
    try:
        return _plan_and_write(engine, screened, options, progress, on_total, audit_operation, on_commit)
    except BaseException:
        if new_bank:
            discard_if_empty(engine, screened.bank)
        raise


REMOVED_FROM_DOCUMENT = "removed from the document by a new version"
_REPLANS = 3  # a retain planned against what another writer changed meanwhile is planned again


def _plan_and_write(engine: Engine, screened: Screened, options: FactOptions, progress: Progress,
                    on_total: Callable[[int], None] | None, audit_operation: str, on_commit: OnCommit) -> RetainResult:
    for attempt in range(_REPLANS + 1):
        result = _try_plan_and_write(engine, screened, options, progress if attempt == 0 else None,
                                     on_total if attempt == 0 else None, audit_operation, on_commit)
        if result is not None:
            return result
        # another writer changed what the plan was made against, and may have made the bank: read it again
        row = engine.find_bank(screened.bank)
        screened = replace(screened, context=engine.context(row) if row is not None else None)
    raise StoreBusyError(f"bank {screened.bank!r}: other writers kept changing source {screened.source_id!r} "
                         f"while this retain was planned ({_REPLANS + 1} tries); retry it")


def _try_plan_and_write(engine: Engine, screened: Screened, options: FactOptions, progress: Progress,
                        on_total: Callable[[int], None] | None, audit_operation: str,
                        on_commit: OnCommit = None) -> RetainResult | None:
    """Plan outside the write lock, then write in one transaction; None when another writer changed
    the messages or chunks the plan was made against (nothing is written then: plan again)."""
    bank, redacted, source_id = screened.bank, screened.redacted, screened.source_id
    known = screened.context
    # 3. plan, outside the write lock
    embedder = known.embedder if known is not None else engine.embedder()
    if known is None and engine.settings.llm_extraction and (engine.llm is not None or engine.settings.llm):
        with engine.store.write():  # the LLM's spend is metered against the bank as it goes
            known = engine.created_bank(bank)
    row = known.bank if known is not None else None
    llm = known.extraction_llm() if known is not None else None
    decisions = known.decisions() if known is not None else engine.decisions_for(None)
    if screened.kind == "conversation":
        plan = plan_messages(engine.store, row, engine.settings, embedder, redacted.messages, source_id, options,
                             llm, progress, on_total, decisions=decisions)
    else:
        plan = plan_document(engine.store, row, engine.settings, embedder, redacted.text or "", source_id,
                             screened.timestamp, redacted.metadata, options, llm, progress, on_total,
                             layout=screened.layout, decisions=decisions)
    # instruction-like statements from below the user's own words are held back, not remembered
    hold_instructions(plan.chunks, plan.vectors, plan.mentions, plan.causal, screened.trust, decisions)
    # judged and resolved now, so the lock is not held for them
    plan.entities = plan_entities(engine.store, row, *_written(plan))
    if plan.kind == "conversation":
        plan.slots = plan_slots([f for chunk in plan.chunks for f in chunk.facts], decisions)
    # every new fact's nearest stored facts, in one search: the semantic links and supersede's candidates
    nearest = find_nearest(engine.store, row, _plan_vectors(plan), own_facts(screened.scope))
    if engine.settings.supersede:
        plan.verdicts = _prejudge(engine.store, row, plan, screened.scope, decisions, nearest)
    # 4. write, as one transaction
    store = engine.store
    with store.write():
        ctx = _locked_bank(engine, bank, known)
        if not _plan_still_holds(store, ctx.bank, plan):
            return None  # the transaction wrote nothing; leaving it rolls nothing back
        _check_scope_holds(store, ctx.bank, plan, screened.scope)
        result = _write_conversation(ctx, plan, screened, nearest) if plan.kind == "conversation" else \
            _write_document(ctx, plan, screened, nearest)
        _audit(store, bank, audit_operation, source_id, redacted)
        if result.facts_added:
            store.jobs.enqueue(ctx.bank.id, "consolidate")
        final = RetainResult(result.bank, result.source_id, result.facts_added, result.facts_removed,
                             result.chunks_total, result.chunks_skipped, redactions=redacted.count,
                             quarantined=result.quarantined)
        if on_commit is not None:
            on_commit(final)
    index_when_due(store, ctx.bank.id, ctx.bank.dim)
    return final


def _locked_bank(engine: Engine, name: str, known: BankContext | None) -> BankContext:
    """Inside the write transaction: the bank, locked. A bank a concurrent retain made meanwhile, with
    another embedder, is refused (EmbedderMismatchError), never mixed; so is one a reembed swapped
    since ``known`` was read — its row is read again by id under the bank's lock, the one check of it."""
    if known is None:
        created = engine.created_bank(name)
        engine.store.lock_bank(created.bank.id)
        return created
    engine.store.lock_bank(known.bank.id)
    now = engine.store.banks.by_id(known.bank.id)
    if now is None:  # deleted since it was read: written into a new, empty bank, as the first retain would
        return _locked_bank(engine, name, None)
    if now.embedder != engine.embedder_id:
        raise EmbedderMismatchError(name, now.embedder, engine.embedder_id)
    return known


def index_when_due(store: Store, bank_id: int, dim: int) -> None:
    """After a write: (re)train the bank's approximate vector index when it is due (SQLite's
    clusters, at ``ann_min_vectors`` facts and at each fourfold growth), in steps that each hold the
    write lock briefly — other writers wait for a step, not for the whole training."""
    store.search.build_index(bank_id, dim)  # nothing when it is not due (one read)


def _written(plan: Plan) -> tuple[list[NewFact], list[Any]]:
    """The facts the write will insert, in its order, with their mentions (a kept chunk adds none)."""
    pairs = [(f, m) for c, per_chunk in zip(plan.chunks, plan.mentions) if c.keep_chunk_id is None
             for f, m in zip(c.facts, per_chunk)]
    return [f for f, _ in pairs], [m for _, m in pairs]


def _plan_vectors(plan: Plan) -> np.ndarray:
    """The own vectors of the plan's facts, one row per fact in the chunks' order."""
    vectors = [v for v, _ in plan.vectors if len(v)]
    return np.concatenate(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)


def _stored_entities(plan: Plan) -> list[list[int]] | None:
    """Per planned fact, the stored entities its planned resolution names (None: not planned)."""
    resolved = plan.entities
    if resolved is None or len(resolved.mentions) != sum(len(c.facts) for c in plan.chunks):
        return None
    return [sorted({ref for ref, _surface in mentions if getattr(resolved.entities.get(ref), "stored", False)})
            for mentions in resolved.mentions]


def _prejudge(store: Store, bank: BankRow | None, plan: Plan, scope: Scope, decisions: DecisionModel,
              nearest: Nearest) -> Verdicts:
    facts = [f for c in plan.chunks for f in c.facts]
    vectors = nearest.vectors
    if not facts or not len(vectors):
        return {}
    names = [[m.name for m in found.mentions] for per_chunk in plan.mentions for found in per_chunk]
    return prejudge_updates(store, bank, plan.source_id, facts, vectors, names, time.time(),
                            decisions=decisions, document=plan.kind == "document", scope=own_facts(scope),
                            nearest=nearest.hits, first_id=nearest.watermark + 1, entities=_stored_entities(plan))


def _plan_still_holds(store: Store, bank: BankRow, plan: Plan) -> bool:
    """Did no other writer, between planning and the write lock, store the messages this plan adds
    (two processes retaining the same message id) or change the document's chunks?"""
    if plan.kind == "conversation":
        return store.sources.existing_messages(bank.id, [m.id for m in plan.messages]) == plan.existing
    row = store.sources.row(bank.id, plan.source_id)
    stored = {c.id for c in store.sources.chunks(row[0]) if c.position >= 0} if row is not None else set()
    planned = set(plan.removed_chunks) | {c.keep_chunk_id for c in plan.chunks if c.keep_chunk_id is not None}
    return stored == planned


def _scope_words(scope: Scope) -> str:
    said = [f"{name} {value!r}" for name, value in (("user", scope.user_id), ("agent", scope.agent_id),
                                                      ("session", scope.session_id)) if value is not None]
    said += [f"tags {list(scope.tags)}"] if scope.tags else []
    return ", ".join(said) or "no scope (shared)"


def _check_scope_holds(store: Store, bank: BankRow, plan: Plan, scope: Scope) -> None:
    """A source has one scope: refuse (before anything is written) a retain that would add to a
    source, or re-write a message, of another scope — one user's words never join another's source."""
    row = store.sources.row(bank.id, plan.source_id)
    owners = {row[0]} if row is not None else set()
    owners |= {owner for owner, _text in plan.existing.values()} if plan.kind == "conversation" else set()
    for stored in store.sources.scopes(sorted(owners)).values():
        if stored != scope:
            raise ScopeConflictError(
                f"source {plan.source_id!r} (or a message id in this call) was retained with {_scope_words(stored)}, "
                f"this call gives {_scope_words(scope)}: a source keeps the scope it was created with; retain "
                "under another document_id (and message ids unique to the conversation), or with the same scope")


# -- retain in the background -----------------------------------------------------------------
# The call is validated and redacted before it is queued (bad input and "block" findings fail the
# submit itself, and the queue never holds a secret); the job plans and writes what was screened.

def submit(engine: Engine, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
           text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
           metadata: Mapping[str, Any] | None = None, options: FactOptions = NO_OVERRIDES,
           scope: Scope = UNSCOPED, trust: str | None = None) -> int:
    """Queue a retain; returns its job id. The redaction audit row is written with the job."""
    screened = screen(engine, bank, messages, text=text, document_id=document_id, timestamp=timestamp,
                      metadata=metadata, scope=scope, trust=trust)
    redacted = screened.redacted
    payload = {"kind": screened.kind, "source_id": screened.source_id, "timestamp": screened.timestamp,
               "messages": [asdict(m) for m in redacted.messages], "text": redacted.text,
               "metadata": redacted.metadata, "metadata_given": screened.metadata_given,
               "redactions": redacted.count, "options": asdict(options), "scope": asdict(scope),
               "trust": screened.trust}
    with engine.store.write():
        ctx = _locked_bank(engine, bank, screened.context)
        _audit(engine.store, bank, "retain-queued", screened.source_id, redacted)
        job_id = engine.store.jobs.enqueue(ctx.bank.id, "retain", payload, unique=False)
    assert job_id is not None
    return job_id


def run_retain_job(ctx: JobContext) -> dict[str, Any]:
    """The ``retain`` job: write what :func:`submit` screened (it is not redacted twice), and mark
    the job done in the same transaction (:meth:`JobContext.commit`): run again after a crash, it
    finds the job done or its claim gone and writes nothing; run outside the queue, the message ids
    and chunk hashes already stored make a second run add no fact."""
    p = ctx.payload
    redacted = defense.Redacted(messages=[Message(**m) for m in p.get("messages", [])], text=p.get("text"),
                                metadata=dict(p.get("metadata") or {}))
    stored_scope = dict(p.get("scope") or {})
    scope = Scope(stored_scope.get("user_id"), stored_scope.get("agent_id"), stored_scope.get("session_id"),
                  tuple(stored_scope.get("tags") or ()))
    screened = Screened(ctx.bank.name, str(p["kind"]), str(p["source_id"]), redacted, p.get("timestamp"),
                        scope=scope, metadata_given=bool(p.get("metadata_given", p["kind"] == "document")),
                        trust=p.get("trust"), context=ctx)
    redactions = int(p.get("redactions", 0))

    def done(result: RetainResult) -> None:
        ctx.commit({**asdict(result), "redactions": redactions})

    result = write_screened(ctx.engine, screened, FactOptions(**p.get("options", {})), on_commit=done)
    return {**asdict(result), "redactions": redactions}


def _audit(store: Store, bank: str, operation: str, source_id: str, redacted: defense.Redacted) -> None:
    entries = [{"bank": bank, "operation": operation, "source_id": source_id, **e} for e in redacted.audit]
    if entries:
        store.audit.add(entries)


def _write_causal(store: Store, bank: BankRow, plan: Plan) -> None:
    """Once the facts have ids: the extractor's causal links, between facts written in this call."""
    store.graph.add_links(bank.id, [(a.fact_ids[i], b.fact_ids[j], relation, 1.0)
                                    for a, i, relation, b, j in plan.causal
                                    if i < len(a.fact_ids) and j < len(b.fact_ids)])


def _found_nearest(ctx: BankContext, plan: Plan, nearest: Nearest) -> dict[int, list[tuple[int, float]]] | None:
    """Once the call's facts are written: their nearest facts from the search before the lock
    (:func:`gieok.engine.retain.link.nearest_after_write`); None when they must be searched again."""
    ids = [i for c in plan.chunks for i in c.fact_ids]
    return nearest_after_write(ctx.store, ctx.bank, nearest, ids) if ids else None


def _link(ctx: BankContext, plan: Plan, source: int, ids: list[int], facts: list[NewFact],
          vectors: list[np.ndarray], scope: Scope, found: dict[int, list[tuple[int, float]]] | None, *,
          document: bool = False) -> None:
    # the neighbours (semantic links, supersede candidates) of a user's facts are that user's facts
    mine = own_facts(scope)
    neighbours = link_new_facts(ctx.store, ctx.bank, source, ids, facts, np.concatenate(vectors), mine, found)
    if ctx.settings.supersede:
        supersede_new_facts(ctx.store, ctx.bank, ids, neighbours, decisions=ctx.decisions(), document=document,
                            verdicts=plan.verdicts, scope=mine)


def _write_conversation(ctx: BankContext, plan: Plan, screened: Screened, nearest: Nearest) -> RetainResult:
    store, bank = ctx.store, ctx.bank
    row = store.sources.row(bank.id, plan.source_id)
    if row is not None and row[1] != "conversation":
        raise InvalidMessageError(f"source {plan.source_id!r} is a document; retain messages under another id")
    source_id = store.sources.upsert(bank.id, plan.source_id, "conversation", None,
                                     screened.redacted.metadata if screened.metadata_given else None, screened.scope)
    position = store.sources.next_position(source_id)
    added = removed = held = 0
    # linking once per source, not per message: the calibration sample and entity names are read once
    to_link: dict[int, tuple[list[int], list[NewFact], list[np.ndarray]]] = {}
    written: list[int] = []
    written_facts: list[NewFact] = []
    for chunk, (chunk_vectors, context_vectors) in zip(plan.chunks, plan.vectors):
        message = chunk.message
        assert message is not None
        if message.id in plan.changed:
            owner = plan.existing[message.id][0]
            removed += store.sources.delete_chunks(bank.id, store.sources.chunks_of_message(bank.id, owner, message.id))
            store.sources.set_message_text(bank.id, message.id, message.text)
            target_source = owner
        else:
            store.sources.add_message(bank.id, source_id, message, position)
            position += 1
            target_source = source_id
        chunk_id = store.sources.add_chunk(bank.id, target_source, position, chunk.sha256, chunk.text,
                                           chunk.message_ids)
        chunk.fact_ids = store.facts.add(bank.id, target_source, chunk_id, chunk.facts, chunk_vectors, context_vectors)
        held += _hold(store, bank, target_source, chunk_id, chunk, message.timestamp)
        batch = to_link.setdefault(target_source, ([], [], []))
        batch[0].extend(chunk.fact_ids)
        batch[1].extend(chunk.facts)
        batch[2].append(chunk_vectors)
        written += chunk.fact_ids
        written_facts += chunk.facts
        added += len(chunk.fact_ids)
    _write_causal(store, bank, plan)
    write_entities(store, bank, written, *_written(plan), plan.entities)
    store.slots.add(bank.id, profile_rows(written, written_facts, plan.slots, time.time()))
    found = _found_nearest(ctx, plan, nearest)
    for target_source, (ids, facts, vectors) in to_link.items():
        _link(ctx, plan, target_source, ids, facts, vectors, screened.scope, found)
    return RetainResult(bank.name, plan.source_id, added, removed, len(plan.messages), plan.skipped,
                        quarantined=held)


def _write_document(ctx: BankContext, plan: Plan, screened: Screened, nearest: Nearest) -> RetainResult:
    store, bank = ctx.store, ctx.bank
    row = store.sources.row(bank.id, plan.source_id)
    if row is not None and row[1] != "document":
        raise InvalidMessageError(f"source {plan.source_id!r} is a conversation; retain the document under another id")
    source_id = store.sources.upsert(bank.id, plan.source_id, "document", plan.text, plan.metadata, screened.scope)
    # a section the new version left out is closed, not deleted: the document's history stays
    # recallable as it stood (as_of), and forgetting the document still removes all of it
    removed = store.sources.retire_chunks(bank.id, plan.removed_chunks, time.time(), REMOVED_FROM_DOCUMENT)
    added = skipped = held = 0
    ids: list[int] = []
    facts: list[NewFact] = []
    vectors: list[np.ndarray] = []
    for position, (chunk, (chunk_vectors, context_vectors)) in enumerate(zip(plan.chunks, plan.vectors)):
        if chunk.keep_chunk_id is not None:
            store.sources.move_chunk(chunk.keep_chunk_id, position, chunk.location)
            skipped += 1
            continue
        chunk_id = store.sources.add_chunk(bank.id, source_id, position, chunk.sha256, chunk.text, [], chunk.location)
        chunk.fact_ids = store.facts.add(bank.id, source_id, chunk_id, chunk.facts, chunk_vectors, context_vectors)
        held += _hold(store, bank, source_id, chunk_id, chunk, screened.timestamp)
        ids += chunk.fact_ids
        facts += chunk.facts
        vectors.append(chunk_vectors)
        added += len(chunk.fact_ids)
    _write_causal(store, bank, plan)
    if ids:
        write_entities(store, bank, ids, *_written(plan), plan.entities)
        _link(ctx, plan, source_id, ids, facts, vectors, screened.scope, _found_nearest(ctx, plan, nearest),
              document=True)
    return RetainResult(bank.name, plan.source_id, added, removed, len(plan.chunks), skipped, quarantined=held)


def _hold(store: Store, bank: BankRow, source: int, chunk_id: int, chunk: Any, said_at: str | None) -> int:
    """Write what the quarantine held back of one chunk (gieok.engine.retain.doubt)."""
    if chunk.held:
        store.held.add(bank.id, source, chunk_id, [
            (h.fact.message_ids[0] if h.fact.message_ids else None, h.fact.speaker, said_at, h.fact.text,
             h.fact.trust, h.reason, h.probability) for h in chunk.held])
    return len(chunk.held)
