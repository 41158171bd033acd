"""How recall merges its channels' ranked lists into one pool.

``rrf_fuse`` is Reciprocal Rank Fusion: score(d) = sum over channels of 1 / (k + rank(d)), k = 20 (at
the customary 60, a fact ranked 6th by one channel lost to facts ranked 40th by two). RRF needs no
score calibration between channels (BM25 and cosine live on different scales). Its order is the pool's
starting order and, with ``fusion=rrf``, the final one; by default the learned ranker
(:mod:`gieok.engine.recall.rank_model`) orders the pool, reading each channel's rank itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gieok.engine.recall.gather import Gathered
from gieok.records import ChannelHit

__all__ = ["Fused", "RRF_K", "fuse_channels", "rrf_fuse"]

Fused = list[tuple[int, float, dict[str, ChannelHit]]]  # (fact id, fused score, {channel: hit}), best first
RRF_K = 20


def fuse_channels(gathered: Gathered) -> Fused:
    """The channels' rankings as one list, by RRF at k = 20 with equal weights."""
    return rrf_fuse(gathered.rankings, k=RRF_K)


def rrf_fuse(
    rankings: Mapping[str, Sequence[tuple[int, float]]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> Fused:
    """Fuse ranked lists ``{channel: [(id, raw score), ...best first]}``.

    Returns ``(id, fused score, {channel: ChannelHit})`` best first; ties keep the order in which ids
    were first seen so the result is deterministic.
    """
    fused: dict[int, float] = {}
    hits: dict[int, dict[str, ChannelHit]] = {}
    for channel, ranked in rankings.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        for rank, (item, raw) in enumerate(ranked, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
            hits.setdefault(item, {})[channel] = ChannelHit(rank=rank, score=float(raw))
    order = sorted(fused, key=lambda i: -fused[i])
    return [(i, fused[i], hits[i]) for i in order]
