"""Bounded BM25: the keyword channel reads at most about ``keyword_postings`` postings per query.

Okapi BM25 over an OR of phrases scores every fact that holds any of them, so a query with a word
that a tenth of a million-fact bank holds scores a hundred thousand facts (0.1–0.5 s in FTS5) to
return a hundred. Both stores therefore plan a query the same way, here; they supply the four
primitives of :class:`KeywordIndex` and the plan is the same whatever the store:

1. Count each phrase's facts, stopping at ``cap + 1`` (``count``). Every count at most ``cap`` in
   total: the exact query, as before (every small bank, and most queries of a large one).
2. Otherwise the phrases, rarest first, join the *selective* set while their counts add up to at
   most ``cap``; the rest are *common*. The facts holding a selective phrase are scored with full
   BM25 (every phrase's own statistics, so a fact's score is what the exact query gives it): those
   that also hold a common phrase in one query (``selective AND common``), the others by the
   selective phrases alone (a fact without a common phrase scores only those).
3. A fact holding only common phrases scores at most ``(k1 + 1) · Σ idf(common)`` (BM25's term
   frequency saturates below ``k1 + 1``; a capped count only lowers the df, so raises the bound).
   When the ``limit``-th selective fact scores at least that, the answer is the exact one. When it
   does not, or when no phrase is selective, the newest facts are scored too: the facts newer than
   each common phrase's ``⌈cap / #common⌉``-th newest posting (``newest``), so that slice holds at
   most that many postings of each.

``exact`` (the benchmarks' exact scan) and ``cap <= 0`` skip the plan. Ties are broken by fact id,
lowest first, on every path."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

__all__ = ["BM25_B", "BM25_K1", "KeywordIndex", "bounded_bm25", "idf"]

BM25_K1 = 1.2
BM25_B = 0.75


def idf(docs: int, matching: int) -> float:
    """BM25's idf as FTS5 computes it (a non-positive value becomes 1e-6)."""
    value = math.log((docs - matching + 0.5) / (matching + 0.5))
    return value if value > 0 else 1e-6


class KeywordIndex(Protocol):
    """What a store answers for :func:`bounded_bm25`; phrases are given by their index in the query."""

    def count(self, phrase: int, at_most: int) -> int:
        """Facts holding the phrase (in the searched fields), counting no further than ``at_most``."""
        ...

    def newest(self, phrase: int, nth: int) -> int | None:
        """The fact id of the phrase's ``nth`` newest posting (highest ids first); None if it has fewer."""
        ...

    def score(self, groups: Sequence[Sequence[int]], min_id: int | None, limit: int) -> list[tuple[int, float]]:
        """BM25 over the phrases of all ``groups`` (each phrase in exactly one) of the facts holding at
        least one phrase of every group (and with an id of at least ``min_id``), best ``limit``."""
        ...

    def docs(self) -> int:
        """The bank's fact count (BM25's N)."""
        ...


def _best(hits: dict[int, float], limit: int) -> list[tuple[int, float]]:
    return sorted(hits.items(), key=lambda item: (-item[1], item[0]))[:limit]


def bounded_bm25(index: KeywordIndex, phrases: int, limit: int, cap: int) -> list[tuple[int, float]]:
    """The query's best ``limit`` facts by BM25, planned as the module docstring says."""
    everything = list(range(phrases))
    if cap <= 0:
        return _best(dict(index.score([everything], None, limit)), limit)
    counts = [index.count(p, cap + 1) for p in everything]
    if sum(counts) <= cap:
        return _best(dict(index.score([everything], None, limit)), limit)
    selective: list[int] = []
    total = 0
    for p in sorted(everything, key=lambda p: (counts[p], p)):
        if total + counts[p] > cap:
            break
        selective.append(p)
        total += counts[p]
    common = [p for p in everything if p not in selective]
    hits: dict[int, float] = {}
    if selective:
        hits.update(index.score([selective], None, limit))  # the selective phrases' share of every such fact
        hits.update(index.score([selective, common], None, limit))  # full scores of those with a common one
        best = _best(hits, limit)
        docs = index.docs()
        bound = (BM25_K1 + 1) * sum(idf(docs, counts[p]) for p in common)
        if len(best) == limit and best[-1][1] >= bound:
            return best
    nth = -(-cap // len(common))
    newest = [n for n in (index.newest(p, nth) for p in common) if n is not None]
    for fact_id, value in index.score([everything], max(newest) if newest else None, limit):
        hits[fact_id] = max(value, hits.get(fact_id, value))
    return _best(hits, limit)
