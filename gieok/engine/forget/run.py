"""Erasure with proof: hard delete with cascade, then a check that nothing of it is left.

``forget`` first cancels the retains still queued or running for the source or user it names (in a
transaction of their own: a worker that had claimed one finds its claim gone when it commits, so
nothing forgotten is written afterwards). It then selects facts (by source, message, memory, time,
or entity: every fact naming it by any of its names, see :mod:`gieok.engine.forget.entity_facts`),
and the store deletes them with everything derived from them (see gieok.store._erasure): index rows,
vectors, mentions, links, the verbatim evidence, observations resting on them (their history
included), mental-model answers citing them, queued jobs naming them and the payloads of the retains
that wrote them. The engine takes back what needs it: the facts of the message right after an erased
one carry that message as context (a second vector and keyword terms), which they lose; the entity
graph gives back the names, titles, keys and counts the erased facts added
(:mod:`gieok.engine.forget.entities`); and any observation or mental-model answer still spelling an
erased form is dropped. The write ahead log is then checkpointed, so on SQLite the bytes are gone
from the file and its ``-wal`` when ``forget`` returns, even if the process is killed right after.

The proof (``verify=True``) looks for every form the engine derives from the erased text — the text
itself, its words, its keyword terms as the index stores them (stems, morphemes), and the names,
keys and titles of its entities, each lower-cased, capitalised and JSON-escaped — except the forms
what remains still spells (:mod:`gieok.engine.forget.forms`), in every table (FTS and vector
shadow tables and FTS term lists included) and, after a VACUUM, in the bytes of the database file.
Every name of the entity given to ``forget(entity=...)`` is looked for even if a remaining text
still spells it.
The proof reports where something was found by table and column, never the text itself.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Any

from gieok.engine._time import TimeLike, to_datetime
from gieok.engine._validate import check_encodable
from gieok.engine.context import BankContext
from gieok.engine.forget.entities import apply_undo, plan_undo
from gieok.engine.forget.entity_facts import EntityNames, entity_names, facts_naming
from gieok.engine.forget.forms import (
    Form,
    erased_forms,
    name_forms,
    needles,
    squash,
    still_indexed,
    unsupported,
)
from gieok.engine.scopes import check_scope
from gieok.errors import EntityNotFoundError, InputError, MemoryNotFoundError, SourceNotFoundError
from gieok.ids import fact_memory_id, parse_memory_id
from gieok.records import ErasureProof, ForgetResult
from gieok.store.protocol import BankRow, Store

__all__ = ["ForgetResult", "ErasureProof", "forget", "verify_erased", "prove_erased", "EntityNotFoundError"]


def _select(store: Store, bank: BankRow, source_id: str | None, memory_id: str | None, named: EntityNames | None,
            before: float | None, before_iso: str | None, user_id: str | None = None, queued: bool = False,
            ) -> tuple[list[int], list[int], list[int], list[int]]:
    """(fact ids, message rows, source rows, observation ids). ``queued``: retains of ``source_id``
    were cancelled, so a source not written yet is no error."""
    facts: set[int] = set()
    messages: list[int] = []
    sources: list[int] = []
    observations: list[int] = []
    if user_id is not None:  # every source retained for the user, whole: messages, chunks, facts, scope, metadata
        for owned in store.sources.of_user(bank.id, user_id):
            sources.append(owned)
            facts |= set(store.erasure.fact_ids(bank.id, source_row=owned))
    if source_id is not None:
        row = store.sources.row(bank.id, source_id)
        if row is not None:
            sources.append(row[0])
            facts |= set(store.erasure.fact_ids(bank.id, source_row=row[0]))
        else:
            rows = store.erasure.message_rows(bank.id, message_id=source_id)
            if not rows and not queued:
                raise SourceNotFoundError(source_id)
            messages += [r[0] for r in rows]
            facts |= set(store.erasure.fact_ids(bank.id, message_id=source_id))
    if memory_id is not None:
        ref = parse_memory_id(memory_id)
        if ref is not None and ref.kind == "observation":
            if not store.observations.get(bank.id, [ref.number]):
                raise MemoryNotFoundError(memory_id)
            observations.append(ref.number)
        else:
            if ref is None or not store.facts.get(bank.id, [ref.number]):
                raise MemoryNotFoundError(memory_id)
            facts.add(ref.number)
    if named is not None:
        naming = facts_naming(store, bank, named)
        if not named.entity_ids and not naming:
            raise EntityNotFoundError(named.names[0])
        facts |= set(naming)
    if before is not None:
        facts |= set(store.erasure.fact_ids(bank.id, before=before))
        messages += [r[0] for r in store.erasure.message_rows(bank.id, before_iso=before_iso)]
    return sorted(facts), sorted(set(messages)), sources, observations


def forget(ctx: BankContext, *, source_id: str | None = None, memory_id: str | None = None,
           entity: str | None = None, before: TimeLike | None = None, verify: bool = False,
           user_id: str | None = None) -> ForgetResult:
    """Erase what the selector names with everything derived from it; ``verify`` adds the proof.
    ``user_id`` names every source retained for that user (a user who asks to be forgotten)."""
    for name, value in (("source_id", source_id), ("memory_id", memory_id), ("entity", entity)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InputError(f"{name} must be a non-empty string")
    user_id = check_scope(user_id=user_id).user_id
    if all(v is None for v in (source_id, memory_id, entity, before, user_id)):
        raise InputError("forget needs one of source_id=, memory_id=, entity=, before= or user_id= "
                         "(nothing was deleted)")
    before_dt = to_datetime(before, "before") if before is not None else None
    queued = _cancel_queued(ctx.store, ctx.bank, source_id, user_id)
    named = entity_names(ctx.store, ctx.bank, entity) if entity is not None else None
    # the erased forms live only in this call, to prove the erasure: never stored, never returned
    result, leaked = _erase(ctx.store, ctx.bank, source_id, memory_id, named,
                            before_dt.timestamp() if before_dt else None, before_dt.isoformat() if before_dt else None,
                            ctx.engine.fingerprint_key, user_id, queued)
    result.checkpointed = ctx.store.erasure.checkpoint()
    if verify:
        # a form another bank still spells is no leak of this one; the name forgotten always is one
        others = [b.id for b in ctx.store.banks.rows() if b.id != ctx.bank.id]
        probed = still_indexed(ctx.store, others, unsupported(leaked, ctx.store.erasure.evidence_texts(None)))
        # every name the entity went by is looked for, even where a remaining text still spells it
        forced = [f for n in (named.names if named else []) for f in name_forms(n) if f.kind == "name"]
        result.proof = prove_erased(ctx.store, list({f.text: f for f in [*probed, *forced]}.values()))
    return result


def _erase_sessions(store: Store, bank: BankRow, source_id: str | None, only_user: str | None,
                    needles: list[str]) -> int:
    """Session rows an erase takes: a session's source takes the session; otherwise each turn that
    says what went (or a name nothing else spells), and its summary. Forgetting a user (``only_user``)
    sweeps only their sessions and shared ones: another user's session that says the same words is
    that user's own, and stays."""
    if source_id is not None and source_id.startswith("session:"):
        return store.sessions.delete(bank.id, source_id.removeprefix("session:"))
    return store.sessions.erase_turns(bank.id, needles, only_user=only_user)


