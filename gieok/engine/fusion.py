"""Reciprocal Rank Fusion: score(d) = sum over channels of weight / (k + rank(d)).

RRF needs no score calibration between channels (BM25 and cosine live on different scales), which
is why it is the default. Weights let a more reliable channel count for more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gieok.records import ChannelHit

__all__ = ["rrf_fuse"]


def rrf_fuse(
    rankings: Mapping[str, Sequence[tuple[int, float]]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[int, float, dict[str, ChannelHit]]]:
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
