"""Supersede at retain: when a new statement updates an older one, close the older version.

Candidates for "the statement this one updates" are few and cheap: the facts said just before it
in the same conversation (where corrections live: "아니, 금요일 말고 월요일"), its nearest
neighbours by vector (found anyway for semantic links), its best BM25 matches and recent facts
sharing a named entity with it ("삼성 다니다가 카카오로 옮겼어" after "나 삼성 다녀"). ``gieok.lifecycle.detect_update``
decides each pair; it is precise rather than broad, because wrongly hiding a true memory costs
more than keeping a stale one visible. A pair must be close — among each other's nearest vectors or
said just before in the same conversation — unless the verdict is explicit ("X 말고 Y", "from X to
Y") and the older statement was found through a shared entity rather than by shared words alone.

A document is reference text, not statements over time: its sections never close one another (a
guide's FAQ is not replaced by its outage section), nor those of another document (two manuals
that disagree are both cited, not one hidden). A new version of a document — the same
``document_id`` retained with changed text — replaces only its changed chunks, in retain itself
(unchanged chunks and their facts stay as they are; see ``gieok.engine._retain_plan``); its facts
may still update what conversations said.

Only statements by the same speaker are paired (Caroline's move does not close Melanie's address;
an assistant repeating something back updates nothing). Order is decided by when each statement
was *said* (``mentioned_at``), not when it was retained: an older statement retained late is
itself closed by the newer one already stored, never the other way round. Nothing is deleted:
the older fact gets ``valid_to`` and ``superseded_by``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gieok.engine._speakers import is_agent
from gieok.lifecycle import detect_update
from gieok.records import FactRow
from gieok.store.protocol import BankRow, Store
from gieok.text.terms import keyword_terms

__all__ = ["supersede_new_facts", "MIN_CONFIDENCE"]

MIN_CONFIDENCE = 0.5
# A verdict below this needs the two statements to be near neighbours by vector as well: on LoCoMo the
# topic-and-cue rule fired on pairs far apart in meaning (27 supersedes, all wrong, R@10 0.721 → 0.697);
# on the knowledge-update set the true pairs were nearly all among each other's five nearest.
STRONG_CONFIDENCE = 0.85
_NEAREST = 5
_SAME_SOURCE_BEFORE = 6
_PER_ENTITY = 8
_HUB_DEGREE = 300
_KEYWORD_NEIGHBOURS = 4


def _said(fact: FactRow) -> float:
    return fact.mentioned_at if fact.mentioned_at is not None else fact.created_at


def _candidates(store: Store, bank: BankRow, facts: dict[int, FactRow], neighbours: dict[int, list[tuple[int, float]]],
                ) -> tuple[dict[int, set[int]], dict[int, set[int]], dict[int, set[int]]]:
    """Candidates per new fact, plus which of them only BM25 found and which were said just before
    in the same conversation."""
    fact_ids = list(facts)
    source_ids = {i: f.source_id for i, f in facts.items()}
    out: dict[int, set[int]] = {i: {o for o, _ in neighbours.get(i, [])[:4]} for i in fact_ids}
    words: dict[int, set[int]] = {}
    recent: dict[int, set[int]] = {}
    by_source: dict[int, list[int]] = {}  # the same recent facts serve every new fact of a source
    for fact_id, fact in facts.items():  # the same words in another session ("라떼 … 두유" → "라떼 … 귀리우유")
        hits = store.keyword_search(bank.id, keyword_terms(fact.text), _KEYWORD_NEIGHBOURS + 1)
        words[fact_id] = {i for i, _ in hits} - out[fact_id]
        out[fact_id] |= {i for i, _ in hits}
    entities = store.entities_of_facts(list(fact_ids))
    wanted = sorted({e for es in entities.values() for e in es})
    degrees = store.entity_degrees(wanted)
    specific = [e for e in wanted if degrees.get(e, 0) <= _HUB_DEGREE]
    by_entity = store.facts_of_entities(specific, _PER_ENTITY) if specific else {}
    for fact_id in fact_ids:
        for entity in entities.get(fact_id, []):
            out[fact_id] |= set(by_entity.get(entity, []))
        source = source_ids.get(fact_id)
        if source is not None:
            if source not in by_source:
                recent_rows = store.recent_facts_of_source(source, _SAME_SOURCE_BEFORE + len(fact_ids))
                by_source[source] = [i for i, _ in recent_rows]
            earlier = sorted((i for i in by_source[source] if i < fact_id), reverse=True)
            recent[fact_id] = set(earlier[:_SAME_SOURCE_BEFORE])  # said just before, not anywhere in the call
            out[fact_id] |= recent[fact_id]
        out[fact_id].discard(fact_id)
    return out, words, recent


def supersede_new_facts(store: Store, bank: BankRow, fact_ids: Sequence[int],
                        neighbours: dict[int, list[tuple[int, float]]], *,
                        document: bool = False) -> list[tuple[int, int, str]]:
    """Detect and record updates among the new facts and what the bank holds; returns
    (old fact, new fact, reason) for every version closed. ``document``: the new facts are a
    document's, which never close facts of the same document. Runs inside retain's write transaction."""
    if not fact_ids:
        return []
    new_rows = {f.id: f for f in store.get_facts(bank.id, fact_ids)}
    candidates, by_words_only, same_source = _candidates(store, bank, new_rows, neighbours)
    nearest = {i: {o for o, _ in neighbours.get(i, [])[:_NEAREST]} for i in new_rows}
    others = {f.id: f for f in store.get_facts(bank.id, sorted({c for cs in candidates.values() for c in cs}))}
    closed: list[tuple[int, int, str]] = []
    done: set[int] = set()
    theirs: dict[int, set[int]] = {}

    def nearest_of(other: int) -> set[int]:
        """The other fact's own nearest neighbours: closeness must hold both ways."""
        if other not in theirs:
            vector = store.vectors_of(bank.dim, [other]).get(other)
            hits = store.vector_search(bank.id, bank.dim, vector, _NEAREST + 1) if vector is not None else []
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
            verdict = detect_update(older.text, newer.text)
            if verdict is None or verdict.confidence < MIN_CONFIDENCE:
                continue
            close = cid in same_source.get(fact_id, set()) or (
                cid in nearest.get(fact_id, set()) and fact_id in nearest_of(cid))
            if not close and (verdict.confidence < STRONG_CONFIDENCE or cid in by_words_only.get(fact_id, set())):
                continue
            if best is None or verdict.confidence > best[0]:
                best = (verdict.confidence, older, newer, f"{verdict.kind}: {verdict.reason}")
        if best is not None:
            _, older, newer, reason = best
            store.supersede(older.id, newer.id, _said(newer), reason[:200])
            done.add(older.id)
            closed.append((older.id, newer.id, reason))
    return closed