def _cancel_queued(store: Store, bank: BankRow, source_id: str | None,
                   user_id: str | None) -> list[dict[str, Any]]:
    """Cancel the retains still queued (or running) for what is forgotten, in a transaction of its
    own before anything is selected; returns the texts they carried. A retain that committed before
    this is in the tables, and selected below; one that had not can no longer commit (its claim is
    gone, see ``Jobs.cancel_retains_of``), so nothing forgotten is written after ``forget``. Returns
    the payloads they carried (their texts are probed by the proof)."""
    if source_id is None and user_id is None:
        return []
    with store.write():
        return store.jobs.cancel_retains_of(bank.id, source_id=source_id, user_id=user_id)


def _payload_texts(payloads: Sequence[dict[str, Any]]) -> list[str]:
    texts = [str(p.get("text") or "") for p in payloads]
    texts += [str(m.get("text") or "") for p in payloads for m in p.get("messages") or [] if isinstance(m, dict)]
    return [t for t in texts if t.strip()]


def _erase(store: Store, bank: BankRow, source_id: str | None, memory_id: str | None, named: EntityNames | None,
           before: float | None, before_iso: str | None, fingerprint_key: bytes | None,
           user_id: str | None = None, queued: Sequence[dict[str, Any]] = (),
           ) -> tuple[ForgetResult, list[Form]]:
    fact_ids, message_rows, source_rows, observations = _select(
        store, bank, source_id, memory_id, named, before, before_iso, user_id, bool(queued))
    facts = store.facts.get(bank.id, fact_ids)
    texts = ([f.text for f in facts] + store.erasure.message_texts(message_rows)
             + store.erasure.source_texts(source_rows) + _payload_texts(queued))
    undo = plan_undo(store, bank, facts)  # Kiwi: before the write lock
    forms = erased_forms(texts, [*undo.names, *(named.names if named else [])])
    # the messages the erased facts came from: the fact after each was embedded with it as context
    touched_messages = set(message_rows)
    for f in facts:
        for mid in f.message_ids:
            touched_messages |= {r[0] for r in store.erasure.message_rows(bank.id, message_id=mid)}
    dependents = [i for i in store.erasure.following_facts(sorted(touched_messages)) if i not in set(fact_ids)]
    with store.write():
        erased = store.erasure.erase(bank.id, bank.dim, fact_ids, message_rows, source_rows)
        erased["jobs"] += len(queued)
        rebuilt = erased.get("observations", 0)  # observations that rested on erased facts
        for obs in observations:
            erased["observations"] = erased.get("observations", 0) + store.observations.delete(bank.id, [obs])
        # what the bank still says, after the delete: forms it no longer spells are leaks wherever they are
        leaked = still_indexed(store, [bank.id], unsupported(forms, store.erasure.evidence_texts(bank.id)))
        unspelled = {f.text for f in leaked}
        erased["entities_rewritten"] = apply_undo(store, bank, undo, unspelled)
        cleared = _drop_context(store, bank, dependents)
        dropped, models = _drop_derived_quoting(store, bank, leaked)
        erased["observations"] = erased.get("observations", 0) + dropped
        erased["mental_models"] = erased.get("mental_models", 0) + models
        if rebuilt + dropped:  # their remaining facts are consolidated again, without what went
            store.jobs.enqueue(bank.id, "consolidate")
        only_user = all(v is None for v in (source_id, memory_id, named, before))
        erased["session_rows"] = _erase_sessions(store, bank, source_id, user_id if only_user else None,
                                                 [*texts, *sorted(unspelled)])
        if user_id is not None:  # a user's own sessions go whole, turns that quote nothing erased too
            erased["session_rows"] += store.sessions.delete_of_user(bank.id, user_id)
        store.search.compact(bank.id)
        # no key (a server database without one configured): no fingerprint, not one with a public key
        digest = None if fingerprint_key is None else hmac.new(
            fingerprint_key, "\x00".join(sorted(t.strip() for t in texts)).encode("utf-8"), hashlib.sha256,
        ).hexdigest()[:32]
        store.audit.add([{"bank": bank.name, "operation": "forget", "source_id": source_id,
                          "item_id": memory_id, "type": "erase", "fingerprint": digest, "action": "deleted",
                          "count": erased["facts"]}])
    selector = {k: str(v) for k, v in (("source_id", source_id), ("memory_id", memory_id),
                                        ("entity", named.names[0] if named else None),
                                        ("before", before_iso), ("user_id", user_id)) if v is not None}
    return ForgetResult(bank.name, selector, erased, [fact_memory_id(i) for i in fact_ids], cleared, None), leaked


