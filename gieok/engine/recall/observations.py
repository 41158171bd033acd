"""Observations in recall: their own memory type (``o-<id>``), ranked beside facts.

A bank holds few observations (one per entity or speaker topic), so they are scored exactly: cosine
of the query vector against every observation vector, plus keyword overlap. Each joins the pool as a
candidate of its own, ranked by the learned ranker beside facts, its one list standing where a fact's
semantic rank would (``observation_candidates``: how many compete; 0 leaves them out). Under
``as_of`` they are left out: an observation is today's belief.

Under a scope filter an observation is ranked only if every fact it rests on is in scope (the store
checks it in SQL); consolidation already writes one observation per topic and user, so a user's
observation holds only that user's facts. An observation's scope is what all its facts share.
"""

from __future__ import annotations

import numpy as np

from gieok.engine._time import from_epoch
from gieok.engine.context import BankContext
from gieok.engine.scopes import common_scope
from gieok.ids import fact_memory_id, observation_memory_id
from gieok.records import ChannelHit, RecalledMemory, ScopeFilter
from gieok.store.protocol import BankRow, Store

__all__ = ["observation_ranking", "observation_memory", "observation_memories"]


def observation_ranking(store: Store, bank: BankRow, query_vector: np.ndarray | None, query_terms: tuple[str, ...],
                        limit: int, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
    ids, vectors = store.observations.vectors(bank.id, scope)
    if not ids or vectors is None:
        return []
    scores = np.zeros(len(ids), dtype=np.float64)
    if query_vector is not None:
        scores += vectors @ np.asarray(query_vector, dtype=np.float32)
    wanted = set(query_terms)
    if wanted:
        overlap = {oid: len(wanted & set(terms.split())) / len(wanted)
                   for oid, terms in store.observations.terms(bank.id, scope)}
        scores += 0.5 * np.array([overlap.get(oid, 0.0) for oid in ids])
    order = np.argsort(-scores)[:limit]
    return [(ids[i], float(scores[i])) for i in order]


def observation_memory(store: Store, bank: BankRow, observation_id: int, score: float,
                       channels: dict[str, ChannelHit]) -> RecalledMemory | None:
    found = store.observations.get(bank.id, [observation_id])
    if not found:
        return None
    obs = found[0]
    facts = store.facts.get(bank.id, obs.fact_ids)
    message_ids = list(dict.fromkeys(m for f in facts for m in f.message_ids))
    sources = list(dict.fromkeys(f.source_external_id for f in facts))
    scope = common_scope([f.scope for f in facts])
    return RecalledMemory(
        id=observation_memory_id(obs.id), text=obs.text, score=score, kind="world", type="observation",
        source_id=sources[0] if sources else "", source_ids=message_ids or sources, speaker=None,
        occurred_start=None, occurred_end=None, mentioned_at=from_epoch(obs.believed_at), channels=channels,
        tokens=obs.tokens, supersedes=[], based_on=[fact_memory_id(i) for i in obs.fact_ids],
        user_id=scope.user_id, agent_id=scope.agent_id, session_id=scope.session_id, tags=list(scope.tags),
    )


def observation_memories(ctx: BankContext, query_vector: object | None, terms: tuple[str, ...],
                         scope: ScopeFilter | None = None) -> list[RecalledMemory]:
    """Observations (in ``scope``) ranked exactly, best first; their scores are the ranking's (the
    scoring stage gives each its final score)."""
    out = []
    ranked = observation_ranking(ctx.store, ctx.bank, query_vector, terms,  # type: ignore[arg-type]
                                 ctx.settings.observation_candidates, scope)
    for rank, (obs_id, score) in enumerate(ranked, start=1):
        memory = observation_memory(ctx.store, ctx.bank, obs_id, score,
                                    {"observation": ChannelHit(rank=rank, score=score)})
        if memory is not None:
            out.append(memory)
    return out
