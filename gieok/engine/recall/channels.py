"""The semantic, graph and temporal recall channels.

**Semantic** — every fact has its own vector ("speaker: text"); a reply also has a second one that
sees the message it answers ("Yes, twice!" means little alone). A fact's semantic score is the mean
of the query's cosine with both (its own alone when it has no second vector): measured with
e5-small, ranking by both beats either vector alone on LoCoMo and on our Korean set (dense R@10 0.633 vs
0.627 / 0.534, and 0.731 vs 0.639 / 0.700) — the context lifts English replies and dilutes Korean ones.

**Graph** — start from the query's own entities and from the best semantic and keyword hits
(seeds), then reach facts that share an entity with them or are linked to them. An entity's pull is
divided by √(number of facts mentioning it), so hubs (the user, a speaker named in every other
message) cannot flood the result. This is how "민지 팀장은 무슨 운동 해?" reaches a fact about
필라테스 that never says 운동.

**Temporal** — when the query names a time ("지난주", "in June", "3월부터 5월까지"), facts whose
occurred range (or, without one, the time they were said) overlaps it, scored by how close their
middle is to the range's middle, then spread one step along temporal and causal links.

Under a recall's scope filter (:mod:`gieok.engine.scopes`) every store query here is handed the
filter and applies it in SQL — the KNNs, the entity and link expansions, the time range — so a
channel ranks up to its limit of facts in scope and never reaches another user's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gieok.entities import CandidateEntity, EntityResolver, candidate_keys, extract_mentions, name_similarity
from gieok.records import FactRow, ScopeFilter
from gieok.store.protocol import BankRow, Store
from gieok.text.korean import has_hangul
from gieok.text.sentences import asks_only

__all__ = ["Similarity", "own_similarity", "query_entities", "semantic_channel", "graph_channel", "temporal_channel"]

_RESOLVER = EntityResolver()
RELEVANCE_POOL = 300
HUB_SHARE = 0.05  # an entity in more than this share of a bank's facts is a hub...
HUB_MIN = 20  # ...once it is in more than this many
_CAUSAL_AND_TEMPORAL = ("temporal", "caused_by", "enables", "prevents")


@dataclass(frozen=True)
class Similarity:
    """The query's cosine with facts' own vectors as one KNN saw them: exact for the nearest,
    and for any other fact at most the last of those (``bound``; None when the KNN saw them all)."""

    known: dict[int, float]
    bound: float | None

    def of(self, fact_id: int) -> float:
        if fact_id in self.known:
            return self.known[fact_id]
        return self.bound if self.bound is not None else min(self.known.values(), default=0.0)


def own_similarity(store: Store, bank: BankRow, query_vector: np.ndarray, reach: int,
                   scope: ScopeFilter | None = None) -> Similarity:
    """One KNN over the facts' own vectors (in ``scope``), ``reach`` deep."""
    known = dict(store.search.vector(bank.id, bank.dim, query_vector, reach, scope=scope))
    return Similarity(known, min(known.values()) if len(known) >= reach else None)


