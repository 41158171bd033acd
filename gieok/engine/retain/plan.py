"""Retain's planning: everything that happens before the write lock, for messages and documents.

A plan is the list of chunks to write, each with its facts (deterministic, or the LLM's narrative
facts when one is configured), the facts' vectors (every fact its own; a reply a second one that
sees the message it answers), the entity mentions of every fact and the extractor's causal links.
Nothing here writes: the pipeline in :mod:`gieok.engine.retain.run` stores a plan in one transaction.

Conversations: each message is its own chunk (hash of speaker, time and text), so re-retaining a
conversation skips messages already stored and re-extracts only changed ones. Documents: chunks at
paragraph boundaries, matched by SHA-256 with the chunks stored for the same ``document_id``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from gieok.engine._edge import check_length
from gieok.engine._time import to_datetime
from gieok.engine._validate import check_encodable
from gieok.engine.retain.link import FactMentions, find_mentions
from gieok.engine.speakers import AGENT_SPEAKERS
from gieok.errors import ExtractionError, InputError, InvalidMessageError, LLMError, SpendLimitError
from gieok.extract import SourceItem, chunk_document, extract_facts, facts_from_text
from gieok.extract.filler_model import filler_model, names_something, short_enough
from gieok.lifecycle import classify_memory
from gieok.providers.decisions import DecisionModel, create_learned
from gieok.providers.embedders import Embedder
from gieok.records import Message, NewFact
from gieok.settings import Settings
from gieok.store.protocol import BankRow, Store
from gieok.temporal import find_time_expressions
from gieok.text.sentences import ends_asking
from gieok.text.terms import keyword_terms
from gieok.text.tokens import count_tokens

__all__ = ["make_fact", "normalize_messages", "FactOptions", "Plan", "PlannedChunk", "CausalLink", "plan_messages",
           "plan_document", "content_sha", "embed_text", "reply_context", "section_context"]

Progress = Callable[[int], None] | None


@dataclass(frozen=True)
class FactOptions:
    """Caller overrides of the lifecycle the classifier would give each fact of one retain call."""

    decay_class: str | None = None
    importance: float | None = None
    pinned: bool | None = None
    expires_at: float | None = None
    document: bool = False  # facts of a document: reference text, class "document" unless overridden

    def apply(self, fact: NewFact) -> NewFact:
        cls = classify_memory(fact.text, fact.speaker)
        fact.decay_class, fact.importance, fact.pinned = cls.decay_class, cls.importance, cls.decay_class == "pinned"
        if self.document and not fact.pinned:
            fact.decay_class = "document"
        if self.pinned is not None:
            fact.pinned = self.pinned
            unpinned = fact.decay_class if fact.decay_class != "pinned" else "stable"
            fact.decay_class = "pinned" if self.pinned else unpinned
        if self.decay_class is not None:
            fact.decay_class = self.decay_class
            fact.pinned = self.decay_class == "pinned"
        if self.importance is not None:
            fact.importance = self.importance
        fact.expires_at = self.expires_at
        return fact


@dataclass
class PlannedChunk:
    sha256: str
    text: str
    message_ids: list[str]
    facts: list[NewFact] = field(default_factory=list)
    message: Message | None = None
    keep_chunk_id: int | None = None  # an unchanged stored chunk that is kept as it is
    fact_ids: list[int] = field(default_factory=list)
    location: dict[str, Any] | None = None  # an ingested document's page / heading path and span
    held: list[Any] = field(default_factory=list)  # facts the quarantine holds back (gieok.engine.retain.doubt.Held)


def is_system(speaker: str | None) -> bool:
    """A system prompt's speaker (``{"role": "system"}``)."""
    return speaker is not None and speaker.strip().casefold() in ("system", "developer")


