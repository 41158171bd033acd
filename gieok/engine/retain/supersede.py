"""Supersede at retain: when a new statement updates an older one, close the older version.

Candidates for "the statement this one updates" are few and cheap: the facts said just before it
in the same conversation (where corrections live: "아니, 금요일 말고 월요일"), its nearest
neighbours by vector (found anyway for semantic links), its best BM25 matches and recent facts
sharing a named entity with it ("삼성 다니다가 카카오로 옮겼어" after "나 삼성 다녀"). The bank's
decision model decides each pair (the task ``updates``: offline the rules of
``gieok.lifecycle.detect_update``; the bank's LLM or a plugin when the bank chooses one); it must be
precise rather than broad, because wrongly hiding a true memory costs more than keeping a stale one
visible. A pair must be close — among each other's nearest vectors or said just
before in the same conversation — unless the model is sure (``STRONG_CONFIDENCE``) and the older
statement was found through a shared entity rather than by shared words alone.

A document is reference text, not statements over time: its sections never close one another (a
guide's FAQ is not replaced by its outage section), nor those of another document (two manuals
that disagree are both cited, not one hidden). A new version of a document — the same
``document_id`` retained with changed text — replaces only its changed chunks, in retain itself
(unchanged chunks and their facts stay as they are; see ``gieok.engine.retain.plan``); its facts
may still update what conversations said.

Only statements by the same speaker are paired (Caroline's move does not close Melanie's address;
an assistant repeating something back updates nothing). Order is decided by when each statement
was *said* (``mentioned_at``), not when it was retained: an older statement retained late is
itself closed by the newer one already stored, never the other way round. Nothing is deleted:
the older fact gets ``valid_to`` and ``superseded_by``.

Judging a pair is the slow part (a long message brings hundreds of pairs), and it needs no lock:
:func:`prejudge_updates` judges, before retain takes the write lock, every pair it can already see
(the new facts among themselves, and the stored facts their vectors, their words and their
conversation's last messages point to). Inside the lock :func:`supersede_new_facts` reads those
verdicts and judges only what it meets that the planner could not see (a fact found through an
entity resolved in the lock, one another writer stored meanwhile): the same verdicts, a shorter lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from gieok.engine.retain.doubt import may_replace
from gieok.engine.retain.link import SEMANTIC_NEIGHBOURS, merged_hits
from gieok.engine.speakers import is_agent
from gieok.entities import candidate_keys
from gieok.providers.decisions import Decision, DecisionModel
from gieok.records import FactRow, NewFact, ScopeFilter
from gieok.store.protocol import BankRow, Store
from gieok.text.terms import keyword_terms

__all__ = ["supersede_new_facts", "prejudge_updates", "Verdicts", "MIN_CONFIDENCE"]

MIN_CONFIDENCE = 0.5
# A "yes" below this probability needs the two statements to be near neighbours by vector as well: on LoCoMo the
# topic-and-cue rule fired on pairs far apart in meaning (27 supersedes, all wrong, R@10 0.721 → 0.697);
# on the knowledge-update set the true pairs were nearly all among each other's five nearest.
STRONG_CONFIDENCE = 0.85
_NEAREST = SEMANTIC_NEIGHBOURS  # the semantic links' nearest: one search before the lock serves both
_NEAREST_CANDIDATES = 4  # of a new fact's nearest, those that are candidates whatever else found them
_SAME_SOURCE_BEFORE = 6
_PER_ENTITY = 8
_HUB_DEGREE = 300
_KEYWORD_NEIGHBOURS = 4

_COMMON_TERM = 64  # a word in more new facts than this does not decide which of them BM25 ranks first
# (older text, newer text) -> the decision model's answer, judged before the lock
Verdicts = dict[tuple[str, str], Decision]


def ask(decisions: DecisionModel, older: FactRow | NewFact, newer: FactRow | NewFact) -> Decision:
    """Does ``newer`` update ``older``? The bank's decision model answers the task ``updates``."""
    return decisions.decide("updates", earlier=older.text, later=newer.text, earlier_speaker=older.speaker or "",
                            later_speaker=newer.speaker or "")