def semantic_channel(store: Store, bank: BankRow, query_vector: np.ndarray, limit: int,
                     similarity: Similarity | None = None, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
    """Cosine KNN over both vector views, each candidate scored by the mean of its two similarities.

    A candidate one view did not return is scored there by a bound instead of a lookup (reading
    vectors by id from sqlite-vec scans the table): if that view returned ``limit`` hits, its
    similarity is at most the last of them; if it returned fewer, it returned every fact it holds,
    and the candidate has no context vector, so its own similarity stands in. Measured against
    exact lookups: the same or better R@10 (LoCoMo 0.769 vs 0.766, Korean 0.749 vs 0.739).
    ``similarity`` is a deeper KNN over the own vectors already made (for the graph channel)."""
    if similarity is None:
        similarity = own_similarity(store, bank, query_vector, limit, scope)
    own = dict(sorted(similarity.known.items(), key=lambda kv: -kv[1])[:limit])
    context = dict(store.search.vector(bank.id, bank.dim, query_vector, limit, view="context", scope=scope))
    own_bound = min(own.values()) if len(own) >= limit else None
    context_bound = min(context.values()) if len(context) >= limit else None
    scores = {}
    for fact_id in {**own, **context}:
        if fact_id not in own:  # every fact has its own vector: this one's is below the bound
            theirs = context[fact_id]
            mine = min(theirs, own_bound) if own_bound is not None else theirs
        else:
            mine = own[fact_id]
            if fact_id in context:
                theirs = context[fact_id]
            else:
                theirs = min(mine, context_bound) if context_bound is not None else mine
        scores[fact_id] = (mine + theirs) / 2  # ranks as the sum; stays on the cosine scale
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def query_entities(store: Store, bank: BankRow, query: str, known: Sequence[str] = ()) -> dict[int, float]:
    """Entities the query names, with a weight (split between candidates when ambiguous)."""
    found: dict[int, float] = {}
    for mention in extract_mentions(query, known=known):
        rows = store.graph.entities_by_keys(bank.id, candidate_keys(mention.name))
        if not rows:
            continue
        candidates = [CandidateEntity(str(r.id), r.canonical_name, r.aliases, r.titles, r.kind,
                                      r.cooccurring) for r in rows]
        resolution = _RESOLVER.resolve(mention, candidates)
        if resolution.status == "match" and resolution.entity_id is not None:
            found[int(resolution.entity_id)] = max(found.get(int(resolution.entity_id), 0.0), 1.0)
        else:
            # a bare name the resolver will not merge on its own (민지 → 김민지) still points at the
            # name-compatible candidates; share the weight between them
            ids = [int(s.entity_id) for s in resolution.scores] or [r.id for r in rows]
            for entity_id in ids:
                found[entity_id] = max(found.get(entity_id, 0.0), 1.0 / len(ids))
    return found


def _same_person(name: str, speaker: str) -> bool:
    """"민지" and "김민지", "John" and "John Smith" (the resolver's name rules), and "Mel" and
    "Melanie": a query's name for someone who speaks in the bank."""
    if name_similarity(name, [speaker]) is not None:
        return True
    short, long = sorted((name.casefold().strip(), speaker.casefold().strip()), key=len)
    return len(short) >= 3 and not has_hangul(long) and long.startswith(short)  # a shortened first name


def named_speakers(query: str, speakers: Sequence[str]) -> set[str]:
    """The bank's speakers the query names."""
    return {s for m in extract_mentions(query, known=speakers) for s in speakers if _same_person(m.name, s)}


def graph_channel(store: Store, bank: BankRow, query: str, seeds: Sequence[tuple[int, float]],
                  limit: int, similarity: Similarity | None = None, pool: Sequence[FactRow] = (),
                  per_entity: int = 200, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
    """Facts about whom and what the query names, then facts reached from the seeds through
    specific entities and links (seeds excluded: the other channels already rank them).

    "About" means mentioning a named entity or, for a person who speaks in the bank, having been
    said by them ("What did Caroline paint?" is answered in Caroline's own words, which rarely
    name her); among the other channels' candidates (``pool``) only, so a hub's hundreds of facts
    are never read. Entities mentioned in more than :data:`HUB_SHARE` of the bank's facts (the
    user, the two speakers of a long chat) reach nothing from the seeds: sharing them says little."""
    scores: dict[int, float] = defaultdict(float)
    pool_facts = list(pool)
    speakers = sorted({f.speaker for f in pool_facts if f.speaker})
    named = query_entities(store, bank, query, speakers)
    by_speaker = named_speakers(query, speakers)
    for fact in pool_facts:
        if fact.speaker in by_speaker and not asks_only(fact.text):  # a question states nothing of its asker
            scores[fact.id] += 1.0
    seed_weight = dict(seeds)
    reached: dict[int, float] = defaultdict(float)
    for fact_id, entities in store.graph.entities_of_facts(list(seed_weight)).items():
        for entity_id in entities:
            reached[entity_id] += seed_weight[fact_id]
    everything = set(named) | set(reached)
    if everything:
        degrees = store.graph.entity_degrees(list(everything))
        hub = max(HUB_MIN, HUB_SHARE * store.facts.count(bank.id))
        for entity_id in [e for e in reached if degrees.get(e, 0) > hub]:
            del reached[entity_id]
        for entity_id, facts in store.graph.facts_of_entities([e for e in everything if e in named or e in reached],
                                                         per_entity, scope).items():
            damping = 1.0 / math.sqrt(max(1, degrees.get(entity_id, 1)))
            for fact_id in facts:
                if entity_id in named:
                    scores[fact_id] += 2.0 * named[entity_id] * damping
                if entity_id in reached and fact_id not in seed_weight:
                    scores[fact_id] += reached[entity_id] * damping
    for seed, other, _type, weight in store.graph.links_of(list(seed_weight), scope=scope):
        if other not in seed_weight:
            scores[other] += 0.5 * seed_weight[seed] * weight
    if similarity is not None and len(scores) > 1:
        strongest = dict(sorted(scores.items(), key=lambda kv: -kv[1])[:RELEVANCE_POOL])
        scores = _weigh_by_relevance(strongest, similarity)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:limit]


def _weigh_by_relevance(scores: dict[int, float], similarity: Similarity) -> dict[int, float]:
    """Connection alone does not order a hub's hundreds of facts; the query's similarity does.

    Each reached fact's pull is multiplied by exp(z), z being its cosine with the query standardised
    over the reached set — relative, so no absolute cosine threshold is assumed for the model. The
    cosines come from recall's one deep KNN (a fact beyond it gets its bound), not from reading
    vectors by id."""
    ids = list(scores)
    sims = np.array([similarity.of(i) for i in ids])
    z = (sims - sims.mean()) / (sims.std() + 1e-9)
    return {i: scores[i] * math.exp(float(zi)) for i, zi in zip(ids, z)}


def temporal_channel(store: Store, bank: BankRow, start: float, end: float, limit: int,
                     scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
    middle = (start + end) / 2
    half = max((end - start) / 2, 3600.0)
    scores: dict[int, float] = {}
    for fact_id, f_start, f_end in store.facts.in_range(bank.id, start, end, 5 * limit, scope):
        distance = abs((f_start + f_end) / 2 - middle)
        scores[fact_id] = 1.0 / (1.0 + distance / half)
    top = sorted(scores.items(), key=lambda kv: -kv[1])[:20]
    for seed, other, _type, weight in store.graph.links_of([f for f, _ in top], _CAUSAL_AND_TEMPORAL, scope):
        spread = 0.5 * scores[seed] * weight
        if spread > scores.get(other, 0.0):
            scores[other] = spread
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
