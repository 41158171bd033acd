"""Consolidation: many facts into a few observations that stay current. Runs as the ``consolidate`` job.

Facts not yet consolidated are taken oldest said first and grouped by topic (offline, what people
said: a document's passages are reference text, recalled and cited as they are, never copied into
an observation): each named entity
they mention, or — for a statement about the speaker themself ("나 삼성 다녀") — the speaker — and by
user (the facts' ``user_id``, see :mod:`gieok.engine.scopes`): one user's facts never join another's
observation, nor a shared one. Within a topic and user, the bank's decision model (task ``triage``,
:mod:`gieok.providers.decisions`; offline the learned head of :mod:`gieok.extract.triage_model`)
judges each new fact against the topic's observations, those sharing most words first:

* ``chatter`` ("ㅋㅋㅋ 그치", "lol same") joins no observation;
* ``restates`` — the fact is cited by the observation it restates, whose text does not change;
* ``adds`` — the fact joins the observation and its text is written again;
* ``unrelated`` to every one asked — the fact starts another observation of the same subject
  (topic ``"name #2"``, its text still opening with the name), so an observation stays a short
  statement about one thing, with its citations, and never grows into a copy of a conversation.

An observation's supporting facts are the old support plus the new facts, minus versions
superseded or archived since, so an observation always reflects the current versions.

* **Offline** (no LLM) the text is extractive: the statements it shows (restatements are only
  cited), newest first, each with the date it was said — the facts' own words, no paraphrase, no
  arithmetic.
* **With an LLM** the model rewrites the observation from the current text and the new facts (each
  with its id and date) under the rules: update rather than append, no arithmetic, recency by when
  a thing was said, an older statement never overrides a newer belief; it must return the ids it
  relied on, and ids it was not given are dropped. Facts said before the observation's current
  belief are marked as such in the prompt; the belief time only moves forward.

Each topic is written in one transaction together with the "consolidated" mark of its facts, so a
crash mid-job loses nothing and duplicates nothing: the rerun picks up the facts still unmarked and
updates the same observation. A failing batch is split in half and retried down to one fact; a fact
that still fails is marked ``consolidation_failed`` (kept, skipped by later runs, visible in jobs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gieok.engine._time import day_of
from gieok.engine.context import JobContext
from gieok.engine.llm_calls import call_llm
from gieok.engine.speakers import AGENT_SPEAKERS
from gieok.errors import LLMError, SpendLimitError, StoreBusyError
from gieok.providers.decisions import DecisionModel
from gieok.providers.embedders import Embedder
from gieok.records import FactRow
from gieok.text.terms import keyword_terms
from gieok.text.tokens import count_tokens

__all__ = ["run_consolidation", "BATCH", "MAX_STATEMENTS"]

BATCH = 64
MAX_STATEMENTS = 8
HISTORY = 20  # earlier texts an observation keeps
ASKED = 4  # a topic's observations a new fact is judged against, those sharing most words first
_SIBLING = " #"
_DATED = re.compile(r"\((?:\d{4}-\d{2}-\d{2}|undated)\) ")
_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "fact_ids": {"type": "array", "items": {"type": "integer"}}},
    "required": ["text", "fact_ids"],
}
_SYSTEM = (
    "You maintain observations: short, current statements about one person, place or topic, built only from "
    "the facts given. Rules: update the existing observation rather than appending; never do arithmetic; what "
    "was said more recently wins; a fact marked OLDER may add detail but must never override a newer belief; "
    "keep the language the facts were said in; no speculation. Reply with JSON {\"text\": ..., \"fact_ids\": "
    "[ids of the facts the text relies on]}."
)


def _said(fact: FactRow) -> float:
    return fact.mentioned_at if fact.mentioned_at is not None else fact.created_at


@dataclass
class _Draft:
    """One observation of a topic as this run changes it."""

    topic: str  # the entity or speaker; "name #n" for another subject of theirs
    text: str  # the text the next fact is judged against
    stated: list[FactRow] = field(default_factory=list)  # new facts that add: the text will say them
    cited: list[int] = field(default_factory=list)  # new restatements: cited, the text unchanged
    # the sum of the stored vectors of the statements the text shows: the observation's vector as
    # the triage head reads it (its own stored vector is of its dated text, and stale once a fact adds)
    vector: np.ndarray | None = None


Topic = tuple[int | None, str, str | None]  # (entity id or None, topic name, user id or None: shared facts)


def _topics(ctx: JobContext, facts: Sequence[FactRow]) -> dict[Topic, list[int]]:
    """(entity id or None, topic name, user) → fact ids: one user's facts never join another's
    observation (nor a shared one), so an observation — an LLM's rewrite included — says only what
    the user whose recall may return it said."""
    store = ctx.store
    entities = store.graph.entities_of_facts([f.id for f in facts])
    names = store.graph.entity_names(sorted({e for es in entities.values() for e in es}))
    out: dict[Topic, list[int]] = {}
    offline = ctx.llm is None
    for fact in facts:
        if offline and fact.speaker is None:
            # offline, an observation is its facts' own words: a document's passage, reference text
            # cited by its page and section, would be copied whole, once per name it holds, without
            # its citation (an LLM writes a short statement from it instead)
            continue
        user = fact.scope.user_id
        keys: list[Topic] = [(e, names[e], user) for e in entities.get(fact.id, []) if e in names]
        if not keys and fact.speaker and fact.speaker.lower() not in AGENT_SPEAKERS:
            keys = [(None, fact.speaker, user)]
        for key in keys:
            out.setdefault(key, []).append(fact.id)
    return out


def _render(topic: str, facts: Sequence[FactRow]) -> str:
    seen: set[str] = set()
    lines = []
    for fact in sorted(facts, key=_said, reverse=True):
        text = " ".join(fact.text.split())
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        day = _day(_said(fact))
        lines.append(f"({day}) {text}")
        if len(lines) == MAX_STATEMENTS:
            break
    return f"{_display(topic)}: " + " · ".join(lines)


def _display(topic: str) -> str:
    """The name an observation's text opens with: its topic without a sibling's number ("민지 #2")."""
    base, _, number = topic.rpartition(_SIBLING)
    return base if base and number.isdigit() else topic


def _in_text(fact: FactRow, previous: Any) -> bool:
    """Whether an earlier supporting fact is one of the statements the previous text shows (offline
    text is the statements' own words), rather than a restatement cited without changing it."""
    return previous is None or " ".join(fact.text.split()) in previous.text


def _day(epoch: float) -> str:
    day = day_of(epoch)
    return day.isoformat() if day is not None else "undated"


def _llm_text(ctx: JobContext, llm: Any, topic: str, previous: Any, support: Sequence[FactRow],
              new_ids: set[int]) -> tuple[str, list[int]]:
    believed = previous.believed_at if previous is not None else None
    lines = []
    for fact in sorted(support, key=_said):
        day = _day(_said(fact))
        older = " OLDER" if believed is not None and fact.id in new_ids and _said(fact) < believed else ""
        lines.append(f"[{fact.id}] ({day}{older}) {fact.text}")
    prompt = (f"Topic: {topic}\nCurrent observation: {previous.text if previous else '(none yet)'}\n"
              "Facts:\n" + "\n".join(lines))
    response = call_llm(ctx.store, ctx.bank, llm, "consolidate", prompt, system=_SYSTEM, json_schema=_SCHEMA,
                        max_tokens=600, limit_usd=ctx.spend_limit)
    data = response.data or {}
    allowed = {f.id for f in support}
    cited = [int(i) for i in data.get("fact_ids", []) if isinstance(i, int) and int(i) in allowed]
    text = str(data.get("text", "")).strip()
    if not text or not cited:
        raise LLMError("the consolidation reply had no text or cited none of the given facts")
    return f"{topic}: {text}" if not text.startswith(topic) else text, cited


def _trimmed(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last HISTORY entries; the facts the dropped ones rested on move to the oldest kept one,
    because an LLM's rewrite may still carry them."""
    if len(history) <= HISTORY:
        return history
    dropped, kept = history[:-HISTORY], history[-HISTORY:]
    lineage = {int(i) for e in dropped for i in [*e.get("based_on", []), *e.get("added", [])]}
    kept[0] = {**kept[0], "based_on": sorted(lineage | {int(i) for i in kept[0].get("based_on", [])})}
    return kept


def _consolidate_topic(ctx: JobContext, entity_id: int | None, draft: _Draft, user: str | None,
                       tries: int = 3) -> int:
    store, bank, topic = ctx.store, ctx.bank, draft.topic
    stated = {f.id for f in draft.stated}
    new_ids = sorted(stated | set(draft.cited))
    existing = store.observations.all(bank.id, topic=topic, user_id=user)
    previous = existing[0] if existing else None
    seen = _version(previous)
    support_ids = sorted(set(previous.fact_ids if previous else []) | set(new_ids))
    support = [f for f in store.facts.get(bank.id, support_ids) if f.valid_to is None and f.archived_at is None]
    if not support:
        return 0
    text, cited = _text(ctx, previous, support, draft)
    believed = max(_said(f) for f in support)
    if previous is not None and previous.believed_at is not None:
        believed = max(believed, previous.believed_at)  # the belief time never moves back
    history = list(previous.history if previous else [])
    if previous is not None and previous.text != text:
        # based_on: what the previous text was built on, so erasing one of those facts finds the
        # text that quoted it here (gieok.store._erasure drops the observation)
        history.append({"at": ctx.now, "added": sorted(stated), "based_on": sorted(previous.fact_ids),
                        "previous": previous.text[:1000]})
    history = _trimmed(history)
    embedder = _embedder_now(ctx)
    vector = embedder.embed([text], "document")[0]
    with store.write():
        # another consolidation (a second worker, a maintain run) may have written this topic while
        # the text was made: start again from what it wrote, never a second observation of one topic;
        # and a reembed that moved the bank meanwhile: the vector is embedded again, in the new space
        store.lock_bank(bank.id)
        now_there = store.observations.all(bank.id, topic=topic, user_id=user)
        moved = _embedder_now(ctx).model_id != embedder.model_id
        if moved and tries <= 0:
            raise StoreBusyError(f"bank {bank.name!r} kept moving to other embedders while it was consolidated: retry")
        if moved or (_version(now_there[0] if now_there else None) != seen and tries > 0):
            raced = True
        else:
            raced = False
            store.observations.save(bank.id, previous.id if previous else None, entity_id=entity_id, topic=topic,
                                    text=text, fact_ids=sorted(set(cited) | set(new_ids) & {f.id for f in support}),
                                    history=history, believed_at=believed, embedding=vector,
                                    terms=keyword_terms(text), tokens=count_tokens(text), user_id=user)
    if raced:
        return _consolidate_topic(ctx, entity_id, draft, user, tries - 1)
    return 1


def _text(ctx: JobContext, previous: Any, support: Sequence[FactRow], draft: _Draft) -> tuple[str, list[int]]:
    """The observation's text and the facts it cites. A restatement is cited without changing the
    text; offline the text shows the statements it already showed plus the new ones that add."""
    stated = {f.id for f in draft.stated}
    current = {f.id for f in support}
    unchanged = previous is not None and not stated and set(previous.fact_ids) <= current
    llm = ctx.llm
    if llm is not None:
        if unchanged:  # nothing new to say and nothing it said was replaced: no call
            return previous.text, sorted(set(previous.fact_ids) | set(draft.cited))
        return _llm_text(ctx, llm, _display(draft.topic), previous, support, stated)
    cited = set(draft.cited)
    shown = [f for f in support if f.id in stated or (f.id not in cited and _in_text(f, previous))]
    return _render(draft.topic, shown or list(support)), [f.id for f in support]


def _placements(ctx: JobContext, topic: str, user: str | None, facts: Sequence[FactRow]) -> list[_Draft]:
    """Where each new fact of ``topic`` goes, as the bank's decision model judges it against the
    topic's observations (its subject's other subjects are observations of their own, "topic #n"):
    chatter joins none, a restatement is cited by the one it restates, a fact that adds updates it,
    a fact unrelated to all of them starts another."""
    observations = [o for o in ctx.store.observations.all(ctx.bank.id) if o.user_id == user and
                    _display(o.topic) == topic]
    cited = {f.id: f for f in ctx.store.facts.get(ctx.bank.id, sorted({i for o in observations for i in o.fact_ids}))}
    shown = {o.id: _statements(o, [cited[i] for i in o.fact_ids if i in cited]) for o in observations}
    vectors = ctx.store.search.vectors_of(ctx.bank.dim, [f.id for f in facts] +
                                          [f.id for statements in shown.values() for f in statements])
    drafts = [_Draft(o.topic, o.text, vector=_sum(vectors, shown[o.id])) for o in observations]
    decisions, embedder = ctx.decisions(), _embedder_now(ctx).model_id
    for fact in sorted(facts, key=_said):
        _place(decisions, drafts, topic, fact, vectors.get(fact.id), embedder)
    return [d for d in drafts if d.stated or d.cited]


def _statements(observation: Any, facts: list[FactRow]) -> list[FactRow]:
    """The facts an observation's text shows (offline its text is their words); all it cites when it
    shows none word for word (an LLM wrote it from them)."""
    return [f for f in facts if _in_text(f, observation)] or facts


def _sum(vectors: dict[int, np.ndarray], facts: Sequence[FactRow]) -> np.ndarray | None:
    found = [vectors[f.id] for f in facts if f.id in vectors]
    return np.asarray(np.sum(found, axis=0, dtype=np.float64)) if found else None


def _as_statement(text: str) -> str:
    """An observation as the decision model reads one: its statements without the dates said."""
    return _DATED.sub("", text).replace(" · ", ". ")


def _hints(draft: _Draft, vector: np.ndarray | None, embedder: str) -> dict[str, Any]:
    """The pair's stored vectors for the decision model (the learned head reads them instead of
    embedding both texts again); none when either is missing."""
    if vector is None or draft.vector is None:
        return {}
    norm = float(np.linalg.norm(draft.vector))
    return {"vectors": (draft.vector / norm if norm else draft.vector, vector), "embedder": embedder}


def _place(decisions: DecisionModel, drafts: list[_Draft], topic: str, fact: FactRow, vector: np.ndarray | None,
           embedder: str) -> None:
    words = set(keyword_terms(fact.text))
    nearest = sorted(drafts, key=lambda d: -len(words & set(keyword_terms(d.text))))[:ASKED]
    for draft in nearest:
        answer = decisions.decide("triage", hints=_hints(draft, vector, embedder),
                                  observation=_as_statement(draft.text), fact=fact.text,
                                  speaker=fact.speaker or "").answer
        if answer == "chatter":
            return  # said in passing: no observation cites it
        if answer == "restates":
            draft.cited.append(fact.id)
            return
        if answer == "adds":
            draft.stated.append(fact)
            draft.text = f"{draft.text} · ({_day(_said(fact))}) {' '.join(fact.text.split())}"
            # a draft whose vector is unknown stays so: its text is embedded instead
            draft.vector = None if draft.vector is None or vector is None else draft.vector + vector
            return
    taken = {d.topic for d in drafts}
    name = next(t for t in (topic, *(f"{topic}{_SIBLING}{n}" for n in range(2, len(taken) + 3))) if t not in taken)
    drafts.append(_Draft(name, _render(name, [fact]), [fact],
                         vector=None if vector is None else np.asarray(vector, dtype=np.float64)))


def _embedder_now(ctx: JobContext) -> Embedder:
    """The bank's embedder as it stands: a reembed may have moved the bank since the job was claimed."""
    row = ctx.store.banks.by_id(ctx.bank.id)
    if row is None or row.embedder == ctx.embedder.model_id:
        return ctx.embedder
    return ctx.engine.embedder(row.embedder)


def _version(observation: Any) -> tuple[Any, ...] | None:
    """What a concurrent writer would have changed about a topic's observation."""
    return None if observation is None else (observation.id, observation.text, tuple(observation.fact_ids))


def _consolidate(ctx: JobContext, fact_ids: list[int]) -> dict[str, int]:
    store, bank = ctx.store, ctx.bank
    facts = store.facts.get(bank.id, fact_ids)
    written = 0
    by_id = {f.id: f for f in facts}
    for (entity_id, topic, user), ids in _topics(ctx, facts).items():
        for draft in _placements(ctx, topic, user, [by_id[i] for i in ids]):
            written += _consolidate_topic(ctx, entity_id, draft, user)
    with store.write():
        store.observations.mark_consolidated([f.id for f in facts], ctx.now)
    return {"observations": written, "facts": len(facts)}


def _with_split(ctx: JobContext, fact_ids: list[int], totals: dict[str, int]) -> None:
    try:
        got = _consolidate(ctx, fact_ids)
        totals["observations"] += got["observations"]
        totals["facts"] += got["facts"]
    except SpendLimitError:
        raise
    except Exception:  # split and retry; one fact that still fails is marked, not lost
        if len(fact_ids) == 1:
            with ctx.store.write():
                ctx.store.observations.mark_consolidated(fact_ids, ctx.now, failed=True)
            totals["failed"] += 1
            return
        half = len(fact_ids) // 2
        _with_split(ctx, fact_ids[:half], totals)
        _with_split(ctx, fact_ids[half:], totals)


def run_consolidation(ctx: JobContext) -> dict[str, Any]:
    totals = {"observations": 0, "facts": 0, "failed": 0}
    while True:
        ids = ctx.store.observations.unconsolidated(ctx.bank.id, BATCH)
        if not ids:
            break
        _with_split(ctx, ids, totals)
    if totals["facts"] and ctx.store.models.all(ctx.bank.id):
        with ctx.store.write():
            ctx.store.jobs.enqueue(ctx.bank.id, "refresh_models", run_after=ctx.now)
    return totals

