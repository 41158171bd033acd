"""What recall (and browsing) returns for a fact: a :class:`RecalledMemory` built from its row, told
which earlier statement it replaced, where in its document it stands, and why it fades as it does."""

from __future__ import annotations

from typing import Any

from gieok.engine._time import from_epoch
from gieok.engine.retain.doubt import trust_of
from gieok.ids import fact_memory_id, fact_number
from gieok.lifecycle import classify_memory
from gieok.records import ChannelHit, FactRow, RecalledMemory
from gieok.store.protocol import Store

__all__ = ["fact_to_memory", "add_versions", "add_locations", "decay_verdict"]


def fact_to_memory(fact: FactRow, score: float, channels: dict[str, ChannelHit]) -> RecalledMemory:
    return RecalledMemory(
        id=fact_memory_id(fact.id),
        text=fact.text,
        score=score,
        kind=fact.kind,
        type="fact",
        source_id=fact.source_external_id,
        source_ids=list(fact.message_ids) or [fact.source_external_id],
        speaker=fact.speaker,
        occurred_start=from_epoch(fact.occurred_start, fact.utc_offset),
        occurred_end=from_epoch(fact.occurred_end, fact.utc_offset),
        mentioned_at=from_epoch(fact.mentioned_at, fact.utc_offset),
        channels=channels,
        tokens=fact.tokens,
        valid_from=from_epoch(fact.valid_from, fact.utc_offset),
        valid_to=from_epoch(fact.valid_to, fact.utc_offset),
        decay_class=fact.decay_class,
        pinned=fact.pinned,
        strength=fact.strength,
        user_id=fact.scope.user_id,
        agent_id=fact.scope.agent_id,
        session_id=fact.scope.session_id,
        tags=list(fact.scope.tags),
        metadata=dict(fact.metadata),
        trust=trust_of(fact),
    )


def add_locations(store: Store, pairs: list[tuple[RecalledMemory, int]]) -> None:
    """Give each memory of an ingested document its chunk's location (page / heading path / span)."""
    found = store.sources.chunk_locations(sorted({chunk for _, chunk in pairs})) if pairs else {}
    for memory, chunk in pairs:
        memory.location = found.get(chunk)


def add_versions(store: Store, memories: list[RecalledMemory]) -> None:
    """Say when a memory replaced an earlier statement (and, under as_of, when it was later replaced)."""
    ids = [fact_number(m.id) for m in memories]
    lifecycle = store.versions.state_of([i for i in ids if i is not None])
    for memory, fact_id in zip(memories, ids):
        info = lifecycle.get(fact_id) if fact_id is not None else None
        if info:
            memory.supersedes = [fact_memory_id(i) for i in sorted(info["supersedes"])]
            memory.superseded_by = fact_memory_id(info["superseded_by"]) if info["superseded_by"] else None


def decay_verdict(fact: FactRow) -> dict[str, Any]:
    """Why a fact fades as it does: its class, importance and strength now, and the classifier's reason
    (or that the class was given on retain, or that it is part of a document)."""
    verdict = classify_memory(fact.text, fact.speaker)
    if fact.decay_class == "document":
        reason = "part of a document: reference text does not fade"
    elif fact.decay_class == verdict.decay_class:
        reason = verdict.reason
    else:
        reason = f"set on retain (the classifier says {verdict.decay_class}: {verdict.reason})"
    return {"class": fact.decay_class, "importance": fact.importance, "strength": fact.strength,
            "pinned": fact.pinned, "reason": reason}
