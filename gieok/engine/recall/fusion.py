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

``fuse_channels`` is recall's fusion stage: it fuses what :func:`gieok.engine.recall.gather.gather`
found, with the channels' weights (or, for ``fusion=weighted``, each candidate's features).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gieok.engine.context import BankContext
from gieok.engine.recall.channels import Similarity
from gieok.engine.recall.gather import CHANNELS, Gathered
from gieok.records import ChannelHit, FactRow
from gieok.text.korean import has_hangul

__all__ = ["Fused", "fuse_channels", "rrf_fuse", "weighted_fuse"]

Fused = list[tuple[int, float, dict[str, ChannelHit]]]  # (fact id, fused score, {channel: hit}), best first
_DAY = 86400.0


def fuse_channels(ctx: BankContext, query: str, gathered: Gathered, now_ts: float) -> Fused:
    """The channels' rankings as one list: RRF with each channel's weight (``korean_keyword_weight``
    for the keyword channel when the query is Korean), or the weighted sum (``fusion=weighted``), which
    reads the rows of every nominated fact into ``gathered.facts`` for their features."""
    settings = ctx.settings
    if settings.fusion != "weighted":
        weights = {name: float(getattr(settings, f"{name}_weight")) for name in CHANNELS}
        if has_hangul(query):
            weights["keyword"] = float(settings.korean_keyword_weight)
        return rrf_fuse(gathered.rankings, k=settings.rrf_k, weights=weights)
    facts = gathered.facts
    nominated = list(dict.fromkeys(i for ranked in gathered.rankings.values() for i, _ in ranked))
    facts.update((f.id, f) for f in ctx.store.facts.get(ctx.bank.id, [i for i in nominated if i not in facts]))
    features = weighted_features(facts, dict(gathered.rankings.get("semantic", [])), gathered.similarity, now_ts)
    return weighted_fuse(gathered.rankings, features, (settings.weighted_relevance, settings.weighted_importance,
                                                       settings.weighted_recency), settings.weighted_recency_days)


def weighted_features(facts: Mapping[int, FactRow], semantic: Mapping[int, float], similarity: Similarity | None,
                      now_ts: float) -> dict[int, tuple[float, float, float]]:
    """(cosine, importance, age in days) of each candidate for ``fusion=weighted``. The cosine is the
    semantic channel's (a reply's two views averaged); a candidate only another channel found gets
    its own-vector cosine from the deeper KNN, or that KNN's bound (at most the last cosine it saw)."""
    out = {}
    for fact_id, fact in facts.items():
        cosine = semantic.get(fact_id)
        if cosine is None and similarity is not None:
            cosine = similarity.known.get(fact_id, similarity.bound or 0.0)
        said = fact.mentioned_at if fact.mentioned_at is not None else now_ts
        out[fact_id] = (max(0.0, cosine or 0.0), fact.importance, (now_ts - said) / _DAY)
    return out


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


def weighted_fuse(
    rankings: Mapping[str, Sequence[tuple[int, float]]],
    features: Mapping[int, tuple[float, float, float]],
    weights: tuple[float, float, float] = (0.6, 0.2, 0.2),
    tau_days: float = 30.0,
) -> Fused:
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