def normalize_messages(messages: Sequence[Mapping[str, Any] | Message]) -> list[Message]:
    """Validate caller messages; raise InvalidMessageError naming the bad one before anything is stored."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidMessageError("messages must be a list of {'id', 'speaker', 'text', 'timestamp'} objects "
                                  "(or OpenAI's {'role', 'content'})")
    out: list[Message] = []
    seen: set[str] = set()
    for i, raw in enumerate(messages):
        if isinstance(raw, Message):
            raw = {"id": raw.id, "speaker": raw.speaker, "text": raw.text, "timestamp": raw.timestamp}
        if not isinstance(raw, Mapping):
            raise InvalidMessageError(f"message #{i} is a {type(raw).__name__}, expected an object with 'text'")
        text = raw.get("text", raw.get("content"))
        if not isinstance(text, str) or not text.strip():
            raise InvalidMessageError(
                f"message #{i} has no text: give it a non-empty 'text' (or 'content')")
        speaker = raw.get("speaker") or _chat_speaker(raw)
        if not isinstance(speaker, str):
            raise InvalidMessageError(f"message #{i}: 'speaker' must be a string")
        _check_encodable(text, f"message #{i} text")
        _check_encodable(speaker, f"message #{i} speaker", "name_chars")
        timestamp = raw.get("timestamp") if raw.get("timestamp") is not None else raw.get("created_at")
        if timestamp is not None:
            try:
                timestamp = to_datetime(timestamp, f"timestamp of message #{i}").isoformat()
            except Exception as exc:
                raise InvalidMessageError(str(exc)) from None
        message_id = raw.get("id")
        if message_id is None:
            digest = hashlib.sha256(f"{speaker}\x00{timestamp}\x00{text}".encode()).hexdigest()
            message_id = "m-" + digest[:16]
        elif isinstance(message_id, bool) or not isinstance(message_id, (str, int)):
            # str() would turn {} into "{}" and True into "True": ids that no caller meant
            raise InvalidMessageError(f"message #{i}: 'id' must be a string or an integer, e.g. 'm-1' or 42, "
                                      f"not {type(message_id).__name__}")
        message_id = str(message_id)
        if message_id in seen:
            raise InvalidMessageError(f"message #{i}: its id appears twice in one retain call")
        seen.add(message_id)
        _check_encodable(message_id, f"message #{i} id", "id_chars")
        out.append(Message(message_id, speaker, text, timestamp))
    if not out:
        raise InvalidMessageError("messages is empty: give at least one message")
    return out


def _chat_speaker(raw: Mapping[str, Any]) -> Any:
    """The speaker of an OpenAI-format message (``role``, ``name``): a user's ``name`` names them, but an
    assistant or tool message stays its role whatever its name, so a name cannot raise its trust."""
    role, name = raw.get("role"), raw.get("name")
    if isinstance(name, str) and name.strip() and (role is None or str(role).strip().lower() == "user"):
        return name
    return role or "user"


def _check_encodable(value: str, what: str, limit_name: str | None = None) -> None:
    """``value`` storable (and within the limit named, :mod:`gieok.limits`), else InvalidMessageError."""
    try:
        if limit_name is None:
            check_encodable(value, what)
        else:
            check_length(value, what, limit_name)  # storable too: check_length checks that first
    except InputError as exc:
        raise InvalidMessageError(str(exc)) from None


def embed_text(text: str, speaker: str | None, context: str | None = None) -> str:
    """What a fact's vector embeds: its text said by its speaker, after ``context`` (the message a
    reply answers, or a document chunk's heading path) for its second vector. Retain and reembed
    (gieok.engine.jobs.reembed) both build every vector's text here."""
    # Dates are left out: measured on LoCoMo, a date prefix lowers dense recall (R@10 0.686 -> 0.657);
    # time is the temporal channel's job.
    said = f"{speaker}: {text}" if speaker else text
    return f"{context}\n{said}" if context else said


def reply_context(previous: Message) -> str:
    """The context of a reply to ``previous``: who said what (its second vector and keyword terms)."""
    return f"{previous.speaker}: {previous.text}"