def prejudge_updates(store: Store, bank: BankRow | None, source_id: str, facts: Sequence[NewFact],
                     vectors: np.ndarray, names: Sequence[Sequence[str]], now: float, *,
                     decisions: DecisionModel, document: bool = False,
                     scope: ScopeFilter | None = None, nearest: Sequence[Sequence[tuple[int, float]]] | None = None,
                     first_id: int = 0, entities: Sequence[Sequence[int]] | None = None) -> Verdicts:
    """Before the write lock: the verdicts of the pairs :func:`supersede_new_facts` will most likely
    judge, for the planned ``facts`` (their own ``vectors``, row by row; ``names``: their entity
    names) of source ``source_id``. Only a cache: a pair missing here is judged in the lock, a pair
    judged here and never met costs only the time it took. ``nearest``: each fact's nearest stored
    facts when the caller searched them already (``gieok.engine.retain.link.find_nearest``), and
    ``first_id`` the id the first planned fact will likely get: the nearest the lock will see are
    then known exactly (stored and planned facts merged), and only those are judged. ``entities``: per
    fact, the stored entities its planned resolution names (``gieok.engine.retain.resolve``)."""
    verdicts: Verdicts = {}
    if nearest is None and bank is not None and len(vectors):  # all of them in one search
        nearest = store.search.vector_many(bank.id, bank.dim, vectors, _NEAREST + 1, scope=scope)
        first_id = store.facts.last_id(bank.id) + 1
    near = _planned_near(nearest or [[] for _ in facts], first_id, vectors)
    said = [f.mentioned_at if f.mentioned_at is not None else now for f in facts]

    def judge(older: FactRow | NewFact, newer: FactRow | NewFact) -> None:
        if (older.text, newer.text) not in verdicts:
            verdicts[(older.text, newer.text)] = ask(decisions, older, newer)

    keys_of = [sorted({k for name in fact_names for k in candidate_keys(name)}) for fact_names in names]
    by_key = _postings(keys_of)  # an entity key -> the new facts naming it, in order
    if not document:  # a document's facts never close one another
        for j, close in enumerate(_close_new_facts(facts, [planned for _, planned in near], keys_of, by_key)):
            for i in close:
                a, b = facts[i], facts[j]
                if a.speaker == b.speaker and not is_agent(a.speaker):
                    older, newer = (a, b) if (said[i], i) < (said[j], j) else (b, a)
                    judge(older, newer)
    if bank is None:
        return verdicts
    row = store.sources.row(bank.id, source_id)
    wanted = _stored_candidates(store, bank, row[0] if row else None, facts, [stored for stored, _ in near], by_key,
                                document, scope, entities)
    for found in store.facts.get(bank.id, sorted(wanted)):
        if found.valid_to is not None or (document and row and found.source_id == row[0]):
            continue
        for j in wanted[found.id]:
            if found.speaker == facts[j].speaker and not is_agent(found.speaker):
                if (_said(found), 0) <= (said[j], 1):
                    judge(found, facts[j])
                else:
                    judge(facts[j], found)
    return verdicts


def _planned_near(nearest: Sequence[Sequence[tuple[int, float]]], first_id: int,
                  vectors: np.ndarray) -> list[tuple[list[int], list[int]]]:
    """Per planned fact, the nearest others the lock will take as candidates: (stored fact ids, indexes
    of planned facts) — the stored hits merged with the planned facts, which get ids from ``first_id``."""
    ids = list(range(first_id, first_id + len(vectors)))
    out = []
    for j, hits in enumerate(merged_hits(nearest, ids, vectors) if len(vectors) else []):
        near = [i for i, _ in hits if i != ids[j]][:_NEAREST_CANDIDATES]
        out.append(([i for i in near if i < first_id], [i - first_id for i in near if i >= first_id]))
    return out


def _search_terms(texts: Sequence[str]) -> list[list[str]]:
    """Each text's keyword query for finding its candidates: its terms, less those more than
    ``_COMMON_TERM`` of the call's texts share. Such a word cannot pick one fact of a long message
    over another, and every search for it would read postings as long as the message, so the
    searches of a long message would grow with its square. A call of fewer texts keeps every term."""
    terms = [list(keyword_terms(text)) for text in texts]
    if len(texts) <= _COMMON_TERM:
        return terms
    counts = Counter(t for ts in terms for t in set(ts))
    return [[t for t in ts if counts[t] <= _COMMON_TERM] for ts in terms]


