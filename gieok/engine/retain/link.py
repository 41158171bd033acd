"""Retain-time linking: entities resolved per bank, temporal and semantic links between facts.

The slow part runs before retain takes the write lock: :func:`find_mentions` extracts each new
fact's entity mentions (Kiwi for Korean, proper-noun spans for English) with the conversation's
speakers, the bank's recent entity names and the names found earlier in the call as known names,
and :mod:`gieok.engine.retain.resolve` resolves them against a snapshot of the bank's entities (an
ambiguous mention is linked to nothing, because a wrong edge costs more than a missing one).
:func:`link_new_facts` runs inside retain's write transaction, after the facts are inserted, so a
fact can link to facts written earlier in the same call.
* **Temporal links** — each fact to the previous facts of the same source said within six hours,
  weight 1 / (1 + Δt/1h).
* **Semantic links** — to the nearest facts whose cosine similarity is unusually high *for this
  bank's embedder*: above the mean + 3 standard deviations of similarities between unrelated facts,
  estimated from a sample of the bank's vectors. Absolute cosine thresholds do not transfer between
  models (USE gives Korean paraphrases low cosines, e5 high ones with tiny margins); a z-score does.

The nearest facts are searched before the lock too, all of a call's new facts in one batched
search (:func:`find_nearest`: one read of the bank instead of a KNN per fact; supersede's candidate
search reuses it). Inside the lock :func:`nearest_after_write` merges those hits with the call's own
facts, scored among themselves in numpy: the same neighbours a KNN per fact after the write would
return — unless another writer added or removed facts meanwhile, and then the lock searches again.
(In a bank searched through clusters, ``ann_min_vectors`` facts and up, the call's own facts are
thus compared with each other exactly, where a KNN after the write would find them only in the
clusters it probes.)
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gieok._nearest import nearest_rows
from gieok.entities import KindOf, Mention, extract_mentions, fact_contexts
from gieok.providers.decisions import DecisionModel
from gieok.records import NewFact, ScopeFilter
from gieok.store.protocol import BankRow, Store

__all__ = ["FactMentions", "Nearest", "find_mentions", "find_nearest", "kind_judge", "link_new_facts",
           "merged_hits", "nearest_after_write", "TEMPORAL_NEIGHBOURS", "SEMANTIC_NEIGHBOURS"]

TEMPORAL_NEIGHBOURS = 2
TEMPORAL_WINDOW = 6 * 3600.0
RECENT_ENTITY_NAMES = 200
SEMANTIC_NEIGHBOURS = 5
SEMANTIC_Z = 3.0


@dataclass(frozen=True)
class FactMentions:
    """One new fact's entity mentions and, per mention, its context keys (found before the lock)."""

    mentions: list[Mention]
    contexts: list[frozenset[str]]


def kind_judge(decisions: DecisionModel | None) -> KindOf | None:
    """What kind each mention names, asked of the bank's decision model (task ``entity_kind``);
    None: the extractor's own learned head, without the detour through a provider."""
    if decisions is None:
        return None

    def kind_of(text: str, start: int, end: int) -> tuple[str, float]:
        decision = decisions.decide("entity_kind", text=text, mention=text[start:end], start=str(start))
        return decision.answer, decision.probability

    return kind_of


def find_mentions(store: Store, bank: BankRow | None, facts: Sequence[NewFact],
                  speakers: Sequence[str], decisions: DecisionModel | None = None) -> list[FactMentions]:
    """Every new fact's mentions, aligned with ``facts``, each of the kind ``decisions`` (the bank's
    decision model) judges. Names the bank already knows are found even where the extractor alone
    would not trust them (a sentence-initial "Caroline", a name Kiwi splits into common nouns), and
    so is a name found earlier in the same call."""
    known = [*speakers, *(store.graph.recent_entity_names(bank.id, RECENT_ENTITY_NAMES) if bank is not None else [])]
    kind_of = kind_judge(decisions)
    out = []
    for fact in facts:
        mentions = extract_mentions(fact.text, fact.speaker, known=known, kind_of=kind_of)
        out.append(FactMentions(mentions, fact_contexts(mentions, fact.text) if mentions else []))
        known += [m.name for m in mentions if m.name not in known]
    return out


def _temporal_links(store: Store, source_id: int, fact_ids: Sequence[int],
                    facts: Sequence[NewFact]) -> list[tuple[int, int, str, float]]:
    links = []
    previous = store.facts.recent_of_source(source_id, TEMPORAL_NEIGHBOURS + len(fact_ids))
    times = dict(previous)
    for fact_id, fact in zip(fact_ids, facts):
        times[fact_id] = fact.mentioned_at
    ordered = sorted(times)
    for fact_id in fact_ids:
        i = ordered.index(fact_id)
        for other in ordered[max(0, i - TEMPORAL_NEIGHBOURS) : i]:
            a, b = times.get(other), times.get(fact_id)
            gap = abs(b - a) if a is not None and b is not None else 0.0
            if gap <= TEMPORAL_WINDOW:  # a message weeks later is not "close in time"
                links.append((other, fact_id, "temporal", 1.0 / (1.0 + gap / 3600.0)))
    return links


def _similarity_threshold(store: Store, bank: BankRow, vectors: np.ndarray) -> float | None:
    sample = store.search.sample(bank.id, bank.dim, 256)
    if len(sample) < 20 or len(vectors) == 0:
        return None  # too little to calibrate on: no semantic links yet
    sims = (vectors @ sample.T).ravel()
    sims = sims[sims < 0.9999]  # leave out a fact compared with itself
    if len(sims) < 20:
        return None
    return float(sims.mean() + SEMANTIC_Z * sims.std())


