"""Erasure with proof: hard delete with cascade, then a check that nothing of it is left.

``forget`` selects facts (by source, message, memory, entity or time), and the store deletes them
with everything derived from them (see gieok.store._lifecycle). Two derived things need the
engine: the facts of the message right after an erased one carry that message as context (a second
vector and keyword terms), which they lose; and the names of erased entities
are scrubbed from the co-occurrence counts of the entities that remain.

``verify_erased`` is the proof: the erased texts must appear in no table (FTS and vector shadow
tables included) and, after a WAL checkpoint and VACUUM, not in the bytes of the database file.
The proof reports where something was found by table and column, never the text itself.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gieok.engine._time import TimeLike, to_datetime
from gieok.engine.context import BankContext
from gieok.entities import candidate_keys, entity_keys
from gieok.errors import EntityNotFoundError, InputError, MemoryNotFoundError, SourceNotFoundError
from gieok.ids import fact_memory_id, parse_memory_id
from gieok.store.protocol import BankRow, Store

__all__ = ["ForgetResult", "ErasureProof", "forget", "verify_erased", "EntityNotFoundError"]


@dataclass
class ErasureProof:
    """Where erased text was still found (table and column, or the file); empty means clean."""

    clean: bool
    checked: list[str]
    found: list[dict[str, Any]] = field(default_factory=list)
    vacuumed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"clean": self.clean, "checked": self.checked, "found": self.found, "vacuumed": self.vacuumed}


@dataclass
class ForgetResult:
    bank: str
    selector: dict[str, str]
    erased: dict[str, int]
    memory_ids: list[str]
    contexts_cleared: int = 0  # replies to an erased message that lost it as context
    proof: ErasureProof | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"bank": self.bank, "selector": self.selector, "erased": self.erased, "memory_ids": self.memory_ids,
                "contexts_cleared": self.contexts_cleared, "proof": self.proof.to_dict() if self.proof else None}


def _select(store: Store, bank: BankRow, source_id: str | None, memory_id: str | None, entity: str | None,
            before: float | None, before_iso: str | None,
            ) -> tuple[list[int], list[int], list[int], list[str], list[int]]:
    """(fact ids, message rows, source rows, entity keys to scrub, observation ids)."""
    facts: set[int] = set()
    messages: list[int] = []
    sources: list[int] = []
    keys: list[str] = []
    observations: list[int] = []
    if source_id is not None:
        row = store.get_source_row(bank.id, source_id)
        if row is not None:
            sources.append(row[0])
            facts |= set(store.fact_ids_where(bank.id, source_row=row[0]))
        else:
            rows = store.message_rows_where(bank.id, message_id=source_id)
            if not rows:
                raise SourceNotFoundError(source_id)
            messages += [r[0] for r in rows]
            facts |= set(store.fact_ids_where(bank.id, message_id=source_id))
    if memory_id is not None:
        ref = parse_memory_id(memory_id)
        if ref is not None and ref.kind == "observation":
            if not store.get_observations(bank.id, [ref.number]):
                raise MemoryNotFoundError(memory_id)
            observations.append(ref.number)
        else:
            if ref is None or not store.get_facts(bank.id, [ref.number]):
                raise MemoryNotFoundError(memory_id)
            facts.add(ref.number)
    if entity is not None:
        entity_rows = store.entities_by_keys(bank.id, candidate_keys(entity))
        if not entity_rows:
            raise EntityNotFoundError(entity)
        facts |= set(store.fact_ids_where(bank.id, entity_ids=[r.id for r in entity_rows]))
        for r in entity_rows:
            keys += entity_keys(r.canonical_name, r.aliases)
    if before is not None:
        facts |= set(store.fact_ids_where(bank.id, before=before))
        messages += [r[0] for r in store.message_rows_where(bank.id, before_iso=before_iso)]
    return sorted(facts), sorted(set(messages)), sources, keys, observations


def forget(ctx: BankContext, *, source_id: str | None = None, memory_id: str | None = None,
           entity: str | None = None, before: TimeLike | None = None, verify: bool = False) -> ForgetResult:
    """Erase what the selector names with everything derived from it; ``verify`` adds the proof."""
    for name, value in (("source_id", source_id), ("memory_id", memory_id), ("entity", entity)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InputError(f"{name} must be a non-empty string")
    if all(v is None for v in (source_id, memory_id, entity, before)):
        raise InputError("forget needs one of source_id=, memory_id=, entity= or before= (nothing was deleted)")
    before_dt = to_datetime(before, "before") if before is not None else None
    # the erased texts live only in this call, to prove the erasure: never stored, never returned
    result, probes = _erase(ctx.store, ctx.bank, source_id, memory_id, entity,
                    before_dt.timestamp() if before_dt else None, before_dt.isoformat() if before_dt else None,
                    ctx.engine.fingerprint_key)
    if verify:
        result.proof = verify_erased(ctx.store, probes) if probes else ErasureProof(clean=True, checked=[])
    return result


def _erase(store: Store, bank: BankRow, source_id: str | None, memory_id: str | None, entity: str | None,
           before: float | None, before_iso: str | None,
           fingerprint_key: bytes | None) -> tuple[ForgetResult, list[str]]:
    fact_ids, message_rows, source_rows, keys, observations = _select(
        store, bank, source_id, memory_id, entity, before, before_iso)
    facts = store.get_facts(bank.id, fact_ids)
    probes = [f.text for f in facts] + store.message_texts(message_rows) + store.source_texts(source_rows)
    if entity is not None:
        probes.append(entity)
    # very short texts ("ok", "ㅋㅋ") are everywhere and identify nobody: they are not probed
    probes = [p for p in dict.fromkeys(p.strip() for p in probes) if len(p) >= 8]
    # the messages the erased facts came from: the fact after each was embedded with it as context
    touched_messages = set(message_rows)
    for f in facts:
        for mid in f.message_ids:
            touched_messages |= {r[0] for r in store.message_rows_where(bank.id, message_id=mid)}
    dependents = [i for i in store.following_message_facts(sorted(touched_messages)) if i not in set(fact_ids)]
    with store.write():
        erased = store.erase_facts(bank.id, bank.dim, fact_ids, message_rows, source_rows)
        for obs in observations:
            erased["observations"] = erased.get("observations", 0) + store.delete_observations(bank.id, [obs])
        store.scrub_context_keys(bank.id, keys)
        cleared = _drop_context(store, bank, dependents)
        store.compact_indexes(bank.id)
        digest = hmac.new(fingerprint_key or b"gieok", "\x00".join(sorted(probes)).encode("utf-8"),
                          hashlib.sha256).hexdigest()[:32]
        store.add_audit([{"bank": bank.name, "operation": "forget", "source_id": source_id,
                          "item_id": memory_id, "type": "erase", "fingerprint": digest, "action": "deleted",
                          "count": erased["facts"]}])
    selector = {k: str(v) for k, v in (("source_id", source_id), ("memory_id", memory_id), ("entity", entity),
                                        ("before", before_iso)) if v is not None}
    return ForgetResult(bank.name, selector, erased, [fact_memory_id(i) for i in fact_ids], cleared, None), probes


def _drop_context(store: Store, bank: BankRow, fact_ids: Sequence[int]) -> int:
    """Replies to an erased message lose what they knew of it: its terms and their context vector."""
    for fact_id in fact_ids:
        store.clear_fact_context(bank.id, bank.dim, fact_id)
    return len(fact_ids)


def verify_erased(store: Store, texts: Sequence[str], *, deep: bool = True) -> ErasureProof:
    """Prove ``texts`` are gone: no table, FTS or vector shadow table holds them, and (``deep``) after
    a checkpoint and VACUUM, neither do the bytes of the database file."""
    needles = [t for t in dict.fromkeys(t.strip() for t in texts) if t]
    if not needles:
        raise InputError("verify_erased needs the texts to look for (e.g. the result of forget)")
    index = {n: i for i, n in enumerate(needles)}
    found = [{"text": index[hit["needle"]], "table": hit["table"], "column": hit["column"], "rows": hit["rows"]}
             for hit in store.scan_for(needles)]
    checked = ["tables", "fts", "vectors"]
    if deep:
        store.vacuum()
    if deep and store.file_backed:
        checked.append("file")
        found += [{"text": index[n], "table": None, "column": None, "file": store.path}
                  for n in store.file_contains(needles)]
    return ErasureProof(clean=not found, checked=checked, found=found, vacuumed=deep)
