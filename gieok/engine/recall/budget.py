"""Recall's last stage: rerank the head, fill the token budget, and build the memories returned.

The budget is filled greedily: best first, skip what does not fit, always return the best one. An
optional reranker reorders the scored top-N first (if it cannot be reached, the scored order stands).
Memory objects are built only for what is returned (a recall scores a few hundred candidates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from gieok.engine._time import from_epoch
from gieok.engine.context import BankContext
from gieok.engine.recall.memories import add_locations, add_versions, decay_verdict, fact_to_memory
from gieok.engine.recall.score import Candidate
from gieok.errors import RerankerUnavailableError
from gieok.providers.rerankers import Reranker
from gieok.records import ChannelHit, RecalledMemory

__all__ = ["choose", "explanation_of", "fill_budget"]

T = TypeVar("T")


def choose(ctx: BankContext, query: str, scored: list[Candidate], time_range: tuple[float, float] | None, *,
           max_tokens: int | None, limit: int | None, explain: bool) -> tuple[list[RecalledMemory], int]:
    """The memories returned, best first, and the tokens they use: the reranked head, then the budget."""
    settings, reranker = ctx.settings, ctx.reranker
    chunk_of: dict[str, int] = {}

    def build(candidate: Candidate) -> RecalledMemory:
        if candidate.memory is not None:  # an observation
            candidate.memory.score = candidate.score
            if explain:
                candidate.memory.explanation = explanation_of(candidate, None)
            return candidate.memory
        assert candidate.features is not None  # a candidate is a fact or a memory already built
        memory = memory_of(candidate, time_range, explain)
        chunk_of[memory.id] = candidate.features.fact.chunk_id
        return memory

    if reranker is not None and scored:
        head = rerank(reranker, query, [build(c) for c in scored[: settings.rerank_top]], settings.rerank_top,
                      explain)
        scored = [Candidate(m.score, m.tokens, memory=m) for m in head] + scored[settings.rerank_top:]
    if limit is None and max_tokens is None:
        limit = settings.default_limit
    picked, used = fill_budget(scored, lambda c: c.tokens, max_tokens, limit)
    chosen = [build(c) for c in picked]
    add_versions(ctx.store, chosen)
    add_locations(ctx.store, [(m, chunk_of[m.id]) for m in chosen if m.id in chunk_of])
    return chosen, used


def memory_of(candidate: Candidate, time_range: tuple[float, float] | None, explain: bool) -> RecalledMemory:
    """The memory a fact candidate becomes, with its explanation when ``explain``."""
    features = candidate.features
    assert features is not None
    memory = fact_to_memory(features.fact, candidate.score, features.channels)
    if explain:
        memory.explanation = explanation_of(candidate, time_range)
    return memory


def explanation_of(candidate: Candidate, time_range: tuple[float, float] | None) -> dict[str, object]:
    """What ``explain=True`` shows of a candidate: each channel's rank and score, the RRF score, the
    ranker's features, their contributions to its score (they and ``bias`` sum to ``ranker``; the
    score is its logistic) and the multipliers after it."""
    features = candidate.features
    hits = features.channels if features is not None else (candidate.memory.channels if candidate.memory else {})
    out: dict[str, object] = {
        "channels": {name: {"rank": h.rank, "score": h.score} for name, h in hits.items()},
        "fused": features.fused if features is not None else None,
        **(candidate.explained or {}),
        "multipliers": candidate.multipliers,
        "time_range": [from_epoch(t).isoformat() for t in time_range] if time_range else None,  # type: ignore[union-attr]
    }
    if features is not None:
        out["decay"] = decay_verdict(features.fact)
    return out


def rerank(reranker: Reranker, query: str, memories: list[RecalledMemory], top: int,
           explain: bool) -> list[RecalledMemory]:
    """Reorder the fused top-N by the reranker; if it cannot be reached, keep the fused order."""
    head, tail = memories[:top], memories[top:]
    try:
        order = reranker.rerank(query, [m.text for m in head])
    except RerankerUnavailableError:
        return memories
    reordered = []
    for rank, (index, score) in enumerate(order, start=1):
        memory = head[index]
        memory.channels = {**memory.channels, "rerank": ChannelHit(rank=rank, score=float(score))}
        if explain and memory.explanation is not None:
            memory.explanation["rerank"] = {"rank": rank, "score": float(score)}
        reordered.append(memory)
    return reordered + tail


def fill_budget(items: Sequence[T], cost: Callable[[T], int], max_tokens: int | None,
                limit: int | None) -> tuple[list[T], int]:
    """Take items in order while they fit ``max_tokens`` (an item that does not fit is skipped and
    the next one is tried); stop at ``limit`` items. The first item is always returned, even when it
    alone exceeds the budget, so a caller never gets nothing for a question memory can answer."""
    chosen: list[T] = []
    used = 0
    for item in items:
        if limit is not None and len(chosen) >= limit:
            break
        c = cost(item)
        if max_tokens is not None and chosen and used + c > max_tokens:
            continue
        chosen.append(item)
        used += c
    return chosen, used
