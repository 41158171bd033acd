"""Banks as the caller sees them: inspection (banks, sources, one memory, its versions), per-bank
configuration (redaction policy, LLM) and deleting a bank. Everything goes through the store
protocol; the records returned are the library's public ones (gieok.records)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gieok.defense import RedactionPolicy
from gieok.engine._time import from_epoch
from gieok.engine._validate import check_name
from gieok.engine.context import BankContext, Engine
from gieok.engine.recall.memories import add_locations, add_versions, fact_to_memory
from gieok.engine.recall.observations import observation_memory
from gieok.errors import BankNotFoundError, InputError, MemoryNotFoundError, SourceNotFoundError
from gieok.ids import parse_memory_id
from gieok.providers import available as available_providers
from gieok.records import (
    AuditEntry,
    DeletedBank,
    EntityInfo,
    LlmConfig,
    LlmUsage,
    LlmUsageRow,
    RecalledMemory,
    SourceInfo,
)

__all__ = ["source", "entities", "get_memory", "history", "observations", "set_redaction_policy", "configure_llm",
           "llm_usage", "delete_bank", "discard_if_empty", "audit_log"]


def source(ctx: BankContext, source_id: str) -> SourceInfo:
    check_name(source_id, "source_id", "'chat-1' (a document_id or conversation id from `sources`)")
    found = ctx.store.sources.get(ctx.bank.id, ctx.bank.name, source_id)
    if found is None:
        raise SourceNotFoundError(source_id)
    return found


def entities(ctx: BankContext, limit: int = 1000) -> list[EntityInfo]:
    """The bank's entities, most named first, with their aliases (what ``forget(entity=...)`` accepts)."""
    return [EntityInfo(row.canonical_name, row.kind, [a for a in row.aliases if a != row.canonical_name], count,
                       from_epoch(row.last_seen) if row.last_seen else None)
            for row, count in ctx.store.graph.entities(ctx.bank.id, int(limit))]


def get_memory(ctx: BankContext, memory_id: str) -> RecalledMemory:
    """One fact (``f-12``) or observation (``o-3``) of the bank."""
    ref = parse_memory_id(memory_id)
    if ref is not None and ref.kind == "observation":
        found = observation_memory(ctx.store, ctx.bank, ref.number, 0.0, {})
        if found is None:
            raise MemoryNotFoundError(memory_id)
        return found
    facts = ctx.store.facts.get(ctx.bank.id, [ref.number]) if ref is not None else []
    if not facts:
        raise MemoryNotFoundError(memory_id)
    memory = fact_to_memory(facts[0], 0.0, {})
    add_versions(ctx.store, [memory])  # which version replaced it, and what it replaced
    add_locations(ctx.store, [(memory, facts[0].chunk_id)])
    return memory


def history(ctx: BankContext, memory_id: str) -> list[RecalledMemory]:
    """Every version of the statement ``memory_id`` belongs to, oldest first."""
    ref = parse_memory_id(memory_id)
    if ref is None or ref.kind != "fact" or not ctx.store.facts.get(ctx.bank.id, [ref.number]):
        raise MemoryNotFoundError(memory_id)
    chain = ctx.store.facts.get(ctx.bank.id, ctx.store.versions.chain(ref.number))
    versions = [fact_to_memory(f, 0.0, {}) for f in chain]
    add_versions(ctx.store, versions)
    add_locations(ctx.store, [(v, f.chunk_id) for v, f in zip(versions, chain)])
    return versions


def observations(ctx: BankContext) -> list[RecalledMemory]:
    out = [observation_memory(ctx.store, ctx.bank, o.id, 0.0, {}) for o in ctx.store.observations.all(ctx.bank.id)]
    return [o for o in out if o is not None]