def _drop_context(store: Store, bank: BankRow, fact_ids: Sequence[int]) -> int:
    """Replies to an erased message lose what they knew of it: its terms and their context vector."""
    for fact_id in fact_ids:
        store.search.clear_context(bank.id, bank.dim, fact_id)
    return len(fact_ids)


def _drop_derived_quoting(store: Store, bank: BankRow, leaked: Sequence[Form]) -> tuple[int, int]:
    """Observations (topic, text, history) and mental-model answers that still spell an erased form
    no evidence supports — a topic named by a name only the erased message gave, an LLM's rewrite
    that kept a quote — go: observations are rebuilt from their remaining facts by the next
    consolidation, answers by the next refresh; a closed version's supersede reason that quotes
    one is cleared. Returns (observations, answers) dropped."""
    spelled = [squash(f.text) for f in leaked if squash(f.text)]
    if not spelled:
        return 0, 0

    def quotes(*texts: str) -> bool:
        said = squash(" ".join(texts))
        return any(s in said for s in spelled)

    doomed = [o.id for o in store.observations.all(bank.id)
              if quotes(o.topic, o.text, *(str(entry.get("previous", "")) for entry in o.history))]
    dropped = store.observations.delete(bank.id, doomed) if doomed else 0
    stale = [m.id for m in store.models.all(bank.id) if m.answer and quotes(m.answer)]
    reasons = [fact_id for fact_id, reason in store.versions.reasons(bank.id) if quotes(reason)]
    if reasons:  # a closed version's reason ("Springfield → Quixoteville") quoted what went
        store.versions.clear_reasons(bank.id, reasons)
    return dropped, store.models.clear_answers(stale) if stale else 0