def section_context(piece: str, location: Mapping[str, Any] | None) -> str | None:
    """The context of a document chunk in the middle of a section: its heading path ("환불 정책 › 예외");
    None for a chunk outside any section, or one that opens with its heading (its facts say it already)."""
    section = location.get("section") if location else None
    if not section:
        return None
    return None if piece.startswith(section[-1]) else " › ".join(section)


_RECURRING = re.compile(r"생일|생신|기념일|birthday|b-?day|anniversary", re.IGNORECASE)
_YEAR_SAID = re.compile(r"\d{4}|\d{2,4}\s*년|작년|올해|내년|재작년|last year|this year|next year", re.IGNORECASE)


def _next_if_recurring(text: str, mention: Any, now: datetime) -> tuple[datetime, datetime]:
    """A birthday or an anniversary said without its year ("5월 17일이 제 생일이에요" on 4 May 2026)
    recurs: its next occurrence from the day it was said (17 May 2026), not the last one the parser
    reads a bare date as (17 May 2025). A year said, or any other date, is left as read."""
    start, end = mention.range
    if not _RECURRING.search(text) or _YEAR_SAID.search(mention.text) or start.date() >= now.date():
        return start, end
    length = end - start
    for years in range(1, 5):  # a 29 February recurs in the next leap year
        try:
            moved = start.replace(year=start.year + years)
        except ValueError:
            continue
        if moved.date() >= now.date():
            return moved, moved + length
    return start, end