def set_redaction_policy(engine: Engine, bank: str,
                         policy: RedactionPolicy | Mapping[str, str] | None) -> RedactionPolicy:
    mapping = RedactionPolicy.coerce(policy).to_mapping() if policy is not None else None
    ctx = engine.bank_for_write(bank)
    with ctx.store.write():
        config = ctx.store.banks.config(ctx.bank.id)
        if mapping is None:
            config.pop("redaction", None)
        else:
            config["redaction"] = mapping
        ctx.store.banks.set_config(ctx.bank.id, config)
    return engine.redaction_policy(bank)


def configure_llm(engine: Engine, bank: str, **changes: Any) -> LlmConfig:
    """Merge ``changes`` (provider, model, base_url, api_key_env, spend_limit_usd, enabled; None = keep)
    into the bank's LLM configuration; the provider is built at once so a bad one fails here."""
    limit = changes.get("spend_limit_usd")
    if limit is not None and limit < 0:
        raise InputError("spend_limit_usd must be 0 (no ceiling) or more")
    ctx = engine.bank_for_write(bank)
    with ctx.store.write():
        config = ctx.store.banks.config(ctx.bank.id)
        llm_config = {**(config.get("llm") or {}), **{k: v for k, v in changes.items() if v is not None}}
        ctx.store.banks.set_config(ctx.bank.id, {**config, "llm": llm_config})
    engine.llm_for(ctx.bank)  # fail now, not in a background job, if the provider cannot be built
    return LlmConfig(**{k: v for k, v in llm_config.items() if k in LlmConfig.__dataclass_fields__})


def configure_decisions(engine: Engine, bank: str, model: str | None) -> str:
    """Set the bank's decision model (a registered ``decision`` provider: ``learned``, ``llm``, a
    plugin); None returns it to the setting ``decision_model``. Returns the one the bank now uses."""
    if model is not None and model not in available_providers("decision"):
        raise InputError(f"model must be a decision model: one of {', '.join(available_providers('decision'))}")
    ctx = engine.bank_for_write(bank)
    with ctx.store.write():
        config = {k: v for k, v in ctx.store.banks.config(ctx.bank.id).items() if k != "decision_model"}
        ctx.store.banks.set_config(ctx.bank.id, {**config, **({"decision_model": model} if model else {})})
    return model or engine.settings.decision_model


def llm_usage(ctx: BankContext) -> LlmUsage:
    """Which LLM the bank uses (provider, model; none: offline) and what it spent."""
    llm = ctx.engine.llm_for(ctx.bank)
    return LlmUsage(bank=ctx.bank.name, provider=getattr(llm, "provider", None) if llm else None,
                    model=getattr(llm, "model", None) if llm else None, offline=llm is None,
                    spent_usd=ctx.store.llm.spend(ctx.bank.id), spend_limit_usd=ctx.spend_limit,
                    rows=[LlmUsageRow(**row) for row in ctx.store.llm.usage(ctx.bank.id)])


def audit_log(engine: Engine, bank: str, limit: int) -> list[AuditEntry]:
    """What redaction found in ``bank``, newest first (a deleted bank's entries stay, by name)."""
    return [AuditEntry(**row) for row in engine.store.audit.log(bank, limit)]


def delete_bank(engine: Engine, bank: str) -> DeletedBank:
    """Delete the bank whatever embedder made it (deleting needs no vectors); returns the counts.
    The write-ahead log is checkpointed after, as by ``forget``: the bytes leave the file now."""
    row = engine.store.banks.get(bank)
    if row is None:
        raise BankNotFoundError(bank)
    with engine.store.write():
        counts = engine.store.banks.delete(row.id)
    engine.store.erasure.checkpoint()
    return DeletedBank(**counts)


def discard_if_empty(engine: Engine, bank: str) -> bool:
    """Delete ``bank`` if nothing was ever written into it (a failed retain's new bank; one holding
    metered LLM spend is kept). Never raises: the caller is already reporting a failure."""
    try:
        row = engine.store.banks.get(bank)
        if row is None:
            return False
        with engine.store.write():
            return engine.store.banks.delete_if_empty(row.id)
    except Exception:  # the retain's own exception is the one to report; the bank just stays
        return False