def prove_erased(store: Store, forms: Sequence[Form], *, deep: bool = True) -> ErasureProof:
    """Look for every spelling of ``forms`` (see :func:`gieok.engine.forget.forms.needles`) in every
    table and, ``deep``, after a checkpoint and VACUUM, in the bytes of the database file."""
    owner: dict[str, int] = {}
    for i, form in enumerate(forms):
        for needle in needles(form.text):
            owner.setdefault(needle, i)
    found: dict[tuple[int, str | None, str | None], dict[str, Any]] = {}
    for hit in store.erasure.scan(list(owner)):
        i = owner[hit["needle"]]
        key = (i, hit["table"], hit["column"])
        entry = found.setdefault(key, {"text": i, "form": forms[i].kind, "table": hit["table"],
                                       "column": hit["column"], "rows": 0})
        entry["rows"] = max(entry["rows"], hit["rows"])
    checked = ["tables", "fts", "vectors"]
    if deep:
        store.erasure.vacuum()
    if deep and store.file_backed:
        checked.append("file")
        for needle in store.erasure.file_contains(list(owner)):
            i = owner[needle]
            found.setdefault((i, None, None), {"text": i, "form": forms[i].kind, "table": None, "column": None,
                                                "file": store.path})
    return ErasureProof(clean=not found, checked=checked, found=list(found.values()), vacuumed=deep,
                        probed=len(forms))


def verify_erased(store: Store, texts: Sequence[str], *, deep: bool = True) -> ErasureProof:
    """Prove ``texts`` are gone: no table, FTS or vector shadow table holds them (as given,
    lower-cased, capitalised or JSON-escaped), and (``deep``) after a checkpoint and VACUUM, neither
    do the bytes of the database file."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InputError("verify_erased needs a list of texts to look for, e.g. ['김민지', 'the codeword']")
    if not all(isinstance(t, str) for t in texts):
        raise InputError("verify_erased looks for texts: every item must be a string")
    given = [check_encodable(t, "a text to look for") for t in dict.fromkeys(t.strip() for t in texts) if t]
    if not given:
        raise InputError("verify_erased needs the texts to look for (e.g. the result of forget)")
    return prove_erased(store, [Form(t, "text", squash(t)) for t in given], deep=deep)
