"""Recall: the memories a question needs, best first, inside a token budget. Never calls an LLM.

Channels each return a ranked list of fact ids: ``semantic`` (cosine KNN over the bank's vectors)
and ``keyword`` (Okapi BM25 over Korean lemmas and English stems). Reciprocal Rank Fusion merges
them; facts that are no longer valid (superseded or expired) are dropped; the budget is filled
greedily. Every memory says which channel found it and at what rank.
"""

from __future__ import annotations

from datetime import datetime

from gieok.engine._time import from_epoch
from gieok.engine.budget import fill_budget
from gieok.engine.fusion import rrf_fuse
from gieok.providers.embedders import Embedder
from gieok.records import ChannelHit, FactRow, Recall, RecalledMemory
from gieok.settings import Settings
from gieok.store.protocol import BankRow, Store
from gieok.text.terms import keyword_terms

__all__ = ["recall", "fact_to_memory", "fact_id_of", "memory_id_of"]


def memory_id_of(fact_id: int) -> str:
    return f"f-{fact_id}"


def fact_id_of(memory_id: str) -> int | None:
    if memory_id.startswith("f-") and memory_id[2:].isdigit():
        return int(memory_id[2:])
    return None


def fact_to_memory(fact: FactRow, score: float, channels: dict[str, ChannelHit]) -> RecalledMemory:
    return RecalledMemory(
        id=memory_id_of(fact.id),
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
    )


def _is_current(fact: FactRow, now_ts: float) -> bool:
    if fact.valid_to is not None and fact.valid_to <= now_ts:
        return False
    return not (fact.expires_at is not None and fact.expires_at <= now_ts)


def recall(store: Store, bank: BankRow, embedder: Embedder, settings: Settings, query: str, *,
           now: datetime, max_tokens: int | None, limit: int | None) -> Recall:
    pool = settings.candidates
    rankings = {
        "semantic": store.vector_search(bank.id, bank.dim, embedder.embed_query(query), pool),
        "keyword": store.keyword_search(bank.id, keyword_terms(query), pool, settings.keyword_context_weight),
    }
    weights = {"semantic": settings.semantic_weight, "keyword": settings.keyword_weight}
    fused = rrf_fuse(rankings, k=settings.rrf_k, weights=weights)
    facts = {f.id: f for f in store.get_facts(bank.id, [i for i, _, _ in fused])}
    now_ts = now.timestamp()
    candidates = [
        fact_to_memory(facts[i], score, hits)
        for i, score, hits in fused
        if i in facts and _is_current(facts[i], now_ts)
    ]
    if limit is None and max_tokens is None:
        limit = settings.default_limit
    chosen, used = fill_budget(candidates, lambda m: m.tokens, max_tokens, limit)
    return Recall(query=query, bank=bank.name, memories=chosen, total_tokens=used, max_tokens=max_tokens, now=now)