def _postings(items: Sequence[Sequence[str]] | Sequence[frozenset[str]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for j, keys in enumerate(items):
        for key in keys:
            out.setdefault(key, []).append(j)
    return out


def _close_new_facts(facts: Sequence[NewFact], nearest: Sequence[Sequence[int]], keys_of: Sequence[Sequence[str]],
                     by_key: dict[str, list[int]]) -> list[set[int]]:
    """Per new fact, the other new facts the lock will pair it with: said just before it, its nearest
    vectors (``nearest``, from :func:`_planned_near`), the latest facts naming its entities, and
    (roughly) its best BM25 matches."""
    terms = [frozenset(keyword_terms(f.text)) for f in facts]
    by_term = _postings(terms)
    out: list[set[int]] = []
    for j in range(len(facts)):
        close = set(range(max(0, j - _SAME_SOURCE_BEFORE), j)) | set(nearest[j])
        for key in keys_of[j]:
            close |= set(by_key[key][-_PER_ENTITY:])
        shared = Counter(i for t in terms[j] if len(by_term[t]) <= _COMMON_TERM for i in by_term[t])
        # the lock's BM25 search returns the fact itself first, then its best others
        close |= {i for i, _ in shared.most_common(_KEYWORD_NEIGHBOURS + 1)}
        close.discard(j)
        out.append(close)
    return out


def _stored_candidates(store: Store, bank: BankRow, source: int | None, facts: Sequence[NewFact],
                       nearest: Sequence[Sequence[int]], by_key: dict[str, list[int]], document: bool,
                       scope: ScopeFilter | None = None,
                       entities: Sequence[Sequence[int]] | None = None) -> dict[int, set[int]]:
    """Stored fact id -> the new facts the lock will pair it with (nearest vectors: ``nearest``, from
    :func:`_planned_near`; best BM25 matches, the conversation's last facts, the latest facts of the
    entities they name: ``entities``, per new fact the stored entities its planned resolution names,
    or else every entity sharing a name key with its mentions)."""
    recent = ([i for i, _ in store.facts.recent_of_source(source, _SAME_SOURCE_BEFORE)]
              if source and not document else [])
    wanted: dict[int, set[int]] = {}
    queries = _search_terms([f.text for f in facts])
    for j, query in enumerate(queries):
        # the bank without the new fact: its best others are what the lock's search finds after itself
        hits = store.search.keyword(bank.id, query, _KEYWORD_NEIGHBOURS, scope=scope) if query else []
        # said just before: the new facts before this one come first, the stored ones fill what is left
        for i in [*nearest[j], *(i for i, _ in hits), *recent[:max(0, _SAME_SOURCE_BEFORE - j)]]:
            wanted.setdefault(i, set()).add(j)
    naming: dict[int, set[int]] = {}  # a stored entity -> the new facts naming it
    if entities is not None:  # the resolution planned for the lock: the entities it will find
        for j, ids in enumerate(entities):
            for entity_id in ids:
                naming.setdefault(entity_id, set()).add(j)
    else:
        for key, js in by_key.items():
            for entity in store.graph.entities_by_keys(bank.id, [key]):
                naming.setdefault(entity.id, set()).update(js)
    degrees = store.graph.entity_degrees(sorted(naming))
    specific = [e for e in naming if degrees.get(e, 0) + len(naming[e]) <= _HUB_DEGREE]
    of_entities = store.graph.facts_of_entities(specific, _PER_ENTITY, scope) if specific else {}
    for entity_id, fact_ids in of_entities.items():
        # the lock reads an entity's latest facts with the new ones written: they come first
        for i in fact_ids[:max(0, _PER_ENTITY - len(naming[entity_id]))] if entities is not None else fact_ids:
            wanted.setdefault(i, set()).update(naming[entity_id])
    return wanted


def _said(fact: FactRow) -> float:
    return fact.mentioned_at if fact.mentioned_at is not None else fact.created_at


def _candidates(store: Store, bank: BankRow, facts: dict[int, FactRow], neighbours: dict[int, list[tuple[int, float]]],
                scope: ScopeFilter | None = None,
                ) -> tuple[dict[int, set[int]], dict[int, set[int]], dict[int, set[int]]]:
    """Candidates per new fact, plus which of them only BM25 found and which were said just before
    in the same conversation."""
    fact_ids = list(facts)
    source_ids = {i: f.source_id for i, f in facts.items()}
    out: dict[int, set[int]] = {i: {o for o, _ in neighbours.get(i, [])[:_NEAREST_CANDIDATES]} for i in fact_ids}
    words: dict[int, set[int]] = {}
    recent: dict[int, set[int]] = {}
    by_source: dict[int, list[int]] = {}  # the same recent facts serve every new fact of a source
    queries = dict(zip(fact_ids, _search_terms([f.text for f in facts.values()])))
    for fact_id in fact_ids:  # the same words in another session ("라떼 … 두유" → "라떼 … 귀리우유")
        hits = store.search.keyword(bank.id, queries[fact_id], _KEYWORD_NEIGHBOURS + 1, scope=scope) \
            if queries[fact_id] else []
        words[fact_id] = {i for i, _ in hits} - out[fact_id]
        out[fact_id] |= {i for i, _ in hits}
    entities = store.graph.entities_of_facts(list(fact_ids))
    wanted = sorted({e for es in entities.values() for e in es})
    degrees = store.graph.entity_degrees(wanted)
    specific = [e for e in wanted if degrees.get(e, 0) <= _HUB_DEGREE]
    by_entity = store.graph.facts_of_entities(specific, _PER_ENTITY, scope) if specific else {}
    for fact_id in fact_ids:
        for entity in entities.get(fact_id, []):
            out[fact_id] |= set(by_entity.get(entity, []))
        source = source_ids.get(fact_id)
        if source is not None:
            if source not in by_source:
                recent_rows = store.facts.recent_of_source(source, _SAME_SOURCE_BEFORE + len(fact_ids))
                by_source[source] = [i for i, _ in recent_rows]
            earlier = sorted((i for i in by_source[source] if i < fact_id), reverse=True)
            recent[fact_id] = set(earlier[:_SAME_SOURCE_BEFORE])  # said just before, not anywhere in the call
            out[fact_id] |= recent[fact_id]
        out[fact_id].discard(fact_id)
    return out, words, recent


def supersede_new_facts(store: Store, bank: BankRow, fact_ids: Sequence[int],
                        neighbours: dict[int, list[tuple[int, float]]], *, decisions: DecisionModel,
                        document: bool = False, verdicts: Mapping[tuple[str, str], Decision] | None = None,
                        scope: ScopeFilter | None = None) -> list[tuple[int, int, str]]:
    """Detect and record updates among the new facts and what the bank holds; returns
    (old fact, new fact, reason) for every version closed. ``decisions``: the bank's decision model,
    asked the task ``updates`` for each candidate pair. ``document``: the new facts are a
    document's, which never close facts of the same document. ``verdicts``: pairs judged before the
    lock (:func:`prejudge_updates`). ``scope`` (:func:`gieok.engine.scopes.own_facts`) keeps the
    candidates to the new facts' own user. Runs inside retain's write transaction."""
    if not fact_ids:
        return []
    new_rows = {f.id: f for f in store.facts.get(bank.id, fact_ids)}
    candidates, by_words_only, same_source = _candidates(store, bank, new_rows, neighbours, scope)
    nearest = {i: {o for o, _ in neighbours.get(i, [])[:_NEAREST]} for i in new_rows}
    others = {f.id: f for f in store.facts.get(bank.id, sorted({c for cs in candidates.values() for c in cs}))}
    closed: list[tuple[int, int, str]] = []
    done: set[int] = set()
    theirs: dict[int, set[int]] = {}
    known = dict(verdicts or {})

    def verdict(older: FactRow, newer: FactRow) -> Decision:
        key = (older.text, newer.text)
        if key not in known:
            known[key] = ask(decisions, older, newer)
        return known[key]

    def nearest_of(other: int) -> set[int]:
        """The other fact's own nearest neighbours: closeness must hold both ways (a new fact's are
        known: its KNN, itself left out)."""
        if other in neighbours:
            return {i for i, _ in neighbours[other][:_NEAREST]}
        if other not in theirs:
            vector = store.search.vectors_of(bank.dim, [other]).get(other)
            hits = [] if vector is None else store.search.vector(bank.id, bank.dim, vector, _NEAREST + 1, scope=scope)
            theirs[other] = {i for i, _ in hits if i != other}
        return theirs[other]

    for fact_id in sorted(new_rows, key=lambda i: (_said(new_rows[i]), i)):
        fact = new_rows[fact_id]
        best: tuple[float, FactRow, FactRow, str] | None = None
        for cid in candidates.get(fact_id, ()):
            other = others.get(cid) or new_rows.get(cid)
            if other is None or other.id in done:
                continue
            if document and (other.source_id == fact.source_id or other.decay_class == "document"):
                continue  # sections of documents: reference text, not one statement replacing another
            older, newer = (other, fact) if (_said(other), other.id) < (_said(fact), fact.id) else (fact, other)
            if older.valid_to is not None or older.id in done:
                continue  # already closed by another version
            if older.speaker != newer.speaker or is_agent(newer.speaker):
                continue  # one person's new job does not close another's; an assistant's echo updates nothing
            if older.scope.user_id != newer.scope.user_id:
                continue  # nor one user's another user's, even under the same speaker name ("user")
            if not may_replace(newer, older):
                continue  # a forwarded e-mail or a web page never replaces what the user said
            decision = verdict(older, newer)
            if not decision.yes or decision.probability < MIN_CONFIDENCE:
                continue
            close = cid in same_source.get(fact_id, set()) or (
                cid in nearest.get(fact_id, set()) and fact_id in nearest_of(cid))
            if not close and (decision.probability < STRONG_CONFIDENCE or cid in by_words_only.get(fact_id, set())):
                continue
            if best is None or decision.probability > best[0]:
                best = (decision.probability, older, newer, f"{decision.provider}: {decision.reason}")
        if best is not None:
            _, older, newer, reason = best
            store.versions.supersede(older.id, newer.id, _said(newer), reason[:200])
            done.add(older.id)
            closed.append((older.id, newer.id, reason))
    return closed
