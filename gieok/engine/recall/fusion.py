"""How recall fuses its channels' ranked lists into one.

* ``rrf_fuse`` — Reciprocal Rank Fusion: score(d) = sum over channels of weight / (k + rank(d)).
  RRF needs no score calibration between channels (BM25 and cosine live on different scales), which
  is why it is the default. Weights let a more reliable channel count for more.
* ``weighted_fuse`` — the weighted sum of the short/long-term memory design: score(d) =
  w_rel · relevance(d) + w_imp · importance(d) + w_rec · exp(−age(d) / τ), relevance being the
  query's cosine min-max scaled over the candidates (e5's cosines of one query span a few
  hundredths, which the other two terms would drown: raw cosines measured LoCoMo R@10 0.115, scaled
  0.509). The channels only nominate candidates; their ranks do not count (setting
  ``fusion=weighted``; docs/concepts/recall.md has both measured against RRF).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gieok.records import ChannelHit

__all__ = ["rrf_fuse", "weighted_fuse"]


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


def weighted_fuse(
    rankings: Mapping[str, Sequence[tuple[int, float]]],
    features: Mapping[int, tuple[float, float, float]],
    weights: tuple[float, float, float] = (0.6, 0.2, 0.2),
    tau_days: float = 30.0,
) -> list[tuple[int, float, dict[str, ChannelHit]]]:
    """Fuse like :func:`rrf_fuse`, scoring each nominated id by ``features[id] = (cosine, importance,
    age in days)``: ``w_rel·relevance + w_imp·importance + w_rec·exp(−age/tau_days)``, relevance the
    cosine min-max scaled over the ids (1.0 when all are equal). An id without features (its memory is
    gone) is left out; ties keep first-seen order."""
    hits: dict[int, dict[str, ChannelHit]] = {}
    for channel, ranked in rankings.items():
        for rank, (item, raw) in enumerate(ranked, start=1):
            hits.setdefault(item, {})[channel] = ChannelHit(rank=rank, score=float(raw))
    w_rel, w_imp, w_rec = weights
    present = [item for item in hits if item in features]
    cosines = [features[item][0] for item in present]
    low, span = (min(cosines), max(cosines) - min(cosines)) if cosines else (0.0, 0.0)
    fused = {}
    for item in present:
        cosine, importance, age_days = features[item]
        relevance = (cosine - low) / span if span > 0 else 1.0
        fused[item] = w_rel * relevance + w_imp * importance + w_rec * math.exp(-max(0.0, age_days) / tau_days)
    order = sorted(fused, key=lambda i: -fused[i])
    return [(i, fused[i], hits[i]) for i in order]
