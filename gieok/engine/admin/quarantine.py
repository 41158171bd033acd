"""What an operator does with the quarantine (see :mod:`gieok.engine.retain.doubt`): list the held
statements with their reasons, release one (it is written as a fact, as retain would have written
it, at its own trust level), or dismiss one (it stays only in the verbatim source). Erasing one is
forgetting what it came from: ``forget(source_id=<its message id or document>)``."""

from __future__ import annotations

from gieok.engine.context import BankContext
from gieok.engine.retain.doubt import HeldStatement, held_number, statement
from gieok.engine.retain.link import find_mentions, link_new_facts
from gieok.engine.retain.plan import FactOptions, make_fact
from gieok.engine.retain.resolve import plan_entities, write_entities
from gieok.engine.retain.supersede import supersede_new_facts
from gieok.engine.scopes import own_facts
from gieok.errors import HeldNotFoundError
from gieok.ids import fact_memory_id
from gieok.records import UNSCOPED

__all__ = ["dismiss", "quarantined", "release"]


def quarantined(ctx: BankContext, limit: int = 1000) -> list[HeldStatement]:
    """The bank's held statements, newest first."""
    return [statement(row) for row in ctx.store.held.all(ctx.bank.id, limit)]


def release(ctx: BankContext, held: str) -> str:
    """Write the held statement ``held`` as a fact of its source (embedded, linked, its entities
    resolved; it may supersede only what is no more trusted than it); returns its memory id."""
    store, bank = ctx.store, ctx.bank
    row = store.held.get(bank.id, held_number(held))
    if row is None:
        raise HeldNotFoundError()
    document = row.speaker is None
    fact = FactOptions(document=document).apply(
        make_fact(row.text, row.speaker, row.said_at, [row.message_id] if row.message_id else [], None, False))
    fact.trust = row.trust
    vectors = ctx.embedder.embed([fact.embed_text], "document")
    mentions = find_mentions(store, bank, [fact], [row.speaker] if row.speaker else [], ctx.decisions())
    entities = plan_entities(store, bank, [fact], mentions)
    with store.write():
        store.lock_bank(bank.id)
        if store.held.drop(bank.id, row.id) == 0:  # released or dismissed meanwhile
            raise HeldNotFoundError()
        ids = store.facts.add(bank.id, row.source_id, row.chunk_id, [fact], vectors, None)
        write_entities(store, bank, ids, [fact], mentions, entities)
        mine = own_facts(store.sources.scopes([row.source_id]).get(row.source_id, UNSCOPED))
        neighbours = link_new_facts(store, bank, row.source_id, ids, [fact], vectors, mine)
        if ctx.settings.supersede:
            supersede_new_facts(store, bank, ids, neighbours, decisions=ctx.decisions(), document=document,
                                verdicts={}, scope=mine)
        store.jobs.enqueue(bank.id, "consolidate")
    return fact_memory_id(ids[0])


def dismiss(ctx: BankContext, held: str) -> None:
    """Stop listing the held statement ``held``: it stays in its verbatim source and is never a fact."""
    with ctx.store.write():
        if ctx.store.held.drop(ctx.bank.id, held_number(held)) == 0:
            raise HeldNotFoundError()