Hits = list[tuple[int, float]]  # (fact id, cosine similarity), best first, as store.search.vector returns them


@dataclass(frozen=True)
class Nearest:
    """The planned facts' nearest stored facts, searched before the write lock in one batched search."""

    watermark: int  # the bank's greatest fact id before the search (store.facts.last_id)
    at: float  # when it was read: a fact created later is not one the search saw
    hits: list[Hits]  # per planned fact, in the plan's order, SEMANTIC_NEIGHBOURS + 1 of them
    vectors: np.ndarray  # the planned facts' own vectors the search was made with, row by row


def find_nearest(store: Store, bank: BankRow | None, vectors: np.ndarray,
                 scope: ScopeFilter | None = None) -> Nearest:
    """Before the lock: every planned fact's nearest stored facts (within ``scope``), one search for all."""
    watermark, at = (store.facts.last_id(bank.id) if bank is not None else 0), time.time()
    if bank is None or not len(vectors):
        return Nearest(watermark, at, [[] for _ in range(len(vectors))], vectors)
    return Nearest(watermark, at, store.search.vector_many(bank.id, bank.dim, vectors, SEMANTIC_NEIGHBOURS + 1,
                                                           scope=scope), vectors)


def nearest_after_write(store: Store, bank: BankRow, before: Nearest, ids: Sequence[int]) -> dict[int, Hits] | None:
    """In the lock, once this call's facts (``ids``, in the plan's order, the rows of ``before.vectors``)
    are written: each one's hits as a KNN would now return them (itself included) — the stored facts found
    before the lock merged with the call's own facts, ties by id. None when another writer added facts
    meanwhile: then the caller searches again. A fact one of whose hits is gone (deleted since — a
    re-retained message's old facts are, in this very call — or its id reused) is left out: the
    caller searches that one again."""
    if len(ids) != len(before.hits) or len(ids) != len(before.vectors):
        return None
    if store.facts.newer_than(bank.id, before.watermark) != sorted(ids):
        return None
    stored = sorted({i for hits in before.hits for i, _ in hits})
    still = {row.id for row in (store.facts.get(bank.id, stored) if stored else []) if row.created_at <= before.at}
    merged = merged_hits(before.hits, ids, before.vectors)
    return {int(fact_id): hits for fact_id, hits, found in zip(ids, merged, before.hits)
            if all(i in still for i, _ in found)}


def merged_hits(stored: Sequence[Sequence[tuple[int, float]]], ids: Sequence[int], vectors: np.ndarray) -> list[Hits]:
    """Per row of ``vectors`` (facts ``ids``): the SEMANTIC_NEIGHBOURS + 1 nearest of its ``stored`` hits
    and of the rows themselves (itself included), best first, ties by id — a KNN over the bank with
    these facts in it, given each one's KNN over the bank without them."""
    limit = SEMANTIC_NEIGHBOURS + 1
    matrix = np.asarray(vectors, dtype=np.float32)
    own = nearest_rows(np.asarray(ids, dtype=np.int64), matrix, matrix, limit)
    return [sorted({**dict(stored[j]), **dict(own[j])}.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]
            for j in range(len(ids))]


def _semantic_links(store: Store, bank: BankRow, fact_ids: Sequence[int], vectors: np.ndarray,
                    neighbours: dict[int, list[tuple[int, float]]], scope: ScopeFilter | None = None,
                    found: Mapping[int, Hits] | None = None) -> list[tuple[int, int, str, float]]:
    """Links to unusually similar facts (within ``scope``); fills ``neighbours`` (each fact's nearest,
    any similarity). ``found``: each fact's hits already known (:func:`nearest_after_write`)."""
    threshold = _similarity_threshold(store, bank, vectors)
    links = []
    for fact_id, vector in zip(fact_ids, vectors):
        hits = found[fact_id] if found is not None and fact_id in found else \
            store.search.vector(bank.id, bank.dim, vector, SEMANTIC_NEIGHBOURS + 1, scope=scope)
        near = [(o, s) for o, s in hits if o != fact_id]
        neighbours[fact_id] = near
        if threshold is None:
            continue
        for other, similarity in near:
            if similarity >= threshold:
                links.append((min(other, fact_id), max(other, fact_id), "semantic", float(similarity)))
    return links


def link_new_facts(store: Store, bank: BankRow, source_id: int, fact_ids: Sequence[int],
                   facts: Sequence[NewFact], vectors: np.ndarray, scope: ScopeFilter | None = None,
                   found: Mapping[int, Hits] | None = None) -> dict[int, list[tuple[int, float]]]:
    """Write one source's new facts' temporal and semantic links; returns each new fact's nearest
    neighbours (for versions). ``scope`` (:func:`gieok.engine.scopes.own_facts`) keeps the semantic
    neighbours to the facts' own user. ``found``: the facts' hits from :func:`nearest_after_write`
    (a fact missing there is searched)."""
    neighbours: dict[int, list[tuple[int, float]]] = {}
    links = (_temporal_links(store, source_id, fact_ids, facts)
             + _semantic_links(store, bank, fact_ids, vectors, neighbours, scope, found))
    store.graph.add_links(bank.id, links)
    return neighbours