def make_fact(text: str, speaker: str | None, when: str | None, message_ids: list[str],
               context: str | None = None, context_vector: bool = True,
               context_terms: tuple[str, ...] | None = None) -> NewFact:
    dt = to_datetime(when) if when else None
    occurred: tuple[float, float] | None = None
    if dt is not None:
        # "지난주에 부산 갔어" said on 2026-05-12 happened in the week of 2026-05-04
        found = find_time_expressions(text, dt)
        if found:
            start, end = _next_if_recurring(text, found[0], dt)
            occurred = (start.timestamp(), end.timestamp())
    offset = dt.utcoffset() if dt else None
    return NewFact(
        text=text,
        # A reply gets a second vector that also sees the message it answers ("Yes, twice!" means
        # little alone); recall averages both similarities. The fact's own vector stays its own meaning.
        embed_text=embed_text(text, speaker),
        context_embed_text=embed_text(text, speaker, context) if context and context_vector else None,
        terms=keyword_terms(f"{speaker} {text}" if speaker else text),
        context_terms=context_terms if context_terms is not None else keyword_terms(context) if context else (),
        kind="experience" if speaker and speaker.lower() in AGENT_SPEAKERS else "world",
        speaker=speaker,
        message_ids=message_ids,
        mentioned_at=dt.timestamp() if dt else None,
        occurred_start=occurred[0] if occurred else None,
        occurred_end=occurred[1] if occurred else None,
        utc_offset=int(offset.total_seconds() // 60) if offset is not None else None,
        tokens=count_tokens(text),
    )


def content_sha(*parts: str | None) -> str:
    return hashlib.sha256("\x00".join(p or "" for p in parts).encode("utf-8")).hexdigest()


ChunkVectors = tuple[np.ndarray, list[np.ndarray | None]]


def _embed_count(chunks: list[PlannedChunk]) -> int:
    return sum(1 + (f.context_embed_text is not None) for c in chunks for f in c.facts)


def _embed_all(embedder: Embedder, chunks: list[PlannedChunk], progress: Progress) -> list[ChunkVectors]:
    """Per chunk: its facts' own vectors, and each reply's vector with its context (None elsewhere)."""
    facts = [f for c in chunks for f in c.facts]
    texts = [f.embed_text for f in facts] + [f.context_embed_text for f in facts if f.context_embed_text]
    vectors = embedder.embed(texts, "document", progress=progress) if texts else np.zeros((0, embedder.dim))
    contextual = iter(vectors[len(facts):])
    out, i = [], 0
    for c in chunks:
        context = [next(contextual) if f.context_embed_text else None for f in c.facts]
        out.append((vectors[i : i + len(c.facts)], context))
        i += len(c.facts)
    return out


# a causal link the extractor gave, between two planned facts: (chunk, position, relation, chunk, position)
CausalLink = tuple["PlannedChunk", int, str, "PlannedChunk", int]


def _llm_facts(llm: Any, planned: list[PlannedChunk], options: FactOptions) -> list[CausalLink]:
    """Replace the planned chunks' deterministic facts by the LLM's narrative facts; returns their
    causal links. When the LLM fails the deterministic facts stay (and there are no links)."""
    items = [SourceItem(c.message.id, c.message.speaker, c.message.text, c.message.timestamp)
             for c in planned if c.message is not None and not is_system(c.message.speaker)]
    if not items:
        return []
    try:
        extracted = extract_facts(llm, items)
    except (LLMError, ExtractionError, SpendLimitError):
        return []  # deterministic extraction is the fallback, already planned
    by_message = {c.message.id: c for c in planned if c.message is not None}
    for chunk in planned:
        chunk.facts = []
    order: list[tuple[PlannedChunk, int]] = []
    for fact in extracted:
        owner = by_message.get(fact.message_ids[0]) if fact.message_ids else None
        owner = owner or next(c for c in planned if c.message is not None and not is_system(c.message.speaker))
        message = owner.message
        assert message is not None
        owner.facts.append(_fact_from_extracted(fact, message.speaker, message.timestamp, options))
        order.append((owner, len(owner.facts) - 1))
    return [(*order[index], relation, *order[earlier]) for index, fact in enumerate(extracted)
            for earlier, relation in fact.causes if earlier < len(order)]


def _fact_from_extracted(fact: Any, speaker: str | None, timestamp: str | None, options: FactOptions) -> NewFact:
    new = options.apply(make_fact(fact.text, speaker, timestamp, list(fact.message_ids)))
    new.kind = fact.kind
    if fact.occurred_start:
        new.occurred_start = to_datetime(fact.occurred_start).timestamp()
        new.occurred_end = to_datetime(fact.occurred_end).timestamp() if fact.occurred_end else new.occurred_start
    return new


def _document_llm_facts(llm: Any, planned: list[PlannedChunk], timestamp: str | None,
                        options: FactOptions) -> list[CausalLink]:
    """Narrative facts per new document chunk, and their causal links (within a chunk); a chunk the LLM
    fails on keeps its deterministic facts."""
    links: list[CausalLink] = []
    for chunk in planned:
        if chunk.keep_chunk_id is not None:
            continue
        try:
            extracted = extract_facts(llm, [SourceItem(None, None, chunk.text, timestamp)])
        except (LLMError, ExtractionError, SpendLimitError):
            continue
        chunk.facts = [_fact_from_extracted(f, None, timestamp, options) for f in extracted]
        for fact in chunk.facts:
            fact.message_ids = []
        links += [(chunk, i, relation, chunk, earlier)
                  for i, f in enumerate(extracted) for earlier, relation in f.causes]
    return links


@dataclass
class Plan:
    """What one retain call will write, computed outside the write lock."""

    kind: str  # "conversation" | "document"
    source_id: str
    chunks: list[PlannedChunk]
    vectors: list[ChunkVectors]
    mentions: list[list[FactMentions]]  # per chunk, per fact
    causal: list[CausalLink]
    messages: list[Message] = field(default_factory=list)  # a conversation's messages, as given
    changed: set[str] = field(default_factory=set)  # message ids re-retained with new text
    existing: dict[str, tuple[int, str]] = field(default_factory=dict)  # message id -> (source row, text)
    skipped: int = 0
    removed_chunks: list[int] = field(default_factory=list)  # a document's chunks no longer in it
    text: str | None = None  # a document's text
    metadata: dict[str, Any] = field(default_factory=dict)
    # supersede verdicts judged before the lock: (older text, newer text) -> verdict or None
    verdicts: dict[tuple[str, str], Any] = field(default_factory=dict)
    # entity resolution planned before the lock (gieok.engine.retain.resolve); checked again under it
    entities: Any = None
    # a conversation's profile-slot values, one list per fact in the chunks' order (engine.profile)
    slots: list[Any] = field(default_factory=list)


def plan_messages(store: Store, bank: BankRow | None, settings: Settings, embedder: Embedder,
                  messages: list[Message], source_id: str, options: FactOptions, llm: Any,
                  progress: Progress = None, on_total: Callable[[int], None] | None = None,
                  decisions: DecisionModel | None = None) -> Plan:
    existing = store.sources.existing_messages(bank.id, [m.id for m in messages]) if bank is not None else {}
    planned: list[PlannedChunk] = []
    changed: set[str] = set()
    skipped = 0
    previous = store.sources.last_message(bank.id, source_id) if bank is not None else None
    for m in messages:
        old = existing.get(m.id)
        if old is not None and old[1] == m.text:
            skipped += 1
            previous = m
            continue
        if old is not None:
            changed.add(m.id)
        chunk = PlannedChunk(content_sha(m.speaker, m.timestamp, m.text), m.text, [m.id], message=m)
        # only a short reply gets context: a message continuing the same speaker's turn stands on its
        # own, and so does a long one, split into facts that carry their own words and meaning. Its
        # vector sees the message it answers; its keyword terms only when that is short too ("Yes,
        # twice!" says little without the question). Borrowed into each piece of a long answer, the
        # question's words lifted the answer above the question; a long answer's words borrowed into
        # the short reply to it drown the reply's own (BEAM, README); a long reply's second vectors
        # doubled its encoding for no recall
        context: str | None = None
        context_terms: tuple[str, ...] = ()
        replies_to: str | None = None
        if previous is not None and previous.speaker != m.speaker and len(m.text) <= settings.max_fact_chars:
            context = reply_context(previous)
            if len(previous.text) <= settings.max_fact_chars:
                context_terms = keyword_terms(context)
            # a bare answer ("12월 3일이요") states a profile value only with the question it answers
            replies_to = previous.text if ends_asking(previous.text) else None
        # a system prompt instructs the assistant; it is kept in the source, it is not a memory
        for a, b in ([] if is_system(m.speaker) else facts_from_text(m.text, settings.max_fact_chars)):
            fact = options.apply(make_fact(m.text[a:b], m.speaker, m.timestamp, [m.id], context,
                                           settings.context_vectors, context_terms))
            fact.replies_to = replies_to
            chunk.facts.append(fact)
        previous = m
        planned.append(chunk)
    causal = _llm_facts(llm, planned, options) if llm is not None else []
    speakers = sorted({m.speaker for m in messages})
    plan = _finish(Plan("conversation", source_id, planned, [], [], causal, messages=messages, changed=changed,
                        existing=existing, skipped=skipped), store, bank, embedder, speakers, progress, on_total,
                   decisions)
    return plan


# an ingested document's chunks, laid out by gieok.documents: (text, location) in order; the text is
# the chunk's own (a table piece repeats its header row), the location its page / heading path / span
Layout = Sequence[tuple[str, Mapping[str, Any]]]


def plan_document(store: Store, bank: BankRow | None, settings: Settings, embedder: Embedder, text: str,
                  document_id: str, timestamp: str | None, metadata: dict[str, Any], options: FactOptions,
                  llm: Any, progress: Progress = None, on_total: Callable[[int], None] | None = None,
                  layout: Layout | None = None, decisions: DecisionModel | None = None) -> Plan:
    options = replace(options, document=True)
    row = store.sources.row(bank.id, document_id) if bank is not None else None
    if row is not None and row[1] != "document":
        raise InvalidMessageError(f"source {document_id!r} is a conversation; retain the document under another id")
    # the chunks of the document's current version (a retired chunk is history: never matched again)
    stored = {c.sha256: c for c in store.sources.chunks(row[0]) if c.position >= 0} if row else {}
    planned: list[PlannedChunk] = []
    pieces: list[tuple[str, dict[str, Any] | None]] = [(text[a:b], None) for a, b in
                                                        chunk_document(text, settings.chunk_chars)] \
        if layout is None else [(piece, dict(location)) for piece, location in layout]
    for piece, location in pieces:
        # a section's chunk is matched by its text and heading path: the same words under another
        # heading are another chunk (a moved page keeps its chunk; its location is updated)
        sha = content_sha(piece) if not location or not location.get("section") else \
            content_sha(piece, "\x1f".join(location["section"]))
        chunk = PlannedChunk(sha, piece, [], location=location)
        if sha in stored:
            chunk.keep_chunk_id = stored.pop(sha).id
        else:
            # a chunk in the middle of a section is embedded with its heading path ("환불 정책 › 예외")
            context = section_context(piece, location)
            for fa, fb in facts_from_text(piece, max(200, settings.max_fact_chars // 2)):
                chunk.facts.append(options.apply(make_fact(piece[fa:fb], None, timestamp, [], context,
                                                            settings.context_vectors)))
        planned.append(chunk)
    causal = _document_llm_facts(llm, planned, timestamp, options) if llm is not None else []
    meta = dict(metadata)
    if timestamp:
        meta["timestamp"] = timestamp
    plan = Plan("document", document_id, planned, [], [], causal, removed_chunks=[c.id for c in stored.values()],
                text=text, metadata=meta)
    return _finish(plan, store, bank, embedder, [], progress, on_total, decisions)


# a message longer than this says something whatever else it does (the filler head's own limit when it has one)
FILLER_MAX_WORDS = 12


def _drop_filler(plan: Plan, embedder_id: str, decisions: DecisionModel) -> None:
    """A short message the word lists let through but the bank's decision model judges filler ("Hang
    in there.", "ㅋㅋㅋ 아 웃겨"; offline the learned filler head, gieok.extract.filler_model) yields no
    fact; its source stays verbatim. What names something and the answer to a question ("They were
    awestruck." after "How did the kids take it?") are never asked."""
    model = filler_model(embedder_id)
    max_words = model.max_words if model is not None else FILLER_MAX_WORDS
    before = {m.id: plan.messages[i - 1] for i, m in enumerate(plan.messages) if i > 0}
    for i, chunk in enumerate(plan.chunks):
        own, _context = plan.vectors[i]
        message = chunk.message
        if (message is None or len(chunk.facts) != 1 or chunk.facts[0].text != message.text.strip()
                or not short_enough(message.text, max_words) or names_something(message.text)):
            continue
        asked = before.get(message.id)
        answers = asked is not None and asked.speaker != message.speaker and ends_asking(asked.text)
        if answers and not ends_asking(message.text):
            continue
        judged = decisions.decide("filler", hints={"vector": own[0], "embedder": embedder_id},
                                  text=message.text, speaker=message.speaker)
        if judged.yes:
            chunk.facts = []
            plan.vectors[i] = (own[:0], [])


def _finish(plan: Plan, store: Store, bank: BankRow | None, embedder: Embedder, speakers: list[str],
            progress: Progress, on_total: Callable[[int], None] | None,
            decisions: DecisionModel | None = None) -> Plan:
    """Embed the plan's facts and find their entity mentions (of the kinds ``decisions`` judges): the
    slow work, done before the lock."""
    if on_total:
        on_total(_embed_count(plan.chunks))
    plan.vectors = _embed_all(embedder, plan.chunks, progress)
    if plan.kind == "conversation" and not plan.causal:
        _drop_filler(plan, embedder.model_id, decisions or create_learned())
    found = iter(find_mentions(store, bank, [f for c in plan.chunks for f in c.facts], speakers, decisions))
    plan.mentions = [[next(found) for _ in c.facts] for c in plan.chunks]
    return plan
