"""Recall: the memories a question needs, best first, inside a token budget. Never calls an LLM.

Four channels each rank fact ids: ``semantic`` (cosine KNN over each fact's own vector and a
reply's vector with its context, averaged), ``keyword`` (Okapi BM25 over Korean lemmas and English
stems), ``graph`` (what the people the query names said, facts naming its entities, and facts
sharing specific entities or links with the best hits of the first two) and ``temporal`` (facts in
the time range the query names), plus ``profile`` for a question about a profile slot. Their union is
the pool; a learned ranker (gradient-boosted trees over each candidate's channel ranks, cosines, BM25,
age, time fit, speaker, message and version features; trained on labelled conversations) orders it.
Facts no longer valid are dropped; the token budget is filled greedily; an optional reranker reorders
the top-N. Every memory says which channel found it and at what rank.

A recall's scope (:mod:`gieok.engine.scopes`) is a filter every channel applies in SQL — semantic,
keyword, graph, temporal and observations — plus, with ``scopes=`` weights, a ``scope`` multiplier.

The stages live in their own modules: :mod:`~gieok.engine.recall.gather` (the channels),
:mod:`~gieok.engine.recall.fusion`, :mod:`~gieok.engine.recall.score` (each candidate's features and
ranked score; the model in :mod:`~gieok.engine.recall.rank_model`) and
:mod:`~gieok.engine.recall.budget` (rerank, budget, the memories returned).
"""

from __future__ import annotations

from datetime import datetime, timezone

from gieok.engine._time import TimeLike, to_datetime
from gieok.engine._validate import check_encodable
from gieok.engine.context import BankContext
from gieok.engine.recall.budget import choose
from gieok.engine.recall.fusion import fuse_channels
from gieok.engine.recall.gather import CHANNELS, gather
from gieok.engine.recall.memories import add_locations, add_versions, fact_to_memory
from gieok.engine.recall.score import score_candidates
from gieok.engine.scopes import UNFILTERED, RecallScope
from gieok.errors import InputError
from gieok.ids import fact_number
from gieok.records import Recall

__all__ = ["recall", "fact_to_memory", "add_locations", "add_versions", "CHANNELS"]


def recall(ctx: BankContext, query: str, *, max_tokens: int | None = None, limit: int | None = None,
           now: TimeLike | None = None, explain: bool = False, as_of: TimeLike | None = None,
           scope: RecallScope = UNFILTERED) -> Recall:
    """The memories ``query`` needs, best first (see the module docstring); validates its input and
    restarts the decay clock of what it returns (``refresh_on_recall``). ``scope`` (from
    :func:`gieok.engine.scopes.recall_scope`) filters and re-weighs."""
    if not isinstance(query, str):
        raise InputError(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise InputError("query is empty: ask something")
    check_encodable(query, "query")
    for name, value in (("max_tokens", max_tokens), ("limit", limit)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            raise InputError(f"{name} must be a positive whole number, e.g. {name}=10")
    when = to_datetime(now, "now") if now is not None else datetime.now(timezone.utc)
    then = to_datetime(as_of, "as_of") if as_of is not None else None
    result = _rank(ctx, query, now=when, max_tokens=max_tokens, limit=limit, explain=explain, as_of=then,
                   scope=scope)
    if ctx.settings.refresh_on_recall and then is None and result.memories:
        ctx.engine.marks.add([i for i in (fact_number(m.id) for m in result.memories) if i is not None],
                             when.timestamp())
        ctx.engine.marks.flush(wait=False)
    return result


def _rank(ctx: BankContext, query: str, *, now: datetime, max_tokens: int | None, limit: int | None,
          explain: bool, as_of: datetime | None, scope: RecallScope) -> Recall:
    """Gather the channels, fuse them, score the candidates, then rerank and fill the budget."""
    gathered = gather(ctx, query, now, scope)
    fused = fuse_channels(gathered)
    scored = score_candidates(ctx, query, gathered, fused, now=now, as_of=as_of, scope=scope, explain=explain)
    chosen, used = choose(ctx, query, scored, gathered.time_range, max_tokens=max_tokens, limit=limit,
                          explain=explain)
    return Recall(query=query, bank=ctx.bank.name, memories=chosen, total_tokens=used, max_tokens=max_tokens,
                  now=now, time_range=gathered.time_range_dt)
